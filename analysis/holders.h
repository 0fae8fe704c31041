// Holders: what each census found holding its device's live memory: every storage matched to the
// live block it lies in, each block counted once per census (docs/design.md, "Holders").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/holder_classes.h"
#include "analysis/iteration_tracker.h"
#include "analysis/live_set.h"
#include "analysis/report.h"
#include "analysis/retention.h"
#include "symbols/symbols.h"
#include "trace/event.h"

namespace memfloor::analysis {

// What Holders::finish reads from the rest of the replay; nothing is owned.
struct HoldersContext {
  const symbols::Symbols* symbols = nullptr;  // the paths' and vias' strings
  const Retention* retention = nullptr;       // the blocks' sites
  const NeverFreed* never_freed = nullptr;    // the sites' fates
  std::optional<uint64_t> run_end_ns{};       // the end of the last complete iteration
  uint32_t max_holders = 0;                   // listed per census; the rest is left out
};

struct HeldByWindows {
  std::vector<std::vector<HeldBy>> windows;  // per idle window: one per device, by device
  CensusCount count;
};

// Streaming, as the replay goes: a census takes its device's allocated level (blocks, or device
// allocations without blocks) as it is live then; each of its storages is matched to the one
// allocation that begins at its address, else the one containing it. A block matched by a census
// is flagged in the live set (kHeldByCensus) so that its end is noted: its class needs its fate.
// Per device, a census replaces the one before it when no iteration began in between (only the
// last of a window is used). finish() puts each census into the idle window its timestamp falls in
// and classifies the holders (holder_classes.h). Memory: the live allocations of one level while a
// census is open, and the storages' paths of one census per device and iteration.
class Holders {
 public:
  // A census of `census.device`. `slot`: the Timeline slot of its allocated level (kNoSlot: the
  // device has none); `blocks`: that level is allocator blocks; `started`: iterations begun.
  void onCensus(const trace::Event& census, uint16_t slot, bool blocks, uint32_t started,
                LiveSet& live);
  // A storage of the census just before (its device, its timestamp); ignored otherwise.
  void onHeld(const trace::Event& held, LiveSet& live);
  // A live allocation flagged kHeldByCensus has ended at `timestamp`.
  void onClose(const LiveAlloc& alloc, uint64_t timestamp);

  // Call once, after the last record.
  HeldByWindows finish(const std::vector<IterationSpan>& spans, const HoldersContext& context);

 private:
  static constexpr uint64_t kNotFreed = UINT64_MAX;

  // A block a census matched: what its class needs.
  struct Block {
    uint64_t size = 0;
    uint32_t site = 0;
    uint32_t tracked = 0;  // index into free_ns_
    uint8_t flags = 0;     // kBorn*
  };
  // The storages of one path in one census, in blocks no earlier storage of the census holds.
  struct Group {
    trace::StringId path = trace::kNoId;
    trace::StringId via = trace::kNoId;  // of its first storage reached through a graph
    uint64_t address = 0;                // the first storage's
    Tally blocks;
    uint64_t storage_bytes = 0;
    trace::HeldRole role = trace::HeldRole::kOther;
    bool shared = false;
    Block first;
  };
  struct Taken {
    trace::Census census;
    uint32_t started = 0;
    bool blocks = false;
    bool superseded = false;  // a later census of its device, in the same window or iteration
    Tally live;               // its level's live allocations then
    CensusStorages storages;
    std::vector<Group> groups;  // in the order of their first storage
  };
  // The census whose storages are still coming: they follow it in the trace, before any other
  // census.
  struct Open {
    size_t taken = 0;  // index into taken_
    uint16_t slot = kNoSlot;
    uint64_t remaining = 0;
    std::vector<LiveAlloc> live;                         // its level's live allocations, by address
    std::vector<bool> matched;                           // per entry of live
    std::unordered_map<trace::StringId, size_t> groups;  // path -> index into Taken::groups
  };

  const LiveAlloc* blockAt(const Open& open, uint64_t address, size_t& index) const;
  uint32_t track(uint16_t slot, uint64_t address, LiveSet& live);
  HeldBy heldBy(const Taken& taken, const HoldersContext& context, uint32_t window,
                HolderHistory& history) const;

  std::vector<Taken> taken_;
  std::optional<Open> open_;                             // the census whose storages are coming
  std::unordered_map<uint32_t, size_t> last_of_device_;  // device -> its last in taken_
  std::map<std::pair<uint16_t, uint64_t>, uint32_t> tracked_;  // live flagged blocks
  std::vector<uint64_t> free_ns_;                              // per tracked block: when it ended
};

}  // namespace memfloor::analysis

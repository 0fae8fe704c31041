// Holder classes: the class of a census's holder, from its role, the census before it on its device
// or its block's fate, and the rule that gave it (docs/design.md, "Holders").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/report.h"
#include "trace/records.h"

namespace memfloor::analysis {

struct HolderClass {
  RetentionClass cls = RetentionClass::kPersistent;
  std::string rule;  // one line
  bool operator==(const HolderClass&) const = default;
};

// What the retention rules know of a holder's block (docs/design.md, "Retention").
struct BlockFate {
  bool born_persistent = false;  // made before the first counted iteration
  bool freed_in_run = false;     // freed before the run's end
  // Never freed in the run: its site's fate (NeverFreed::fateOf); nullopt when no window retains
  // such an allocation of its site.
  std::optional<RetentionClass> site_fate{};
};

// The class the retention rules give the block: the holder's class when no census before says
// more ("time: ...").
HolderClass timeClass(const BlockFate& fate);

// The path without its last element when that is an index or a key ("trainer.losses[3]" ->
// "trainer.losses"); "" when the path does not end in one.
std::string_view containerOf(std::string_view path);

// How a rule names a census: "the census at step 3", or without a step "the census after
// iteration 2".
std::string censusName(uint32_t step, uint32_t iteration);

// The used censuses of one device, in window order, each classified against the one before:
//   role parameter, buffer, gradient or optimizer state -> persistent;
//   its container has more elements than in the census before -> leak;
//   same path, same block in the census before -> persistent;
//   same path, another block -> inter_iteration (the storage was replaced; a block allocated
//   again at the address it had, as a caching allocator hands out, is another block);
//   else (the first census, a new path) -> the time class of its block.
// A container that grew is a leak before the same-path rules: the elements it kept from earlier
// censuses are what the growth keeps alive, not persistent state.
class HolderHistory {
 public:
  struct Entry {
    std::string_view path;
    uint64_t block = 0;  // the identity of its first storage's block (one per allocation)
    trace::HeldRole role = trace::HeldRole::kOther;
    HolderClass time;  // timeClass of its block
  };

  // One class per entry (distinct paths); then the entries are the census before the next one.
  // `name` is censusName of this census.
  std::vector<HolderClass> next(const std::vector<Entry>& entries, const std::string& name);

 private:
  struct Seen {
    uint64_t block = 0;
    std::string since;  // the census since which the path has held this block
  };
  HolderClass classify(const Entry& e,
                       const std::unordered_map<std::string_view, size_t>& elements) const;

  std::unordered_map<std::string, Seen> paths_;         // of the census before
  std::unordered_map<std::string, size_t> containers_;  // its containers' elements
  std::string name_;                                    // its name
};

}  // namespace memfloor::analysis

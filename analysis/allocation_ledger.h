// AllocationLedger: every allocation of a replay with its life and, once the trace has ended, its
// class: what an export that draws allocations one by one needs (analysis/snapshot_export.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/live_set.h"
#include "analysis/retention.h"
#include "trace/event.h"

namespace memfloor::analysis {

// An allocation's class (docs/design.md, "Retention"): transient (retained by no idle window), or
// the class of the bytes a window retains.
enum class AllocationClass : uint8_t { kIteration, kInterIteration, kLeak, kPersistent, kCached };
std::string_view toString(AllocationClass c);  // "iteration", then as RetentionClass

struct LedgerEntry {
  static constexpr uint64_t kNeverFreed = UINT64_MAX;
  uint64_t alloc_ns = 0;
  uint64_t free_ns = kNeverFreed;  // freed (or closed by a later allocation at its address) then
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  trace::StackId stack = trace::kNoId;
  trace::MemoryKind kind = trace::MemoryKind::kDevice;
  uint8_t flags = 0;  // trace::kMemoryFlag*
  AllocationClass cls = AllocationClass::kIteration;
  // What the analysis attributed it to (LiveAlloc), and how far the run was when it was freed.
  uint32_t site = 0;
  uint32_t first_window = 0;
  uint32_t windows_at_free = 0;     // idle windows closed by then
  uint32_t iterations_at_free = 0;  // iterations ended by then
  uint8_t born = 0;                 // LiveAlloc's kBorn* flags
};

// Filled by an Analysis whose options name it (AnalysisOptions::ledger), in the order the
// allocations come; each replay starts it afresh. It grows with the number of allocations, which
// the analysis alone never does: only exports keep one.
class AllocationLedger {
 public:
  void clear();
  void onAlloc(const trace::Event& e, const LiveAlloc& a);
  void onClose(const LiveAlloc& a, uint64_t timestamp, uint32_t windows_closed);
  void onIterationEnd() { ++iterations_ended_; }
  // Once the trace has ended: each allocation's class, by the rules Retention's classes follow,
  // the never-freed ones taking their site's fate. `windows`: the idle windows closed in all.
  void classify(const NeverFreed& never_freed, uint32_t windows);

  const std::vector<LedgerEntry>& entries() const { return entries_; }

 private:
  struct KeyHash {
    size_t operator()(const LiveAlloc::Key& k) const { return LiveAlloc::hash(k); }
  };
  std::vector<LedgerEntry> entries_;
  std::unordered_map<LiveAlloc::Key, size_t, KeyHash> open_;  // live: entry index by key
  uint32_t iterations_ended_ = 0;
};

}  // namespace memfloor::analysis

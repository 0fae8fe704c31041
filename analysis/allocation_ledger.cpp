// AllocationLedger: each allocation's life as the analysis saw it, and its class at the end.
#include "analysis/allocation_ledger.h"

namespace memfloor::analysis {

std::string_view toString(AllocationClass c) {
  switch (c) {
    case AllocationClass::kIteration:
      return "iteration";
    case AllocationClass::kInterIteration:
      return toString(RetentionClass::kInterIteration);
    case AllocationClass::kLeak:
      return toString(RetentionClass::kLeak);
    case AllocationClass::kPersistent:
      return toString(RetentionClass::kPersistent);
    case AllocationClass::kCached:
      return toString(RetentionClass::kCached);
  }
  return "unknown";
}

void AllocationLedger::clear() {
  entries_.clear();
  open_.clear();
  iterations_ended_ = 0;
}

void AllocationLedger::onAlloc(const trace::Event& e, const LiveAlloc& a) {
  LedgerEntry entry;
  entry.alloc_ns = e.timestamp;
  entry.address = e.address;
  entry.size = e.size;
  entry.device = e.device;
  entry.stream = e.stream;
  entry.stack = e.stack;
  entry.kind = static_cast<trace::MemoryKind>(e.kind);
  entry.flags = e.flags;
  entry.site = a.site;
  entry.first_window = a.first_window;
  entry.born = a.flags;
  open_[a.key()] = entries_.size();
  entries_.push_back(entry);
}

void AllocationLedger::onClose(const LiveAlloc& a, uint64_t timestamp, uint32_t windows_closed) {
  const auto it = open_.find(a.key());
  if (it == open_.end()) return;
  LedgerEntry& entry = entries_[it->second];
  entry.free_ns = timestamp;
  entry.windows_at_free = windows_closed;
  entry.iterations_at_free = iterations_ended_;
  open_.erase(it);
}

// Retained: live when a window it could be retained in closed (freed after it, or never, and the
// window not the one after an iteration the trace ended inside). Persistent when made before the
// first counted iteration; inter-iteration when freed in the run (an iteration ended after the
// free); else the site's fate.
void AllocationLedger::classify(const NeverFreed& never_freed, uint32_t windows) {
  const uint32_t retaining = never_freed.endedInside() && windows > 0 ? windows - 1 : windows;
  for (LedgerEntry& e : entries_) {
    const bool freed = e.free_ns != LedgerEntry::kNeverFreed;
    const bool retained = freed ? e.windows_at_free > e.first_window : e.first_window < retaining;
    if (!retained) {
      e.cls = AllocationClass::kIteration;
    } else if ((e.born & kBornPersistent) != 0) {
      e.cls = AllocationClass::kPersistent;
    } else if (freed && e.iterations_at_free < iterations_ended_) {
      e.cls = AllocationClass::kInterIteration;
    } else {
      switch (never_freed.fateOf(e.site).value_or(RetentionClass::kPersistent)) {
        case RetentionClass::kInterIteration:
          e.cls = AllocationClass::kInterIteration;
          break;
        case RetentionClass::kLeak:
          e.cls = AllocationClass::kLeak;
          break;
        case RetentionClass::kPersistent:
          e.cls = AllocationClass::kPersistent;
          break;
        case RetentionClass::kCached:
          e.cls = AllocationClass::kCached;
          break;
      }
    }
  }
}

}  // namespace memfloor::analysis

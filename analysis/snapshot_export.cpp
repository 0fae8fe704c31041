// exportTorchSnapshot: a trace's allocations, classes and holders as a PyTorch memory snapshot.
#include "analysis/snapshot_export.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/allocation_ledger.h"
#include "analysis/analyze_traces.h"
#include "common/error.h"
#include "symbols/symbols.h"
#include "trace/reader.h"
#include "trace/trace_file.h"

namespace memfloor::analysis {
namespace {

using trace::MemoryKind;
using trace::SnapshotAction;

constexpr uint64_t kNsPerUs = 1000;
// The viewer colours an allocation it has no entry for (a block of the state) as "unknown", and
// stops when its categories lack that one (MemoryViz.js appends it to a misspelt list): the
// segments, which memfloor does not class (it classes what the program holds, the blocks), carry
// it.
constexpr std::string_view kUnclassed = "unknown";

// The trace's frames and stacks as the snapshot's: each stack once, its module frame (outermost)
// taken out as the module path the snapshot's user_metadata carries.
class StackTable {
 public:
  StackTable(const symbols::Symbols& symbols, trace::TorchSnapshot& out)
      : symbols_(symbols), out_(out) {}

  // (1 + the snapshot's stack index, or 0 for none; the module path).
  const std::pair<uint32_t, trace::SnapshotLabel>& of(trace::StackId id) {
    auto [it, added] = stacks_.try_emplace(id);
    if (!added || id == trace::kNoId) return it->second;
    std::vector<uint32_t> frames;
    for (const symbols::Frame& f : symbols_.stack(id).frames) {
      if (symbols::isModuleFrame(f)) {
        it->second.second = trace::SnapshotLabel(f.function);
        continue;
      }
      frames.push_back(frame(f));
    }
    if (!frames.empty()) {
      out_.stacks.push_back(std::move(frames));
      it->second.first = static_cast<uint32_t>(out_.stacks.size());
    }
    return it->second;
  }

 private:
  uint32_t frame(const symbols::Frame& f) {
    const bool python = f.kind == trace::FrameKind::kPython;
    trace::SnapshotFrame s;
    s.file = !f.file.empty() || python ? f.file : f.module;
    s.name = !f.function.empty() || python ? f.function : symbols::Symbols::render(f);
    s.line = f.line;
    auto [it, added] = frames_.try_emplace(std::make_tuple(s.file, s.name, s.line), 0);
    if (added) {
      it->second = static_cast<uint32_t>(out_.frames.size());
      out_.frames.push_back(std::move(s));
    }
    return it->second;
  }

  const symbols::Symbols& symbols_;
  trace::TorchSnapshot& out_;
  std::unordered_map<trace::StackId, std::pair<uint32_t, trace::SnapshotLabel>> stacks_;
  std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> frames_;
};

symbols::Symbols readSymbols(const trace::Source& source) {
  trace::FileOrderReader reader(source);
  symbols::Symbols symbols;
  trace::Record record;
  while (reader.next(record)) {
    std::visit(
        [&](const auto& r) {
          if constexpr (requires { symbols.add(r); }) symbols.add(r);
        },
        record);
  }
  return symbols;
}

// The holder each census named, by ledger entry: the allocation on the census's device (its
// allocated level: blocks, else device allocations) that holds the holder's first storage then.
// The latest census names it.
std::vector<std::string> holdersOf(const Report& report, const std::vector<LedgerEntry>& ledger,
                                   const std::set<uint32_t>& block_devices) {
  struct Lookup {
    uint64_t timestamp;
    uint32_t device;
    uint64_t address;
    const std::string* path;
  };
  std::vector<Lookup> lookups;
  for (const IterationRow& row : report.iterations) {
    for (const HeldBy& census : row.held_by) {
      for (const Holder& h : census.holders) {
        lookups.push_back({census.timestamp, census.device, h.address, &h.path});
      }
    }
  }
  std::vector<std::string> out(ledger.size());
  if (lookups.empty()) return out;
  std::stable_sort(lookups.begin(), lookups.end(),
                   [](const Lookup& a, const Lookup& b) { return a.timestamp < b.timestamp; });
  // A sweep in time: the allocations of each device's allocated level live at each census.
  struct Change {
    uint64_t time;
    bool alloc;
    size_t entry;
  };
  std::vector<Change> changes;
  for (size_t i = 0; i < ledger.size(); ++i) {
    const LedgerEntry& e = ledger[i];
    const MemoryKind level =
        block_devices.count(e.device) != 0 ? MemoryKind::kBlock : MemoryKind::kDevice;
    if (e.kind != level) continue;
    changes.push_back({e.alloc_ns, true, i});
    if (e.free_ns != LedgerEntry::kNeverFreed) changes.push_back({e.free_ns, false, i});
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.time < b.time; });
  std::map<std::pair<uint32_t, uint64_t>, size_t> live;  // (device, address) -> entry
  size_t next = 0;
  for (const Lookup& l : lookups) {
    for (; next < changes.size() && changes[next].time <= l.timestamp; ++next) {
      const LedgerEntry& e = ledger[changes[next].entry];
      if (changes[next].alloc) {
        live[{e.device, e.address}] = changes[next].entry;
      } else if (auto it = live.find({e.device, e.address});
                 it != live.end() && it->second == changes[next].entry) {
        live.erase(it);
      }
    }
    auto it = live.upper_bound({l.device, l.address});
    if (it == live.begin()) continue;
    --it;
    const LedgerEntry& e = ledger[it->second];
    if (e.device == l.device && l.address - e.address < e.size) out[it->second] = *l.path;
  }
  return out;
}

class Builder {
 public:
  Builder(const std::vector<LedgerEntry>& ledger, const std::vector<std::string>& holders,
          StackTable& stacks, SnapshotExport& out)
      : ledger_(ledger), holders_(holders), stacks_(stacks), out_(out) {}

  void build(const std::set<uint32_t>& block_devices) {
    trace::TorchSnapshot& s = out_.snapshot;
    std::vector<std::vector<Timed>> timed;
    for (size_t i = 0; i < ledger_.size(); ++i) {
      const LedgerEntry& e = ledger_[i];
      if (e.kind != MemoryKind::kDevice && e.kind != MemoryKind::kBlock) {
        ++out_.left_out;
        out_.left_out_bytes += e.size;
        continue;
      }
      if (timed.size() <= e.device) timed.resize(e.device + 1u);
      const bool mirrored = block_devices.count(e.device) == 0;
      const bool block = e.kind == MemoryKind::kBlock;
      const bool vmm = (e.flags & trace::kMemoryFlagVmm) != 0;
      std::vector<Timed>& t = timed[e.device];
      const bool freed = e.free_ns != LedgerEntry::kNeverFreed;
      if (!block) {
        t.push_back(
            {e.alloc_ns, vmm ? SnapshotAction::kSegmentMap : SnapshotAction::kSegmentAlloc, i});
      }
      if (block || mirrored) t.push_back({e.alloc_ns, SnapshotAction::kAlloc, i});
      if (freed && (block || mirrored)) {
        t.push_back({e.free_ns, SnapshotAction::kFreeRequested, i});
        t.push_back({e.free_ns, SnapshotAction::kFreeCompleted, i});
      }
      if (freed && !block) {
        t.push_back(
            {e.free_ns, vmm ? SnapshotAction::kSegmentUnmap : SnapshotAction::kSegmentFree, i});
      }
    }
    s.device_traces.resize(timed.size());
    for (uint32_t d = 0; d < timed.size(); ++d) {
      std::stable_sort(timed[d].begin(), timed[d].end(),
                       [](const Timed& a, const Timed& b) { return a.time < b.time; });
      s.device_traces[d].reserve(timed[d].size());
      for (const Timed& t : timed[d]) s.device_traces[d].push_back(entry(t));
      if (block_devices.count(d) == 0 && !timed[d].empty())
        s.memfloor.mirrored_devices.push_back(d);
    }
    state(block_devices);
  }

 private:
  struct Timed {
    uint64_t time;
    SnapshotAction action;
    size_t entry;
  };

  trace::SnapshotEntry entry(const Timed& t) const {
    const LedgerEntry& e = ledger_[t.entry];
    const auto& [stack, module] = stacks_.of(e.stack);
    trace::SnapshotEntry out;
    out.action = t.action;
    out.address = e.address;
    out.size = e.size;
    out.stream = e.stream;
    out.time_us = t.time / kNsPerUs;
    out.time_ns = t.time;
    out.stack = stack;
    out.module = module;
    const bool segment = t.action != SnapshotAction::kAlloc &&
                         t.action != SnapshotAction::kFreeRequested &&
                         t.action != SnapshotAction::kFreeCompleted;
    out.category = segment ? std::string(kUnclassed) : std::string(toString(e.cls));
    if (!segment) out.holder = holders_[t.entry];
    return out;
  }

  // The allocator's state at the end: each live segment tiled by its live blocks in address order,
  // inactive blocks between; on a mirrored device one block fills each segment.
  void state(const std::set<uint32_t>& block_devices) {
    std::map<std::pair<uint32_t, uint64_t>, size_t> segments, blocks;
    for (size_t i = 0; i < ledger_.size(); ++i) {
      const LedgerEntry& e = ledger_[i];
      if (e.free_ns != LedgerEntry::kNeverFreed) continue;
      if (e.kind == MemoryKind::kDevice) segments[{e.device, e.address}] = i;
      if (e.kind == MemoryKind::kBlock) blocks[{e.device, e.address}] = i;
    }
    size_t placed = 0;
    for (const auto& [key, index] : segments) {
      const LedgerEntry& seg = ledger_[index];
      trace::SnapshotSegment& out = out_.snapshot.segments.emplace_back();
      out.device = seg.device;
      out.address = seg.address;
      out.total_size = seg.size;
      out.stream = seg.stream;
      out.expandable = (seg.flags & trace::kMemoryFlagVmm) != 0;
      out.stack = stacks_.of(seg.stack).first;
      const bool mirrored = block_devices.count(seg.device) == 0;
      uint64_t at = seg.address;
      const uint64_t end = seg.address + seg.size;
      auto add = [&](uint64_t size, const LedgerEntry* b, size_t b_index) {
        trace::SnapshotBlock& block = out.blocks.emplace_back();
        block.address = at;
        block.size = size;
        if (b != nullptr) {
          block.requested_size = b->size;
          block.state = trace::SnapshotBlockState::kAllocated;
          block.stack = stacks_.of(b->stack).first;
          block.category = std::string(toString(b->cls));
          block.holder = holders_[b_index];
        }
        at += size;
      };
      if (mirrored) {
        add(seg.size, &seg, index);
        continue;
      }
      for (auto it = blocks.lower_bound({seg.device, seg.address});
           it != blocks.end() && it->first.first == seg.device && it->first.second < end; ++it) {
        const LedgerEntry& b = ledger_[it->second];
        if (b.address < at || b.size > end - b.address) continue;  // overlaps: not placed
        if (b.address > at) add(b.address - at, nullptr, 0);
        add(b.size, &b, it->second);
        ++placed;
      }
      if (at < end) add(end - at, nullptr, 0);
    }
    out_.blocks_outside_segments = blocks.size() - placed;
  }

  const std::vector<LedgerEntry>& ledger_;
  const std::vector<std::string>& holders_;
  StackTable& stacks_;
  SnapshotExport& out_;
};

}  // namespace

SnapshotExport exportTorchSnapshot(const std::string& path, AnalysisOptions options) {
  AllocationLedger ledger;
  options.ledger = &ledger;
  options.compact_iterations = false;
  SnapshotExport out;
  // Opened once: a snapshot or a text trace is encoded into memory when opened, and both the
  // analysis and the frames read it.
  const trace::TraceFile file(path);
  out.report = analyzeTrace(file.source(), options);
  const std::vector<LedgerEntry>& entries = ledger.entries();

  std::set<uint32_t> block_devices;
  for (const LedgerEntry& e : entries) {
    if (e.kind != MemoryKind::kDevice && e.kind != MemoryKind::kBlock) continue;
    if (e.kind == MemoryKind::kBlock) block_devices.insert(e.device);
    // The snapshot's device_traces is a list indexed by the device: its number is a length.
    if (e.device > trace::kMaxSnapshotDevice) {
      throw Error(
          fmt::format("{}: device {}: a PyTorch memory snapshot names devices 0 to {} "
                      "only (the device looks corrupt)",
                      path, e.device, trace::kMaxSnapshotDevice));
    }
  }
  symbols::Symbols symbols = readSymbols(file.source());
  if (options.resolver != nullptr) symbols.resolve(*options.resolver);
  StackTable stacks(symbols, out.snapshot);
  const std::vector<std::string> holders = holdersOf(out.report, entries, block_devices);
  Builder(entries, holders, stacks, out).build(block_devices);

  for (const IterationRow& row : out.report.iterations) {
    out.snapshot.memfloor.steps.push_back({true, row.start_ns});
    if (row.complete) out.snapshot.memfloor.steps.push_back({false, row.end_ns});
  }
  return out;
}

}  // namespace memfloor::analysis

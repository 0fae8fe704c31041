// encodeTorchSnapshot: a PyTorch memory snapshot's device traces and state as trace records.
#include "trace/torch_snapshot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/error.h"
#include "trace/rank_from_name.h"
#include "trace/sink.h"
#include "trace/torch_block_sizes.h"
#include "trace/writer.h"

namespace memfloor::trace {
namespace {

constexpr uint64_t kNsPerUs = 1000;
constexpr std::string_view kOptimizerPath = "/torch/optim/";
constexpr std::string_view kSchedulerFile = "lr_scheduler.py";
constexpr std::string_view kNnModuleFile = "/torch/nn/modules/module.py";

// An entry's time: memfloor's exports keep the nanoseconds, PyTorch's have microseconds.
uint64_t timeOf(const SnapshotEntry& e) {
  return e.time_ns != 0 ? e.time_ns : e.time_us * kNsPerUs;
}

bool isBlock(SnapshotAction a) {
  return a == SnapshotAction::kAlloc || a == SnapshotAction::kFreeRequested ||
         a == SnapshotAction::kFreeCompleted;
}
bool isBlockFree(SnapshotAction a) {
  return a == SnapshotAction::kFreeRequested || a == SnapshotAction::kFreeCompleted;
}
bool isSegmentAlloc(SnapshotAction a) {
  return a == SnapshotAction::kSegmentAlloc || a == SnapshotAction::kSegmentMap;
}
bool isSegmentFree(SnapshotAction a) {
  return a == SnapshotAction::kSegmentFree || a == SnapshotAction::kSegmentUnmap;
}

// One timed record: sorted by time, stably (as made where times are equal).
struct Timed {
  uint64_t time = 0;
  Record record;
  bool optimizer = false;  // a block allocation under torch/optim/
  bool forward = false;    // a block allocation under an nn.Module's call
  bool initial = false;    // made at the trace's start from the state: begins no step
};

// What reconciling the state with the ring found, for the warning.
struct Reconciled {
  uint64_t blocks = 0, block_bytes = 0, segments = 0, segment_bytes = 0;
  uint64_t unknown_frees = 0;
};

class Encoder {
 public:
  Encoder(const TorchSnapshot& snapshot, std::string name)
      : s_(snapshot),
        name_(std::move(name)),
        writer_(sink_),
        mirrored_(snapshot.memfloor.mirrored_devices.begin(),
                  snapshot.memfloor.mirrored_devices.end()) {}

  std::vector<uint8_t> encode();

 private:
  StringId string(std::string_view text);
  StackId stack(uint32_t snapshot_stack, const SnapshotLabel& module);
  uint32_t stream(uint64_t value);
  enum class Caller : int8_t { kUnknown = -1, kOther, kOptimizer, kForward };
  Caller caller(uint32_t snapshot_stack);
  void device(uint32_t device, uint64_t start_ns);
  void initial(uint32_t device, const std::vector<SnapshotEntry>& entries, uint64_t start_ns,
               TorchBlockSizes& sizes);
  // What a block allocation is to steps().
  struct Role {
    Caller caller = Caller::kOther;
    bool initial = false;
  };
  void memory(bool alloc, uint64_t time, uint32_t device, MemoryKind kind, uint64_t address,
              uint64_t size, uint64_t stream, StackId stack, uint8_t flags, Role role);
  void steps();
  void exportedSteps();
  void warn(const std::string& text);
  bool isMirrored(uint32_t device) const { return mirrored_.count(device) != 0; }
  void check(bool ok, std::string_view what = {}) const;
  // The state's segments on a device, in the state's order.
  const std::vector<const SnapshotSegment*>& segmentsOn(uint32_t device) const;

  const TorchSnapshot& s_;
  std::string name_;
  MemorySink sink_;
  Writer writer_;
  std::unordered_map<std::string, StringId> strings_;
  std::vector<FrameId> frames_;  // by snapshot frame index, 0 until written
  FrameId module_frames_ = 0;    // module frames get ids after the snapshot's
  std::map<std::pair<uint32_t, SnapshotLabel>, StackId> stacks_;
  std::unordered_map<uint64_t, uint32_t> streams_{{0, 0}};
  std::vector<Caller> callers_;  // by snapshot stack
  std::vector<Timed> timed_;
  Reconciled reconciled_;
  std::vector<std::string> ooms_;
  std::unordered_set<uint32_t> mirrored_;                             // SnapshotExtension's
  std::map<uint32_t, std::vector<const SnapshotSegment*>> segments_;  // by device
};

void Encoder::check(bool ok, std::string_view what) const {
  if (!ok) {
    throw Error(fmt::format("{}: cannot encode the snapshot as a trace{}{}", name_,
                            what.empty() ? "" : ": ", what));
  }
}

const std::vector<const SnapshotSegment*>& Encoder::segmentsOn(uint32_t device) const {
  static const std::vector<const SnapshotSegment*> kNone;
  const auto it = segments_.find(device);
  return it == segments_.end() ? kNone : it->second;
}

StringId Encoder::string(std::string_view text) {
  if (text.empty()) return kNoId;
  auto [it, added] = strings_.try_emplace(std::string(text), 0);
  if (added) {
    it->second = static_cast<StringId>(strings_.size());
    check(writer_.writeString(it->second, text),
          fmt::format("a text of {} bytes is more than a trace record holds", text.size()));
  }
  return it->second;
}

StackId Encoder::stack(uint32_t snapshot_stack, const SnapshotLabel& module) {
  if (snapshot_stack == 0 && module.empty()) return kNoId;
  auto [it, added] = stacks_.try_emplace({snapshot_stack, module}, 0);
  if (!added) return it->second;
  std::vector<FrameId> ids;
  if (snapshot_stack != 0) {
    for (const uint32_t index : s_.stacks[snapshot_stack - 1]) {
      if (frames_[index] == kNoId) {
        const SnapshotFrame& f = s_.frames[index];
        const bool python = f.file.ends_with(".py") || f.file.starts_with("<");
        frames_[index] = index + 1;
        check(
            writer_.write(FrameDef{frames_[index], python ? FrameKind::kPython : FrameKind::kNative,
                                   kNoId, 0, string(f.name), string(f.file), f.line}));
      }
      ids.push_back(frames_[index]);
    }
  }
  if (!module.empty()) {  // outermost, as the companion writes it (docs/design.md)
    const FrameId id = static_cast<FrameId>(s_.frames.size()) + ++module_frames_;
    check(writer_.write(FrameDef{id, FrameKind::kPython, kNoId, 0, string(module.view()),
                                 string(kModuleFrameFile), 0}));
    ids.push_back(id);
  }
  it->second = static_cast<StackId>(stacks_.size());
  check(writer_.writeStack(it->second, ids.data(), ids.size()),
        fmt::format("a stack of {} frames is more than a trace record holds", ids.size()));
  return it->second;
}

uint32_t Encoder::stream(uint64_t value) {
  auto [it, added] = streams_.try_emplace(value, 0);
  if (added) it->second = static_cast<uint32_t>(streams_.size() - 1);
  return it->second;
}

// Whom a stack's allocation is for: the optimizer (any frame under torch/optim/ but the
// scheduler's), else a module's forward (a frame of nn.Module's call), else neither.
Encoder::Caller Encoder::caller(uint32_t snapshot_stack) {
  if (snapshot_stack == 0) return Caller::kOther;
  Caller& known = callers_[snapshot_stack - 1];
  if (known != Caller::kUnknown) return known;
  known = Caller::kOther;
  for (const uint32_t index : s_.stacks[snapshot_stack - 1]) {
    const SnapshotFrame& f = s_.frames[index];
    if (f.file.find(kOptimizerPath) != std::string::npos && !f.file.ends_with(kSchedulerFile)) {
      known = Caller::kOptimizer;
      break;
    }
    if (f.file.ends_with(kNnModuleFile) &&
        (f.name == "_call_impl" || f.name == "_wrapped_call_impl")) {
      known = Caller::kForward;
    }
  }
  return known;
}

void Encoder::memory(bool alloc, uint64_t time, uint32_t device, MemoryKind kind, uint64_t address,
                     uint64_t size, uint64_t stream_value, StackId stack_id, uint8_t flags,
                     Role role) {
  MemoryEvent e;
  e.timestamp = time;
  e.address = address;
  e.size = size;
  e.stream = stream(stream_value);
  e.stack = stack_id;
  e.device = device;
  e.kind = kind;
  e.flags = flags;
  Timed t{
      time, {}, role.caller == Caller::kOptimizer, role.caller == Caller::kForward, role.initial};
  if (alloc) {
    t.record = Alloc{e};
  } else {
    t.record = Free{e};
  }
  timed_.push_back(std::move(t));
}

// What the trace starts with on `device`: the segments and blocks in use that the ring no longer
// shows made (the state's, where no entry touches their address, and those the first entry at
// their address frees), at the trace's start.
void Encoder::initial(uint32_t device, const std::vector<SnapshotEntry>& entries, uint64_t start_ns,
                      TorchBlockSizes& sizes) {
  std::unordered_map<uint64_t, const SnapshotEntry*> first_block, first_segment;
  for (const SnapshotEntry& e : entries) {
    if (e.action == SnapshotAction::kAlloc || isBlockFree(e.action)) {
      first_block.try_emplace(e.address, &e);
    } else if (isSegmentAlloc(e.action) || isSegmentFree(e.action)) {
      first_segment.try_emplace(e.address, &e);
    }
  }
  const auto add = [&](uint64_t address, uint64_t size, uint64_t stream_value, StackId stack_id,
                       MemoryKind kind, bool vmm) {
    memory(true, start_ns, device, kind, address, size, stream_value, stack_id,
           vmm ? kMemoryFlagVmm : 0, Role{Caller::kOther, true});
    Reconciled& r = reconciled_;
    (kind == MemoryKind::kBlock ? r.blocks : r.segments) += 1;
    (kind == MemoryKind::kBlock ? r.block_bytes : r.segment_bytes) += size;
  };
  std::unordered_set<uint64_t> segments, blocks;
  const bool mirrored = isMirrored(device);
  for (const SnapshotSegment* segment : segmentsOn(device)) {
    const SnapshotSegment& seg = *segment;
    if (!first_segment.count(seg.address)) {  // else the entries say when it was made
      sizes.addSegment(seg.address, seg.total_size, seg.expandable);
      add(seg.address, seg.total_size, seg.stream, stack(seg.stack, {}), MemoryKind::kDevice,
          seg.expandable);
      segments.insert(seg.address);
    }
  }
  for (const auto& [address, e] : first_segment) {
    if (isSegmentFree(e->action) && segments.insert(address).second) {
      sizes.addSegment(address, e->size, e->action == SnapshotAction::kSegmentUnmap);
      add(address, e->size, e->stream, stack(e->stack, e->module), MemoryKind::kDevice,
          e->action == SnapshotAction::kSegmentUnmap);
    }
  }
  if (mirrored) return;  // the segments are the allocations
  // Blocks the state holds exactly come first: the sizes of the others depend on them.
  for (const SnapshotSegment* segment : segmentsOn(device)) {
    const SnapshotSegment& seg = *segment;
    for (const SnapshotBlock& b : seg.blocks) {
      if (b.state != SnapshotBlockState::kInactive && !first_block.count(b.address)) {
        sizes.addBlock(b.address, b.size);
        add(b.address, b.size, seg.stream, stack(b.stack, {}), MemoryKind::kBlock, false);
        blocks.insert(b.address);
      }
    }
  }
  for (const auto& [address, e] : first_block) {
    if (isBlockFree(e->action) && blocks.insert(address).second) {
      add(address, sizes.allocate(address, e->size), e->stream, stack(e->stack, e->module),
          MemoryKind::kBlock, false);
    }
  }
}

// A device's records: what it starts with, then its trace's entries (none where only the state
// names the device).
void Encoder::device(uint32_t device, uint64_t start_ns) {
  static const std::vector<SnapshotEntry> kNoEntries;
  const std::vector<SnapshotEntry>& entries =
      device < s_.device_traces.size() ? s_.device_traces[device] : kNoEntries;
  TorchBlockSizes sizes(s_.settings);
  initial(device, entries, start_ns, sizes);
  // The size of each block still in use at the dump is the state's.
  std::unordered_map<uint64_t, uint64_t> state_sizes;
  for (const SnapshotSegment* segment : segmentsOn(device)) {
    const SnapshotSegment& seg = *segment;
    for (const SnapshotBlock& b : seg.blocks) {
      if (b.state != SnapshotBlockState::kInactive) state_sizes[b.address] = b.size;
    }
  }
  std::unordered_map<uint64_t, size_t> last_alloc;  // address -> the alloc still in use at the end
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].action == SnapshotAction::kAlloc) last_alloc[entries[i].address] = i;
    if (entries[i].action == SnapshotAction::kFreeCompleted) last_alloc.erase(entries[i].address);
  }
  const bool mirrored = isMirrored(device);
  for (size_t i = 0; i < entries.size(); ++i) {
    const SnapshotEntry& e = entries[i];
    if (mirrored && isBlock(e.action)) continue;
    const uint64_t time = timeOf(e);
    const bool vmm =
        e.action == SnapshotAction::kSegmentMap || e.action == SnapshotAction::kSegmentUnmap;
    switch (e.action) {
      case SnapshotAction::kAlloc: {
        uint64_t size = 0;
        const auto exact = state_sizes.find(e.address);
        const auto last = last_alloc.find(e.address);
        if (exact != state_sizes.end() && last != last_alloc.end() && last->second == i) {
          size = exact->second;
          sizes.addBlock(e.address, size);
        } else {
          size = sizes.allocate(e.address, e.size);
        }
        memory(true, time, device, MemoryKind::kBlock, e.address, size, e.stream,
               stack(e.stack, e.module), 0, Role{caller(e.stack), false});
        break;
      }
      case SnapshotAction::kFreeCompleted: {
        const uint64_t size = sizes.release(e.address);
        if (size == 0) {
          ++reconciled_.unknown_frees;
          break;
        }
        memory(false, time, device, MemoryKind::kBlock, e.address, size, e.stream, kNoId, 0,
               Role{});
        break;
      }
      case SnapshotAction::kSegmentAlloc:
      case SnapshotAction::kSegmentMap:
        sizes.addSegment(e.address, e.size, vmm || s_.settings.expandable_segments);
        memory(true, time, device, MemoryKind::kDevice, e.address, e.size, e.stream,
               stack(e.stack, e.module), vmm ? kMemoryFlagVmm : 0, Role{});
        break;
      case SnapshotAction::kSegmentFree:
      case SnapshotAction::kSegmentUnmap:
        sizes.removeSegment(e.address);
        memory(false, time, device, MemoryKind::kDevice, e.address, e.size, e.stream, kNoId,
               vmm ? kMemoryFlagVmm : 0, Role{});
        break;
      case SnapshotAction::kOom:
        ooms_.push_back(fmt::format("device {} ran out of memory at t={} ({} bytes free)", device,
                                    time, e.address));
        break;
      case SnapshotAction::kFreeRequested:  // in use until its stream's work completes
      case SnapshotAction::kOther:
        break;
    }
  }
}

// Step records around the optimizer's allocations, as the companion writes them: each run of them
// ends a step, and the next step begins at the first allocation of a module's forward after it
// (what comes between, zero_grad's frees and what the loop keeps, is the idle window). A trace
// whose allocations show no module's call begins a step at the first allocation after the run.
void Encoder::steps() {
  const bool forwards =
      std::any_of(timed_.begin(), timed_.end(), [](const Timed& t) { return t.forward; });
  std::vector<Timed> out;
  out.reserve(timed_.size());
  uint32_t step = 0;
  bool open = false;
  size_t last_optimizer = SIZE_MAX;  // index in out of the open run's last optimizer allocation
  const auto mark = [&](size_t at, uint64_t time, StepPhase phase) {
    Step r;
    r.timestamp = time;
    r.step = step;
    r.optimizer_steps = phase == StepPhase::kEnd ? 1 : 0;
    r.phase = phase;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), Timed{time, r});
  };
  for (Timed& t : timed_) {
    if (t.initial || !std::holds_alternative<Alloc>(t.record) ||
        std::get<Alloc>(t.record).kind != MemoryKind::kBlock) {
      out.push_back(std::move(t));
      continue;
    }
    if (!t.optimizer && last_optimizer != SIZE_MAX) {  // the run ended: so did the step
      mark(last_optimizer + 1, out[last_optimizer].time, StepPhase::kEnd);
      last_optimizer = SIZE_MAX;
      open = false;
    }
    if (!open && (t.optimizer || t.forward || !forwards)) {
      ++step;
      mark(out.size(), t.time, StepPhase::kBegin);
      open = true;
    }
    if (t.optimizer) last_optimizer = out.size();
    out.push_back(std::move(t));
  }
  if (last_optimizer != SIZE_MAX) {
    mark(last_optimizer + 1, out[last_optimizer].time, StepPhase::kEnd);
  }
  if (step == 0 ||
      std::none_of(out.begin(), out.end(), [](const Timed& t) { return t.optimizer; })) {
    std::erase_if(out, [](const Timed& t) { return std::holds_alternative<Step>(t.record); });
  }
  timed_ = std::move(out);
}

// The steps an export of memfloor's names (SnapshotExtension): a begin before the records of its
// time, an end after them.
void Encoder::exportedSteps() {
  std::vector<Timed> out;
  out.reserve(timed_.size() + s_.memfloor.steps.size());
  uint32_t step = 0;
  size_t next = 0;
  const auto mark = [&](const SnapshotStep& s) {
    Step r;
    r.timestamp = s.time_ns;
    if (s.begin) ++step;
    r.step = step;
    r.optimizer_steps = s.begin ? 0 : 1;
    r.phase = s.begin ? StepPhase::kBegin : StepPhase::kEnd;
    out.push_back(Timed{s.time_ns, r});
  };
  const std::vector<SnapshotStep>& steps = s_.memfloor.steps;
  for (Timed& t : timed_) {
    while (next < steps.size() &&
           (steps[next].time_ns < t.time || (steps[next].begin && steps[next].time_ns == t.time))) {
      mark(steps[next++]);
    }
    out.push_back(std::move(t));
  }
  while (next < steps.size()) mark(steps[next++]);
  timed_ = std::move(out);
}

void Encoder::warn(const std::string& text) {
  check(writer_.write(Property{string(kWarningProperty), string(text)}));
}

std::vector<uint8_t> Encoder::encode() {
  uint64_t start_ns = UINT64_MAX, end_ns = 0;
  for (const auto& entries : s_.device_traces) {
    for (const SnapshotEntry& e : entries) {
      // PyTorch's "snapshot" entry (a dump after the first) and actions this build does not know
      // are skipped; one without a time would start the trace in 1970.
      if (e.action == SnapshotAction::kOther && timeOf(e) == 0) continue;
      start_ns = std::min(start_ns, timeOf(e));
      end_ns = std::max(end_ns, timeOf(e));
    }
  }
  for (const SnapshotStep& s : s_.memfloor.steps) end_ns = std::max(end_ns, s.time_ns);
  if (start_ns == UINT64_MAX && s_.segments.empty()) {
    throw Error(
        fmt::format("{}: the snapshot holds no trace entry and no segment: nothing to "
                    "analyse (record its history with "
                    "torch.cuda.memory._record_memory_history() before the dump)",
                    name_));
  }
  if (start_ns == UINT64_MAX) start_ns = end_ns = 0;
  frames_.assign(s_.frames.size(), kNoId);
  callers_.assign(s_.stacks.size(), Caller::kUnknown);
  check(writer_.begin());
  ProcessInfo process;
  process.start_unix_ns = start_ns;
  process.command_line = string("PyTorch memory snapshot");
  process.rank = rankFromName(name_);
  check(writer_.write(process));
  std::set<uint32_t> devices;  // those with a trace, and those the state names
  for (uint32_t d = 0; d < s_.device_traces.size(); ++d) devices.insert(d);
  for (const SnapshotSegment& seg : s_.segments) {
    devices.insert(seg.device);
    segments_[seg.device].push_back(&seg);
  }
  for (const uint32_t d : devices) {
    check(writer_.write(DeviceInfo{d, kNoId, 0}));
    device(d, start_ns);
  }
  std::stable_sort(timed_.begin(), timed_.end(),
                   [](const Timed& a, const Timed& b) { return a.time < b.time; });
  if (s_.memfloor.steps.empty()) {
    steps();
  } else {
    exportedSteps();
  }
  const Reconciled& r = reconciled_;
  if (start_ns == end_ns && r.blocks + r.segments == timed_.size()) {
    warn(
        "PyTorch memory snapshot: no history entries, only the allocator's state at the dump "
        "(record the history with torch.cuda.memory._record_memory_history() before it)");
  } else if (r.blocks + r.segments > 0) {
    warn(
        fmt::format("PyTorch memory snapshot: {} blocks ({} bytes) and {} segments ({} bytes) "
                    "in use when its history begins were made before it (the history keeps "
                    "the last max_entries entries): they are taken from the allocator's state "
                    "and from later frees, made at the trace's start",
                    r.blocks, r.block_bytes, r.segments, r.segment_bytes));
  }
  if (r.unknown_frees > 0) {
    warn(fmt::format("PyTorch memory snapshot: {} frees of blocks never seen in use were skipped",
                     r.unknown_frees));
  }
  if (s_.settings.roundup_power2) {
    warn(
        "PyTorch memory snapshot: the allocator rounds sizes by roundup_power2_divisions; the "
        "blocks freed before the dump are counted at their size rounded to 512 bytes instead");
  }
  for (const std::string& oom : ooms_) warn("PyTorch memory snapshot: " + oom);
  for (const Timed& t : timed_) check(writer_.write(t.record));
  check(writer_.finish(end_ns));
  return sink_.bytes();
}

}  // namespace

std::vector<uint8_t> encodeTorchSnapshot(const TorchSnapshot& snapshot, const std::string& name) {
  return Encoder(snapshot, name).encode();
}

}  // namespace memfloor::trace

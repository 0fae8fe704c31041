// writeTorchSnapshot: a TorchSnapshot as PyTorch writes one, in either of its forms.
#include "trace/torch_snapshot_writer.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/pickle_writer.h"

namespace memfloor::trace {
namespace {

std::string_view actionName(SnapshotAction a) {
  switch (a) {
    case SnapshotAction::kAlloc:
      return "alloc";
    case SnapshotAction::kFreeRequested:
      return "free_requested";
    case SnapshotAction::kFreeCompleted:
      return "free_completed";
    case SnapshotAction::kSegmentAlloc:
      return "segment_alloc";
    case SnapshotAction::kSegmentFree:
      return "segment_free";
    case SnapshotAction::kSegmentMap:
      return "segment_map";
    case SnapshotAction::kSegmentUnmap:
      return "segment_unmap";
    case SnapshotAction::kOom:
      return "oom";
    case SnapshotAction::kOther:
      break;
  }
  return "snapshot";
}

std::string_view stateName(SnapshotBlockState s) {
  switch (s) {
    case SnapshotBlockState::kAllocated:
      return "active_allocated";
    case SnapshotBlockState::kPendingFree:
      return "active_pending_free";
    case SnapshotBlockState::kInactive:
      break;
  }
  return "inactive";
}

uint64_t requestedOf(const SnapshotBlock& b) {
  if (b.state == SnapshotBlockState::kInactive) return 0;
  return b.requested_size != 0 ? b.requested_size : b.size;
}

class SnapshotWriter {
 public:
  SnapshotWriter(const TorchSnapshot& s, std::ostream& out)
      : s_(s), w_(out), frames_(s.frames.size()), stacks_(s.stacks.size()) {}

  void write(SnapshotForm form) {
    if (form == SnapshotForm::kSegmentList) {
      w_.beginList();
      for (const SnapshotSegment& seg : s_.segments) segment(seg, form);
      w_.end();
    } else {
      w_.beginDict();
      w_.str("segments");
      w_.beginList();
      for (const SnapshotSegment& seg : s_.segments) segment(seg, form);
      w_.end();
      w_.str("device_traces");
      w_.beginList();
      for (const std::vector<SnapshotEntry>& entries : s_.device_traces) {
        w_.beginList();
        for (const SnapshotEntry& e : entries) entry(e);
        w_.end();
      }
      w_.end();
      settings();
      extension();
      w_.end();
    }
    w_.finish();
  }

 private:
  void key(std::string_view k, uint64_t value) {
    w_.str(k);
    w_.integer(static_cast<int64_t>(value));
  }
  void key(std::string_view k, std::string_view value) {
    w_.str(k);
    w_.str(value);
  }

  // A stack's frames, innermost first: written once, referred to after.
  void frames(uint32_t stack) {
    if (stack == 0) {
      w_.beginList();
      w_.end();
      return;
    }
    common::PickleRef& kept = stacks_[stack - 1];
    if (kept.valid()) {
      w_.ref(kept);
      return;
    }
    w_.beginList(common::PickleKeep::kYes);
    for (const uint32_t index : s_.stacks[stack - 1]) {
      if (frames_[index].valid()) {
        w_.ref(frames_[index]);
        continue;
      }
      const SnapshotFrame& f = s_.frames[index];
      w_.beginDict(common::PickleKeep::kYes);
      key("filename", f.file);
      key("line", f.line);
      key("name", f.name);
      frames_[index] = w_.end();
    }
    kept = w_.end();
  }

  // user_metadata's lines and the category, where there are any.
  void labels(const SnapshotLabel& module, const SnapshotLabel& holder,
              const SnapshotLabel& category) {
    std::string metadata;
    if (!module.empty()) metadata = "module:" + module.str();
    if (!holder.empty()) metadata += (metadata.empty() ? "holder:" : "\nholder:") + holder.str();
    if (!metadata.empty()) key("user_metadata", metadata);
    if (!category.empty()) key("category", category.view());
  }

  void segment(const SnapshotSegment& seg, SnapshotForm form) {
    uint64_t allocated = 0, active = 0, requested = 0;
    for (const SnapshotBlock& b : seg.blocks) {
      if (b.state == SnapshotBlockState::kAllocated) allocated += b.size;
      if (b.state != SnapshotBlockState::kInactive) active += b.size;
      requested += requestedOf(b);
    }
    w_.beginDict();
    key("device", seg.device);
    key("address", seg.address);
    key("total_size", seg.total_size);
    key("allocated_size", allocated);
    key("active_size", active);
    key("requested_size", requested);
    key("stream", seg.stream);
    key("segment_type", "large");
    if (form == SnapshotForm::kDict) {
      w_.str("is_expandable");
      w_.boolean(seg.expandable);
      w_.str("frames");
      frames(seg.stack);
    }
    w_.str("blocks");
    w_.beginList();
    for (const SnapshotBlock& b : seg.blocks) block(b, form);
    w_.end();
    w_.end();
  }

  void block(const SnapshotBlock& b, SnapshotForm form) {
    w_.beginDict();
    key("size", b.size);
    key("state", stateName(b.state));
    if (form == SnapshotForm::kSegmentList) {
      // 1.13: what a block in use was allocated for, and where, is its history.
      if (b.state != SnapshotBlockState::kInactive) {
        w_.str("history");
        w_.beginList();
        w_.beginDict();
        key("addr", b.address);
        key("real_size", requestedOf(b));
        w_.str("frames");
        frames(b.stack);
        w_.end();
        w_.end();
      }
    } else {
      key("address", b.address);
      key("requested_size", requestedOf(b));
      w_.str("frames");
      frames(b.stack);
      labels({}, b.holder, b.category);
    }
    w_.end();
  }

  void entry(const SnapshotEntry& e) {
    if (e.action == SnapshotAction::kOther) return;
    w_.beginDict();
    key("action", actionName(e.action));
    if (e.action == SnapshotAction::kOom) {
      key("device_free", e.address);
    } else {
      key("addr", e.address);
    }
    key("size", e.size);
    key("stream", e.stream);
    key("time_us", e.time_us);
    if (e.time_ns != 0) key("time_ns", e.time_ns);
    w_.str("frames");
    frames(e.stack);
    labels(e.module, e.holder, e.category);
    w_.end();
  }

  void settings() {
    w_.str("allocator_settings");
    w_.beginDict();
    w_.str("expandable_segments");
    w_.boolean(s_.settings.expandable_segments);
    if (s_.settings.max_split_size != UINT64_MAX) key("max_split_size", s_.settings.max_split_size);
    w_.end();
  }

  void extension() {
    const SnapshotExtension& x = s_.memfloor;
    if (x.steps.empty() && x.mirrored_devices.empty()) return;
    w_.str("memfloor");
    w_.beginDict();
    key("version", 1);
    w_.str("steps");
    w_.beginList();
    for (const SnapshotStep& step : x.steps) {
      w_.beginDict();
      key("phase", step.begin ? "begin" : "end");
      key("time_ns", step.time_ns);
      w_.end();
    }
    w_.end();
    w_.str("mirrored_devices");
    w_.beginList();
    for (const uint32_t d : x.mirrored_devices) w_.integer(d);
    w_.end();
    w_.end();
  }

  const TorchSnapshot& s_;
  common::PickleWriter w_;
  std::vector<common::PickleRef> frames_;  // by frame index, once written
  std::vector<common::PickleRef> stacks_;  // by stack index, once written
};

}  // namespace

void writeTorchSnapshot(const TorchSnapshot& snapshot, std::ostream& out, SnapshotForm form) {
  SnapshotWriter(snapshot, out).write(form);
}

}  // namespace memfloor::trace

// The snapshot's document (a pickle's plain values, or JSON) into a TorchSnapshot: one reader over
// both, through a view of each kind of value.
#include "trace/torch_snapshot_reader.h"

#include <fmt/core.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/json_input.h"
#include "common/pickle.h"

namespace memfloor::trace {
namespace {

// user_metadata's lines: "module:<path>" (companion/memfloor/module_paths.py), "holder:<path>"
// (memfloor's exports, trace/torch_snapshot_writer.h).
constexpr std::string_view kModulePrefix = "module:";
constexpr std::string_view kHolderPrefix = "holder:";

// Texts longer than any program makes (docs/torch-snapshots.md): a frame's file or function, a
// label. Stacks are bounded by kMaxStackFrames (trace/records.h).
constexpr size_t kMaxText = 64 * 1024;

// Where in the document a value is, for messages: "device_traces[0][12]".
struct Place {
  std::string_view section;
  int64_t i = -1, j = -1;
  std::string str() const {
    std::string s(section);
    if (i >= 0) s += fmt::format("[{}]", i);
    if (j >= 0) s += fmt::format("[{}]", j);
    return s;
  }
};

struct JsonView {
  using Value = nlohmann::json;
  static constexpr bool kShares = false;  // JSON writes every value where it stands
  static const Value* get(const Value& v, std::string_view key) {
    if (!v.is_object()) return nullptr;
    const auto it = v.find(key);
    return it == v.end() ? nullptr : &*it;
  }
  static bool isDict(const Value& v) { return v.is_object(); }
  static bool isList(const Value& v) { return v.is_array(); }
  static size_t size(const Value& v) { return v.size(); }
  static const Value& at(const Value& v, size_t i) { return v[i]; }
  static std::optional<int64_t> integer(const Value& v) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      return static_cast<int64_t>(u);
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    return std::nullopt;
  }
  static std::optional<std::string_view> text(const Value& v) {
    if (!v.is_string()) return std::nullopt;
    return std::string_view(v.get_ref<const std::string&>());
  }
  static std::optional<bool> boolean(const Value& v) {
    if (!v.is_boolean()) return std::nullopt;
    return v.get<bool>();
  }
  template <typename F>
  static void forEachValue(const Value& dict, F f) {
    for (const auto& item : dict.items()) f(item.value());
  }
};

struct PickleView {
  using Value = common::PickleValue;
  using Kind = common::PickleKind;
  static constexpr bool kShares = true;  // a pickle refers to a value it wrote, by its memo
  static const Value* get(const Value& v, std::string_view key) { return v.find(key); }
  static bool isDict(const Value& v) { return v.kind() == Kind::kDict; }
  static bool isList(const Value& v) { return v.kind() == Kind::kList || v.kind() == Kind::kTuple; }
  static size_t size(const Value& v) { return v.items().size(); }
  static const Value& at(const Value& v, size_t i) { return *v.items()[i]; }
  static std::optional<int64_t> integer(const Value& v) {
    if (v.kind() != Kind::kInt) return std::nullopt;
    return v.integer();
  }
  static std::optional<std::string_view> text(const Value& v) {
    if (v.kind() != Kind::kStr) return std::nullopt;
    return v.text();
  }
  static std::optional<bool> boolean(const Value& v) {
    if (v.kind() != Kind::kBool) return std::nullopt;
    return v.boolean();
  }
  template <typename F>
  static void forEachValue(const Value& dict, F f) {
    for (const common::PickleEntry& entry : dict.entries()) f(*entry.value);
  }
};

template <typename View>
class Reader {
  using Value = typename View::Value;

 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  TorchSnapshot read(const Value& root) {
    if (View::isList(root)) {
      fail({},
           "a list of segments: the form of PyTorch 1.13 (torch.cuda.memory_snapshot()), which "
           "holds no history to analyse; PyTorch 2.1 and later write a dict");
    }
    if (!View::isDict(root)) fail({}, "the document is not a dict: not a PyTorch memory snapshot");
    const Value* segments = View::get(root, "segments");
    const Value* traces = View::get(root, "device_traces");
    if (segments == nullptr && traces == nullptr) {
      fail({}, "neither 'segments' nor 'device_traces': not a PyTorch memory snapshot");
    }
    if (const Value* settings = View::get(root, "allocator_settings")) readSettings(*settings);
    if (const Value* extension = View::get(root, "memfloor")) readExtension(*extension);
    if (segments != nullptr) {
      list(*segments, {"segments"});
      for (size_t i = 0; i < View::size(*segments); ++i) {
        readSegment(View::at(*segments, i), {"segments", static_cast<int64_t>(i)});
      }
    }
    if (traces != nullptr) {
      list(*traces, {"device_traces"});
      if (View::size(*traces) > size_t{kMaxSnapshotDevice} + 1) {
        fail({"device_traces"}, fmt::format("{} devices, more than the {} a snapshot may name",
                                            View::size(*traces), kMaxSnapshotDevice + 1));
      }
      for (size_t d = 0; d < View::size(*traces); ++d) {
        const Value& device = View::at(*traces, d);
        list(device, {"device_traces", static_cast<int64_t>(d)});
        once(device, {"device_traces", static_cast<int64_t>(d)});
        auto& entries = out_.device_traces.emplace_back();
        entries.reserve(View::size(device));
        for (size_t i = 0; i < View::size(device); ++i) {
          entries.push_back(
              readEntry(View::at(device, i),
                        {"device_traces", static_cast<int64_t>(d), static_cast<int64_t>(i)}));
        }
      }
    }
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const Place& place, const std::string& what) const {
    const std::string where = place.section.empty() ? "" : place.str() + ": ";
    throw Error(fmt::format("{}: {}{}", name_, where, what));
  }

  void list(const Value& v, const Place& place) const {
    if (!View::isList(v)) fail(place, "not a list");
  }

  // A segment, a block, an entry or a list of them is read once: a pickle may refer to one again
  // (a few bytes), which would make the snapshot as large as the references times the value.
  // PyTorch writes each where it stands; a value met twice is refused, so that what is read stays
  // in proportion to the file.
  void once(const Value& v, const Place& place) {
    if constexpr (View::kShares) {
      if (!read_.insert(&v).second) {
        fail(place,
             "the same value as an earlier one (a pickle's reference): a snapshot never "
             "repeats a segment, block or entry");
      }
    }
  }

  // `t` if it is at most kMaxText bytes.
  std::string_view bounded(std::string_view t, std::string_view key, const Place& place) const {
    if (t.size() > kMaxText) {
      fail(place, fmt::format("'{}' is {} bytes, more than the {} a snapshot's text may be", key,
                              t.size(), kMaxText));
    }
    return t;
  }

  uint64_t number(const Value& dict, std::string_view key, const Place& place,
                  bool required = true) const {
    const Value* v = View::get(dict, key);
    if (v == nullptr) {
      if (required) fail(place, fmt::format("no '{}'", key));
      return 0;
    }
    const std::optional<int64_t> n = View::integer(*v);
    if (!n) fail(place, fmt::format("'{}' is not an integer", key));
    return static_cast<uint64_t>(*n);  // a stream's handle may be negative: kept as its bits
  }

  // A number that must lie in [0, max]: never cut to fit.
  uint64_t bounded(const Value& dict, std::string_view key, const Place& place, uint64_t max,
                   bool required = true) const {
    const Value* v = View::get(dict, key);
    const uint64_t n = number(dict, key, place, required);
    if (v != nullptr && (View::integer(*v).value_or(0) < 0 || n > max)) {
      fail(place, fmt::format("'{}' is {}, outside 0..{}", key, *View::integer(*v), max));
    }
    return n;
  }

  std::string_view text(const Value& dict, std::string_view key, const Place& place) const {
    const Value* v = View::get(dict, key);
    if (v == nullptr) fail(place, fmt::format("no '{}'", key));
    const std::optional<std::string_view> t = View::text(*v);
    if (!t) fail(place, fmt::format("'{}' is not a string", key));
    return bounded(*t, key, place);
  }

  void readSettings(const Value& settings) {
    if (const Value* v = View::get(settings, "expandable_segments")) {
      out_.settings.expandable_segments = View::boolean(*v).value_or(false);
    }
    if (const Value* v = View::get(settings, "max_split_size")) {
      const std::optional<int64_t> n = View::integer(*v);
      if (n && *n > 0) out_.settings.max_split_size = static_cast<uint64_t>(*n);
    }
    if (const Value* v = View::get(settings, "roundup_power2_divisions"); v && View::isDict(*v)) {
      View::forEachValue(*v, [&](const Value& value) {
        if (View::integer(value).value_or(0) != 0) out_.settings.roundup_power2 = true;
      });
    }
  }

  void readExtension(const Value& extension) {
    const Place place{"memfloor"};
    if (!View::isDict(extension)) fail(place, "not a dict");
    if (const Value* steps = View::get(extension, "steps")) {
      list(*steps, {"memfloor.steps"});
      for (size_t i = 0; i < View::size(*steps); ++i) {
        const Value& step = View::at(*steps, i);
        const Place step_place{"memfloor.steps", static_cast<int64_t>(i)};
        if (!View::isDict(step)) fail(step_place, "not a dict");
        once(step, step_place);
        const std::string_view phase = text(step, "phase", step_place);
        if (phase != "begin" && phase != "end") fail(step_place, "'phase' is not begin or end");
        const uint64_t time = number(step, "time_ns", step_place);
        if (!out_.memfloor.steps.empty() && time < out_.memfloor.steps.back().time_ns) {
          fail(step_place, "'time_ns' is earlier than the step before");
        }
        out_.memfloor.steps.push_back({phase == "begin", time});
      }
    }
    if (const Value* mirrored = View::get(extension, "mirrored_devices")) {
      list(*mirrored, {"memfloor.mirrored_devices"});
      for (size_t i = 0; i < View::size(*mirrored); ++i) {
        const std::optional<int64_t> d = View::integer(View::at(*mirrored, i));
        if (!d || *d < 0 || *d > kMaxSnapshotDevice) {
          fail({"memfloor.mirrored_devices", static_cast<int64_t>(i)}, "not a device number");
        }
        out_.memfloor.mirrored_devices.push_back(static_cast<uint32_t>(*d));
      }
    }
  }

  // The lines of user_metadata that memfloor writes, and the category: each text value taken
  // once, however many entries share it.
  template <typename Owner>
  void readLabels(const Value& dict, Owner& owner, const Place& place) {
    if (const Value* metadata = View::get(dict, "user_metadata")) {
      auto [it, added] = metadata_by_value_.try_emplace(metadata);
      if (added) it->second = metadataLabels(View::text(*metadata).value_or(""), place);
      if constexpr (requires { owner.module; }) owner.module = it->second.module;
      owner.holder = it->second.holder;
    }
    if (const Value* category = View::get(dict, "category")) {
      auto [it, added] = label_by_value_.try_emplace(category);
      if (added) {
        it->second = SnapshotLabel(bounded(View::text(*category).value_or(""), "category", place));
      }
      owner.category = it->second;
    }
  }

  struct MetadataLabels {
    SnapshotLabel module, holder;
  };
  MetadataLabels metadataLabels(std::string_view m, const Place& place) const {
    bounded(m, "user_metadata", place);
    MetadataLabels labels;
    while (!m.empty()) {
      const size_t end = m.find('\n');
      const std::string_view line = m.substr(0, end);
      if (line.starts_with(kModulePrefix) && line.size() > kModulePrefix.size()) {
        labels.module = line.substr(kModulePrefix.size());
      } else if (line.starts_with(kHolderPrefix)) {
        labels.holder = line.substr(kHolderPrefix.size());
      }
      m = end == std::string_view::npos ? std::string_view() : m.substr(end + 1);
    }
    return labels;
  }

  // 1 + the index of the entry's or block's stack in out_.stacks; 0 for none. Frames and stacks
  // are taken once per value (a pickle shares them) and once per content.
  uint32_t stack(const Value& owner, const Place& place) {
    const Value* frames = View::get(owner, "frames");
    if (frames == nullptr) return 0;
    list(*frames, place);
    if (View::size(*frames) == 0) return 0;
    if (View::size(*frames) > kMaxStackFrames) {
      fail(place, fmt::format("a stack of {} frames, more than the {} a snapshot's may hold",
                              View::size(*frames), kMaxStackFrames));
    }
    if (const auto it = stack_by_value_.find(frames); it != stack_by_value_.end()) {
      return it->second;
    }
    std::vector<uint32_t> indices;
    indices.reserve(View::size(*frames));
    for (size_t i = 0; i < View::size(*frames); ++i)
      indices.push_back(frame(View::at(*frames, i), place));
    auto [it, added] = stack_by_content_.try_emplace(indices, 0);
    if (added) {
      out_.stacks.push_back(std::move(indices));
      it->second = static_cast<uint32_t>(out_.stacks.size());
    }
    stack_by_value_[frames] = it->second;
    return it->second;
  }

  uint32_t frame(const Value& f, const Place& place) {
    if (const auto it = frame_by_value_.find(&f); it != frame_by_value_.end()) return it->second;
    if (!View::isDict(f)) fail(place, "a frame is not a dict");
    SnapshotFrame frame{std::string(text(f, "filename", place)),
                        std::string(text(f, "name", place)),
                        static_cast<uint32_t>(bounded(f, "line", place, UINT32_MAX, false))};
    auto [it, added] =
        frame_by_content_.try_emplace(std::make_tuple(frame.file, frame.name, frame.line), 0);
    if (added) {
      it->second = static_cast<uint32_t>(out_.frames.size());
      out_.frames.push_back(std::move(frame));
    }
    frame_by_value_[&f] = it->second;
    return it->second;
  }

  void readSegment(const Value& seg, const Place& place) {
    if (!View::isDict(seg)) fail(place, "not a dict");
    once(seg, place);
    SnapshotSegment& s = out_.segments.emplace_back();
    s.device = static_cast<uint32_t>(bounded(seg, "device", place, kMaxSnapshotDevice));
    s.address = number(seg, "address", place);
    s.total_size = number(seg, "total_size", place);
    s.stream = number(seg, "stream", place, false);
    if (const Value* v = View::get(seg, "is_expandable")) {
      s.expandable = View::boolean(*v).value_or(false);
    }
    s.stack = stack(seg, place);
    const Value* blocks = View::get(seg, "blocks");
    if (blocks == nullptr) return;
    list(*blocks, place);
    once(*blocks, place);
    for (size_t i = 0; i < View::size(*blocks); ++i) {
      const Value& b = View::at(*blocks, i);
      const Place block_place{"segments", place.i, static_cast<int64_t>(i)};
      if (!View::isDict(b)) fail(block_place, "a block is not a dict");
      once(b, block_place);
      SnapshotBlock& block = s.blocks.emplace_back();
      block.address = number(b, "address", block_place);
      block.size = number(b, "size", block_place);
      block.requested_size = number(b, "requested_size", block_place, false);
      const std::string_view state = text(b, "state", block_place);
      block.state = state == "active_allocated"      ? SnapshotBlockState::kAllocated
                    : state == "active_pending_free" ? SnapshotBlockState::kPendingFree
                                                     : SnapshotBlockState::kInactive;
      block.stack = stack(b, block_place);
      readLabels(b, block, block_place);
    }
  }

  SnapshotEntry readEntry(const Value& e, const Place& place) {
    if (!View::isDict(e)) fail(place, "not a dict");
    once(e, place);
    static const std::map<std::string_view, SnapshotAction> kActions = {
        {"alloc", SnapshotAction::kAlloc},
        {"free_requested", SnapshotAction::kFreeRequested},
        {"free_completed", SnapshotAction::kFreeCompleted},
        {"segment_alloc", SnapshotAction::kSegmentAlloc},
        {"segment_free", SnapshotAction::kSegmentFree},
        {"segment_map", SnapshotAction::kSegmentMap},
        {"segment_unmap", SnapshotAction::kSegmentUnmap},
        {"oom", SnapshotAction::kOom}};
    SnapshotEntry entry;
    const auto action = kActions.find(text(e, "action", place));
    entry.action = action == kActions.end() ? SnapshotAction::kOther : action->second;
    // Times in ns must fit 64 bits: a time_us past that would wrap and pair frees wrongly.
    entry.time_us = bounded(e, "time_us", place, UINT64_MAX / 1000, false);
    entry.time_ns = number(e, "time_ns", place, false);
    if (entry.action == SnapshotAction::kOther) return entry;  // its time only: the dump's
    entry.address = entry.action == SnapshotAction::kOom ? number(e, "device_free", place, false)
                                                         : number(e, "addr", place);
    entry.size = number(e, "size", place);
    entry.stream = number(e, "stream", place, false);
    entry.stack = stack(e, place);
    readLabels(e, entry, place);
    return entry;
  }

  std::string name_;
  TorchSnapshot out_;
  std::unordered_map<const void*, uint32_t> stack_by_value_, frame_by_value_;
  std::unordered_set<const void*> read_;  // segments, blocks, entries and their lists (once())
  std::unordered_map<const void*, MetadataLabels> metadata_by_value_;
  std::unordered_map<const void*, SnapshotLabel> label_by_value_;
  std::map<std::vector<uint32_t>, uint32_t> stack_by_content_;
  std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> frame_by_content_;
};

}  // namespace

TorchSnapshot readTorchSnapshot(const nlohmann::json& root, const std::string& name) {
  return Reader<JsonView>(name).read(root);
}

TorchSnapshot readTorchSnapshot(const common::PickleValue& root, const std::string& name) {
  return Reader<PickleView>(name).read(root);
}

std::vector<uint8_t> encodeTorchSnapshotFile(const std::string& path, bool pickle) {
  if (pickle) {
    const common::PickleDocument document = common::readPickleFile(path, "PyTorch memory snapshot");
    return encodeTorchSnapshot(readTorchSnapshot(document.root(), path), path);
  }
  const nlohmann::json root =
      common::parseJson(common::readJsonFile(path, "PyTorch memory snapshot"), path);
  return encodeTorchSnapshot(readTorchSnapshot(root, path), path);
}

}  // namespace memfloor::trace

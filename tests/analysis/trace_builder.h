// TraceBuilder: synthetic traces built in code for the tests (analyzed by checked_analysis.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/records.h"

namespace memfloor::analysis::test {

using trace::MemoryKind;

// Where an allocation lives and who made it.
struct At {
  uint32_t device = 0;
  MemoryKind kind = MemoryKind::kDevice;
  trace::StackId stack = trace::kNoId;
  uint64_t thread = 1;
};

struct FrameSpec {
  std::string function;
  std::string file;
  uint32_t line = 0;
  std::string module = "libtrain.so";  // empty: none (a Python frame's)
  uint64_t offset = 0;
  trace::FrameKind kind = trace::FrameKind::kNative;
};

// One storage of a census (trace::Held), its path and via as text.
struct StorageSpec {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string path;
  std::string via{};  // "" none
  uint32_t holders = 1;
  trace::HeldRole role = trace::HeldRole::kOther;
};

class TraceBuilder {
 public:
  // Interns a string, emitting its StringDef on first use.
  trace::StringId name(std::string_view text) {
    auto [it, inserted] = strings_.try_emplace(std::string(text), next_string_);
    if (inserted) records_.push_back(trace::StringDef{next_string_++, std::string(text)});
    return it->second;
  }

  // Emits the module, frame and stack definitions for a stack; frames innermost first.
  trace::StackId stack(const std::vector<FrameSpec>& frames) {
    trace::StackDef def{next_stack_++, {}};
    for (const FrameSpec& f : frames) {
      trace::ModuleId module = trace::kNoId;
      if (!f.module.empty()) {
        trace::StringId path = name(f.module);
        auto [m, inserted] = modules_.try_emplace(path, next_module_);
        if (inserted) {
          records_.push_back(
              trace::ModuleDef{next_module_++, path, 0x400000, 1 << 20, trace::kNoId});
        }
        module = m->second;
      }
      trace::FrameDef frame{next_frame_++,
                            f.kind,
                            module,
                            f.offset,
                            f.function.empty() ? trace::kNoId : name(f.function),
                            f.file.empty() ? trace::kNoId : name(f.file),
                            f.line};
      records_.push_back(frame);
      def.frames.push_back(frame.id);
    }
    records_.push_back(def);
    return def.id;
  }

  TraceBuilder& alloc(uint64_t ts, uint64_t address, uint64_t size, At at = {}) {
    trace::Alloc a;
    fill(a, ts, address, size, at);
    sizes_[{at.device, at.kind, address}] = size;
    records_.push_back(a);
    return *this;
  }

  // size: the free record's size; by default the size of the last allocation at this address.
  TraceBuilder& free(uint64_t ts, uint64_t address, At at = {}, int64_t size = -1) {
    trace::Free f;
    uint64_t known = sizes_[{at.device, at.kind, address}];
    fill(f, ts, address, size < 0 ? known : static_cast<uint64_t>(size), at);
    records_.push_back(f);
    return *this;
  }

  TraceBuilder& push(uint64_t ts, std::string_view text, uint64_t thread = 1) {
    return marker(ts, thread, 0, name(text), trace::MarkerType::kPush);
  }
  TraceBuilder& pop(uint64_t ts, uint64_t thread = 1) {
    return marker(ts, thread, 0, trace::kNoId, trace::MarkerType::kPop);
  }
  TraceBuilder& start(uint64_t ts, uint64_t id, std::string_view text, uint64_t thread = 1) {
    return marker(ts, thread, id, name(text), trace::MarkerType::kStart);
  }
  TraceBuilder& end(uint64_t ts, uint64_t id, uint64_t thread = 1) {
    return marker(ts, thread, id, trace::kNoId, trace::MarkerType::kEnd);
  }
  // The same in an NVTX domain of that name (NCCL's "NCCL", say).
  TraceBuilder& pushIn(std::string_view domain, uint64_t ts, std::string_view text,
                       uint64_t thread = 1) {
    return marker(ts, thread, 0, name(text), trace::MarkerType::kPush, name(domain));
  }
  TraceBuilder& popIn(std::string_view domain, uint64_t ts, uint64_t thread = 1) {
    return marker(ts, thread, 0, trace::kNoId, trace::MarkerType::kPop, name(domain));
  }
  TraceBuilder& startIn(std::string_view domain, uint64_t ts, uint64_t id, std::string_view text,
                        uint64_t thread = 1) {
    return marker(ts, thread, id, name(text), trace::MarkerType::kStart, name(domain));
  }
  TraceBuilder& endIn(std::string_view domain, uint64_t ts, uint64_t id, uint64_t thread = 1) {
    return marker(ts, thread, id, trace::kNoId, trace::MarkerType::kEnd, name(domain));
  }

  // A training step's begin (its first forward) or end (its last optimizer step), as the Python
  // companion writes them.
  TraceBuilder& stepBegin(uint64_t ts, uint32_t step) {
    records_.push_back(trace::Step{ts, 1, step, 0, trace::StepPhase::kBegin});
    return *this;
  }
  TraceBuilder& stepEnd(uint64_t ts, uint32_t step, uint32_t optimizer_steps = 1) {
    records_.push_back(trace::Step{ts, 1, step, optimizer_steps, trace::StepPhase::kEnd});
    return *this;
  }

  // A census of `device` at ts and its storages, as the Python companion writes them.
  TraceBuilder& census(uint64_t ts, uint32_t step, const std::vector<StorageSpec>& storages,
                       uint32_t device = 0, bool complete = true) {
    std::vector<trace::Held> held;  // their strings defined first
    for (const StorageSpec& s : storages) {
      held.push_back({ts, s.address, s.size, name(s.path),
                      s.via.empty() ? trace::kNoId : name(s.via), device, s.holders, s.role});
    }
    records_.push_back(trace::Census{ts, 1000, 1000000, storages.size(), device, step, complete});
    records_.insert(records_.end(), held.begin(), held.end());
    return *this;
  }

  TraceBuilder& record(trace::Record r) {
    records_.push_back(std::move(r));
    return *this;
  }

  const std::vector<trace::Record>& records() const { return records_; }

 private:
  TraceBuilder& marker(uint64_t ts, uint64_t thread, uint64_t id, trace::StringId text,
                       trace::MarkerType type, trace::StringId domain = trace::kNoId) {
    trace::Marker m;
    m.timestamp = ts;
    m.thread = thread;
    m.id = id;
    m.name = text;
    m.domain = domain;
    m.type = type;
    records_.push_back(m);
    return *this;
  }

  static void fill(trace::MemoryEvent& e, uint64_t ts, uint64_t address, uint64_t size,
                   const At& at) {
    e.timestamp = ts;
    e.address = address;
    e.size = size;
    e.thread = at.thread;
    e.stack = at.stack;
    e.device = at.device;
    e.kind = at.kind;
  }

  std::vector<trace::Record> records_;
  std::map<std::string, trace::StringId> strings_;
  std::map<trace::StringId, trace::ModuleId> modules_;
  std::map<std::tuple<uint32_t, MemoryKind, uint64_t>, uint64_t> sizes_;
  trace::StringId next_string_ = 1;
  trace::ModuleId next_module_ = 1;
  trace::FrameId next_frame_ = 1;
  trace::StackId next_stack_ = 1;
};

}  // namespace memfloor::analysis::test

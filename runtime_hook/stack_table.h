// Call stacks for allocations: Python frames (innermost first) above native return addresses
// (native_unwinder.h), captured in the allocating thread, interned (a stack seen twice gets one
// id), and turned into module/frame/stack definitions that the trace writer drains before the
// first record that refers to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime_hook/python_frames.h"
#include "runtime_hook/trace_output.h"
#include "trace/records.h"

namespace memfloor::hook {

// A loaded module: [start, end) in memory; offsets are relative to `bias` (the ELF load bias), so
// an offset is the address in the file's own virtual address space, ready for llvm-symbolizer.
struct ModuleRange {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t bias = 0;
  std::string path;
  std::string build_id;  // hex, empty if the module has none
};

// Finds the module holding addr through dl_iterate_phdr. False if none does.
bool findModule(uint64_t addr, ModuleRange& out);

// One captured stack: the Python frames of the allocating thread, then its native frames.
struct CapturedStack {
  const PythonFrameRef* python = nullptr;
  size_t python_count = 0;
  const uint64_t* native = nullptr;
  size_t native_count = 0;
};

class StackTable {
 public:
  // Frames in modules whose path contains one of skip_substrings (the hook, libcupti, libcuda)
  // are dropped from the top of each stack: the stack starts at the caller of the CUDA API.
  explicit StackTable(std::vector<std::string> skip_substrings = {});

  // Interns a captured stack (innermost first). Thread-safe; never calls into the loader while
  // holding its lock. Returns kNoId for an empty stack.
  trace::StackId intern(const uint64_t* frames, size_t count) {
    return intern(CapturedStack{nullptr, 0, frames, count}, nullptr);
  }
  // Interns a stack with Python frames: those not seen before are named through namer, in the
  // capturing thread (their code objects must be alive). Returns kNoId for an empty stack.
  trace::StackId intern(const CapturedStack& stack, const PythonFrameNamer* namer);

  // A Python frame as a companion reports it; the strings need to live during the call only.
  struct PythonFrame {
    std::string_view file;
    std::string_view function;
    uint32_t line = 0;
  };
  // Interns a stack of Python frames (innermost first); the same frames give the same id. Thread-
  // safe. Returns kNoId for an empty stack.
  trace::StackId internPython(const PythonFrame* frames, size_t count);

  // The stack of `inner`'s frames followed by `outer`'s (both interned here): an allocation's
  // frames with the module whose forward made it outermost. Either kNoId gives the other.
  // Thread-safe; the same pair gives the same id.
  trace::StackId concat(trace::StackId inner, trace::StackId outer);

  // Writes the definitions made since the last drain (modules, then frames, then stacks). The
  // caller holds `batch`, so nothing else writes in between.
  bool hasPending() const;
  void drain(TraceOutput::Batch& batch);

  size_t stackCount() const;

 private:
  struct Pending {
    std::vector<trace::ModuleId> modules;
    std::vector<trace::FrameId> frames;
    std::vector<trace::StackId> stacks;
  };
  struct Frame {
    trace::FrameKind kind = trace::FrameKind::kNative;
    trace::ModuleId module = trace::kNoId;
    uint64_t offset = 0;
    std::string file, function;  // Python frames
    uint32_t line = 0;
  };

  struct RefHash {
    size_t operator()(const PythonFrameRef& r) const;
  };
  struct RefEqual {
    bool operator()(const PythonFrameRef& a, const PythonFrameRef& b) const {
      return a.code == b.code && a.offset == b.offset;
    }
  };

  trace::StackId lookupLocked(uint64_t hash, const CapturedStack& stack) const;
  bool skipped(const ModuleRange& module) const;
  // Module lookups of the native addresses not seen before, made without our lock.
  void addNativeFrames(const uint64_t* frames, size_t count);
  // Names of the Python frames not seen before, read without our lock.
  void addPythonFrames(const CapturedStack& stack, const PythonFrameNamer* namer);
  trace::FrameId pythonFrameIdLocked(const PythonFrame& frame);
  // The id of a stack of these frames, made if new (stacks that are not captured ones).
  trace::StackId stackOfFramesLocked(std::vector<trace::FrameId> ids);

  mutable std::mutex mutex_;
  std::vector<std::string> skip_;
  std::vector<ModuleRange> modules_;                           // index = ModuleId - 1
  std::vector<Frame> frames_;                                  // index = FrameId - 1
  std::unordered_map<uint64_t, trace::FrameId> frame_ids_;     // address -> id (0: skipped frame)
  std::vector<std::vector<trace::FrameId>> stacks_;            // index = StackId - 1
  std::unordered_multimap<uint64_t, trace::StackId> by_hash_;  // raw address hash -> id
  // Per stack, what it was interned from: {python count, (code, offset) pairs, native addresses}.
  std::vector<std::vector<uint64_t>> raw_;
  std::unordered_map<PythonFrameRef, trace::FrameId, RefHash, RefEqual> python_refs_;
  // Python frames by "file\0function\0line", and Python stacks by their frame ids' bytes.
  std::unordered_map<std::string, trace::FrameId> python_frame_ids_;
  std::unordered_map<std::string, trace::StackId> python_stack_ids_;
  std::unordered_map<uint64_t, trace::StackId> concat_ids_;  // (inner << 32 | outer) -> id
  Pending pending_;
};

}  // namespace memfloor::hook

// Symbols: the trace's interned strings, modules, frames and stacks, resolved for the report.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbols/frame.h"
#include "trace/records.h"

namespace memfloor::symbols {

// Where a return address lies in the source: one entry of an inlined chain.
struct SourceLocation {
  std::string function;
  std::string file;
  uint32_t line = 0;
};

// Resolves return addresses of one module offline (symbols/llvm_symbolizer.h does it with
// llvm-symbolizer). Implementations must not throw for an unknown or unreadable module: they return
// empty chains.
class FrameResolver {
 public:
  virtual ~FrameResolver() = default;
  // offsets: return addresses minus the module's base. Returns, per offset, the inlined chain
  // innermost first (empty when unknown).
  virtual std::vector<std::vector<SourceLocation>> resolve(
      std::string_view module_path, std::string_view build_id,
      const std::vector<uint64_t>& offsets) = 0;
};

// Memory is proportional to the interned data, which the writer emits once per distinct value.
// A later definition of the same id replaces the earlier one.
class Symbols {
 public:
  void add(const trace::StringDef& def) { strings_[def.id] = def.text; }
  void add(const trace::ModuleDef& def) { modules_[def.id] = def; }
  void add(const trace::FrameDef& def) { frames_[def.id] = def; }
  void add(const trace::StackDef& def) { stacks_[def.id] = def.frames; }

  // Resolves every native frame that has no function yet through `resolver`, one call per module.
  // A frame inside inlined code becomes several frames (innermost first) in stack().
  void resolve(FrameResolver& resolver);

  // "" for kNoId and for ids never defined.
  std::string_view string(trace::StringId id) const;

  // The frames of a stack, innermost first, inlined frames expanded; unknown frame ids give an
  // empty Frame.
  Stack stack(trace::StackId id) const;

  // How many innermost frames all of `ids` share (unknown stacks do not count), kept at least
  // one frame short of the shortest stack: the allocator's own frames (cudaMalloc, a caching
  // allocator, a tensor constructor) that would name every site alike. 0 with fewer than two
  // known stacks: nothing to tell apart, and the innermost frame is then the most specific.
  size_t sharedDepth(const std::vector<trace::StackId>& ids) const;

  // One line naming a site: its frame `skip` (0: the innermost, clamped to the outermost) as
  // "function (file:line)", "function", "module+0xoffset"; or "(no stack)" / "(unknown stack N)".
  std::string where(trace::StackId id, size_t skip = 0) const;

  static std::string render(const Frame& frame);

  // The frames resolve() found for a frame definition, innermost first; null when none.
  const std::vector<Frame>* resolved(trace::FrameId id) const {
    auto it = resolved_.find(id);
    return it == resolved_.end() ? nullptr : &it->second;
  }

 private:
  Frame frame(trace::FrameId id) const;
  void appendFrames(trace::FrameId id, std::vector<Frame>& out) const;

  std::unordered_map<trace::StringId, std::string> strings_;
  std::unordered_map<trace::ModuleId, trace::ModuleDef> modules_;
  std::unordered_map<trace::FrameId, trace::FrameDef> frames_;
  std::unordered_map<trace::StackId, std::vector<trace::FrameId>> stacks_;
  std::unordered_map<trace::FrameId, std::vector<Frame>> resolved_;  // by resolve()
};

}  // namespace memfloor::symbols

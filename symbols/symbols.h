// Symbols: the trace's interned strings, modules, frames and stacks, resolved for the report.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbols/frame.h"
#include "symbols/site_namer.h"
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

  // The module path that a stack's module frame carries (frame.h, kModuleFile), "" for none; cheap
  // enough for each new site: no frame is resolved.
  std::string_view modulePath(trace::StackId id) const;

  // The names of the stacks `ids`, which one report lists together (SiteNamer::name): also
  // "(no stack)" for kNoId and "(unknown stack N)" for a stack never defined, which are not
  // compared with the others.
  std::unordered_map<trace::StackId, std::string> siteNames(const std::vector<trace::StackId>& ids,
                                                            const SiteNamer& namer) const;

  // One frame as the report's stacks show it: "function (file:line)", "function (file)",
  // "function", or "module+0xoffset" (the module's file name).
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

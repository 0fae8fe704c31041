// A frame and a stack as the report shows them: resolved, inlined frames expanded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/records.h"

namespace memfloor::symbols {

struct Frame {
  trace::FrameKind kind = trace::FrameKind::kNative;
  std::string module;
  uint64_t offset = 0;
  std::string function;
  std::string file;
  uint32_t line = 0;
  bool operator==(const Frame&) const = default;
};

// The file of the Python frame that the companion puts outermost in an allocation's stack for the
// module whose forward (or backward) made it; its function is the module's path in the model,
// "GPT2LMHeadModel.transformer.h.3.attn" (docs/design.md, "Module paths"). No frame of code.
inline constexpr std::string_view kModuleFile = "<nn.Module>";

inline bool isModuleFrame(const Frame& frame) {
  return frame.kind == trace::FrameKind::kPython && frame.file == kModuleFile;
}

struct Stack {
  trace::StackId id = trace::kNoId;
  std::vector<Frame> frames;  // innermost first
};

}  // namespace memfloor::symbols

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

// The module frame's file (trace/records.h).
inline constexpr std::string_view kModuleFile = trace::kModuleFrameFile;

inline bool isModuleFrame(const Frame& frame) {
  return frame.kind == trace::FrameKind::kPython && frame.file == kModuleFile;
}

struct Stack {
  trace::StackId id = trace::kNoId;
  std::vector<Frame> frames;  // innermost first
};

}  // namespace memfloor::symbols

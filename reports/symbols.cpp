// Symbols: resolution of stacks into report frames and one-line site names.
#include "reports/symbols.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace memfloor::reports {

std::string_view Symbols::string(trace::StringId id) const {
  if (id == trace::kNoId) return {};
  auto it = strings_.find(id);
  return it == strings_.end() ? std::string_view{} : std::string_view{it->second};
}

Frame Symbols::frame(trace::FrameId id) const {
  Frame out;
  auto it = frames_.find(id);
  if (it == frames_.end()) return out;
  const trace::FrameDef& def = it->second;
  out.kind = def.kind;
  out.offset = def.offset;
  out.function = string(def.function);
  out.file = string(def.file);
  out.line = def.line;
  if (auto m = modules_.find(def.module); m != modules_.end()) out.module = string(m->second.path);
  return out;
}

Stack Symbols::stack(trace::StackId id) const {
  Stack out;
  out.id = id;
  auto it = stacks_.find(id);
  if (it == stacks_.end()) return out;
  out.frames.reserve(it->second.size());
  for (trace::FrameId f : it->second) out.frames.push_back(frame(f));
  return out;
}

std::string Symbols::render(const Frame& frame) {
  if (!frame.function.empty()) {
    if (frame.file.empty()) return frame.function;
    if (frame.line == 0) return fmt::format("{} ({})", frame.function, frame.file);
    return fmt::format("{} ({}:{})", frame.function, frame.file, frame.line);
  }
  std::string_view module = frame.module.empty() ? "?" : std::string_view{frame.module};
  // Only the file name: module paths are long and the full one is in the JSON.
  if (auto slash = module.rfind('/');
      slash != std::string_view::npos && slash + 1 < module.size()) {
    module.remove_prefix(slash + 1);
  }
  return fmt::format("{}+{:#x}", module, frame.offset);
}

size_t Symbols::sharedDepth(const std::vector<trace::StackId>& ids) const {
  const std::vector<trace::FrameId>* first = nullptr;
  size_t depth = SIZE_MAX;
  size_t known = 0;
  for (trace::StackId id : ids) {
    auto it = stacks_.find(id);
    if (it == stacks_.end()) continue;
    const std::vector<trace::FrameId>& frames = it->second;
    ++known;
    if (first == nullptr) {
      first = &frames;
      depth = frames.empty() ? 0 : frames.size() - 1;
      continue;
    }
    size_t shared = 0;
    while (shared < depth && shared < frames.size() && frames[shared] == (*first)[shared]) {
      ++shared;
    }
    depth = std::min(shared, frames.empty() ? 0 : frames.size() - 1);
  }
  return known < 2 ? 0 : depth;
}

std::string Symbols::where(trace::StackId id, size_t skip) const {
  if (id == trace::kNoId) return "(no stack)";
  auto it = stacks_.find(id);
  if (it == stacks_.end()) return fmt::format("(unknown stack {})", id);
  if (it->second.empty()) return "(empty stack)";
  return render(frame(it->second[std::min(skip, it->second.size() - 1)]));
}

}  // namespace memfloor::reports

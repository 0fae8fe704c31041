// Symbols: resolution of stacks into report frames and one-line site names.
#include "symbols/symbols.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

namespace memfloor::symbols {

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

void Symbols::appendFrames(trace::FrameId id, std::vector<Frame>& out) const {
  auto it = resolved_.find(id);
  if (it == resolved_.end()) {
    out.push_back(frame(id));
  } else {
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
}

Stack Symbols::stack(trace::StackId id) const {
  Stack out;
  out.id = id;
  auto it = stacks_.find(id);
  if (it == stacks_.end()) return out;
  out.frames.reserve(it->second.size());
  for (trace::FrameId f : it->second) appendFrames(f, out.frames);
  return out;
}

std::string_view Symbols::modulePath(trace::StackId id) const {
  auto it = stacks_.find(id);
  if (it == stacks_.end()) return {};
  for (auto f = it->second.rbegin(); f != it->second.rend(); ++f) {  // it is the outermost
    auto def = frames_.find(*f);
    if (def != frames_.end() && def->second.kind == trace::FrameKind::kPython &&
        string(def->second.file) == kModuleFile) {
      return string(def->second.function);
    }
  }
  return {};
}

void Symbols::resolve(FrameResolver& resolver) {
  // Unresolved native frames by module, in id order so the result does not depend on hashing.
  std::map<trace::ModuleId, std::vector<trace::FrameId>> by_module;
  for (const auto& [id, def] : frames_) {
    if (def.kind == trace::FrameKind::kNative && def.function == trace::kNoId &&
        modules_.count(def.module) != 0 && resolved_.count(id) == 0) {
      by_module[def.module].push_back(id);
    }
  }
  for (auto& [module_id, ids] : by_module) {
    std::sort(ids.begin(), ids.end());
    const trace::ModuleDef& module = modules_.at(module_id);
    std::vector<uint64_t> offsets;
    offsets.reserve(ids.size());
    for (trace::FrameId id : ids) offsets.push_back(frames_.at(id).offset);
    std::vector<std::vector<SourceLocation>> chains =
        resolver.resolve(string(module.path), string(module.build_id), offsets);
    for (size_t i = 0; i < ids.size() && i < chains.size(); ++i) {
      if (chains[i].empty()) continue;
      Frame base = frame(ids[i]);
      std::vector<Frame>& frames = resolved_[ids[i]];
      for (SourceLocation& loc : chains[i]) {
        Frame f = base;
        f.function = std::move(loc.function);
        f.file = std::move(loc.file);
        f.line = loc.line;
        frames.push_back(std::move(f));
      }
    }
  }
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

std::unordered_map<trace::StackId, std::string> Symbols::siteNames(
    const std::vector<trace::StackId>& ids, const SiteNamer& namer) const {
  std::unordered_map<trace::StackId, std::string> names;
  std::vector<trace::StackId> known;
  std::vector<Stack> stacks;
  for (trace::StackId id : ids) {
    if (names.count(id) != 0) continue;
    if (id == trace::kNoId) {
      names.emplace(id, "(no stack)");
    } else if (stacks_.count(id) == 0) {
      names.emplace(id, fmt::format("(unknown stack {})", id));
    } else {
      names.emplace(id, std::string());
      known.push_back(id);
      stacks.push_back(stack(id));
    }
  }
  std::vector<std::string> named = namer.name(stacks);
  for (size_t i = 0; i < known.size(); ++i) names[known[i]] = std::move(named[i]);
  return names;
}

}  // namespace memfloor::symbols

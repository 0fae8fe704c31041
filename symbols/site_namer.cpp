// SiteNamer: the user's frames told by path patterns, and sites named within groups of stacks.
#include "symbols/site_namer.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <array>

#include "common/error.h"
#include "symbols/function_name.h"
#include "symbols/symbols.h"

namespace memfloor::symbols {
namespace {

using FrameRefs = std::vector<const Frame*>;

// A path's last component.
std::string_view fileName(std::string_view path) {
  if (auto slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return path;
}

bool matches(std::string_view pattern, std::string_view path) {
  if (pattern.find('/') == std::string_view::npos) path = fileName(path);
  return ::fnmatch(std::string(pattern).c_str(), std::string(path).c_str(), 0) == 0;
}

// Whether a pattern matches the frame's file or its module's path.
template <typename Patterns>
bool anyMatches(const Patterns& patterns, const Frame& frame) {
  return std::any_of(patterns.begin(), patterns.end(), [&frame](std::string_view pattern) {
    return (!frame.file.empty() && matches(pattern, frame.file)) ||
           (!frame.module.empty() && matches(pattern, frame.module));
  });
}

bool sameFrames(const FrameRefs& a, const FrameRefs& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Frame* x, const Frame* y) { return *x == *y; });
}

// How many leading frames all of `stacks` share, kept one short of the shortest; 0 unless two of
// them differ (one stack, or copies of one, has nothing to tell apart: its first frame is the most
// specific).
size_t sharedDepth(const std::vector<const FrameRefs*>& stacks) {
  if (stacks.empty()) return 0;
  const FrameRefs& first = *stacks.front();
  size_t depth = first.size() - 1;
  bool distinct = false;
  for (const FrameRefs* frames : stacks) {
    distinct |= !sameFrames(*frames, first);
    size_t shared = 0;
    while (shared < depth && shared < frames->size() && *(*frames)[shared] == *first[shared]) {
      ++shared;
    }
    depth = std::min(shared, frames->size() - 1);
  }
  return distinct ? depth : 0;
}

// Libraries that allocate device memory of their own, outside the program's allocator (NCCL's
// communicator buffers; cuBLAS's and cuBLASLt's handle memory).
constexpr std::array<std::string_view, 2> kOwningLibraries = {"libnccl*", "libcublas*"};

// The file name of the module of an owning library's frame among the stack's native frames below
// the first of them in the user's code, or empty. (In a Python process the native frames follow the
// Python ones, but are the innermost: the allocation call is below the interpreter.)
std::string_view owningLibrary(const FrameRefs& all, const FrameRefs& user) {
  for (const Frame* frame : all) {
    if (frame->kind != trace::FrameKind::kNative) continue;
    if (std::find(user.begin(), user.end(), frame) != user.end()) break;
    if (!frame->module.empty() && anyMatches(kOwningLibraries, *frame)) {
      return fileName(frame->module);
    }
  }
  return {};
}

// PyTorch's Python call of an operator (`OpOverload.__call__`), which every operator a compiled
// graph or a decomposition calls passes through: the frame that called it says which one.
constexpr std::array<std::string_view, 2> kOperatorCalls = {"*/torch/_ops.py", "torch/_ops.py"};

// A frame that only passes an operator on: PyTorch's op call, or a tensor subclass's or mode's
// hook that sees every operator (`__torch_dispatch__`, `__torch_function__`).
bool passesOperatorsOn(const Frame& frame) {
  return anyMatches(kOperatorCalls, frame) || frame.function.ends_with("__torch_dispatch__") ||
         frame.function.ends_with("__torch_function__");
}

constexpr std::string_view kCompiledGraph = "<compiled graph>";  // how such a file is written

// The Python frames' files that a generator wrote: torch.compile's Inductor writes each graph's
// code to a file named by its hash under its cache folder (`torchinductor_<user>` in the temporary
// folder, or TORCHINDUCTOR_CACHE_DIR, where it is `c` and 51 more letters and digits, `.py`).
bool isGenerated(std::string_view file) {
  if (file.find("/torchinductor_") != std::string_view::npos) return true;
  std::string_view name = fileName(file);
  constexpr size_t kHashed = 1 + 51 + 3;  // c<hash>.py
  return name.size() == kHashed && name.front() == 'c' && name.ends_with(".py") &&
         std::all_of(name.begin() + 1, name.end() - 3,
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// A path of an installed package or of the standard library from its package root:
// ".../site-packages/transformers/x.py" -> "transformers/x.py", "/usr/lib/python3.12/json/x.py"
// -> "json/x.py".
std::string_view packagePath(std::string_view file) {
  for (std::string_view root : {"site-packages/", "dist-packages/"}) {
    if (auto at = file.rfind(root);
        at != std::string_view::npos && (at == 0 || file[at - 1] == '/'))
      return file.substr(at + root.size());
  }
  for (std::string_view lib : {"/lib/python3.", "/lib64/python3."}) {
    auto at = file.rfind(lib);
    if (at == std::string_view::npos) continue;
    auto slash = file.find('/', at + lib.size());
    if (slash != std::string_view::npos) return file.substr(slash + 1);
  }
  return file;
}

// The autograd node whose backward made the allocation: the innermost native frame that runs a
// node's apply (`torch::autograd::generated::MmBackward0::apply`) gives "MmBackward0". A Python
// node (a custom Function's backward, a compiled graph's) runs Python frames, which name it.
std::string backwardNode(const FrameRefs& all) {
  constexpr std::string_view kAutograd = "torch::autograd::", kApply = "::apply";
  for (const Frame* frame : all) {
    if (frame->kind != trace::FrameKind::kNative || frame->function.empty()) continue;
    std::string name = functionName(frame->function);
    if (!name.starts_with(kAutograd) || !name.ends_with(kApply)) continue;
    std::string_view node(name);
    node.remove_suffix(kApply.size());
    if (auto colons = node.rfind("::"); colons != std::string_view::npos) {
      node.remove_prefix(colons + 2);
    }
    if (node == "PyNode" || node == "Node") return {};
    return std::string(node);
  }
  return {};
}

}  // namespace

SiteNamer::SiteNamer(SitePatterns patterns) : patterns_(std::move(patterns)) {
  for (const auto* list : {&patterns_.include, &patterns_.exclude}) {
    for (const std::string& pattern : *list) {
      if (pattern.empty()) {
        throw Error(
            fmt::format("empty site {} pattern: a pattern is a path glob, such as "
                        "'*/my_project/*' or 'my_allocator.cpp'",
                        list == &patterns_.include ? "include" : "exclude"));
      }
    }
  }
}

const std::vector<std::string_view>& SiteNamer::defaultExcludes() {
  static const std::vector<std::string_view> kPatterns = {
      // Python: installed packages, PyTorch (also from a source tree), the standard library.
      // (A trace symbolized with --prefix-map can hold "site-packages/x.py", from its root.)
      "*/site-packages/*", "*/dist-packages/*", "site-packages/*", "dist-packages/*", "*/torch/*",
      "torch/*", "*/lib/python3.*/*", "*/lib64/python3.*/*", "<frozen *>", "*/bin/python*",
      "python3", "python3.[0-9]*",  // the interpreter, where a trace holds its file name alone
      // Code that torch.fx generates for a graph module.
      "<eval_with_key>*",
      // CUDA's libraries and the toolkit's headers.
      "libcuda.so*", "libcudart.so*", "libcublas*", "libcudnn*", "libnccl*", "libcufft*",
      "libcurand*", "libcusolver*", "libcusparse*", "libcupti*", "libnvrtc*", "libnvJitLink*",
      "libnvToolsExt*", "libnvidia-*", "/usr/local/cuda*",
      // PyTorch's native libraries.
      "libtorch*", "libc10*", "libshm.so*",
      // The system's libraries, and the C++ standard library's headers inlined into user code.
      "libc.so*", "libm.so*", "libdl.so*", "librt.so*", "libpthread.so*", "ld-linux*", "libstdc++*",
      "libgcc_s*", "libgomp*", "libpython*", "/usr/include/*", "*/include/c++/*",
      // This tool's own hook.
      "libmemfloor*"};
  return kPatterns;
}

bool SiteNamer::isUserFrame(const Frame& frame) const {
  if (frame.file.empty() && frame.module.empty()) return false;  // nowhere a user could look
  if (anyMatches(patterns_.include, frame)) return true;
  if (frame.kind == trace::FrameKind::kPython && isGenerated(frame.file)) return false;
  return !anyMatches(defaultExcludes(), frame) && !anyMatches(patterns_.exclude, frame);
}

// Names the stacks `members` (indexes into `frames`, none empty) by their frame at the depth that
// all of them share.
void SiteNamer::nameGroup(const std::vector<size_t>& members, const std::vector<FrameRefs>& frames,
                          std::vector<std::string>& names) const {
  std::vector<const FrameRefs*> group;
  group.reserve(members.size());
  for (size_t i : members) group.push_back(&frames[i]);
  size_t depth = sharedDepth(group);
  for (size_t i : members) names[i] = writeFrame(*frames[i][depth]);
}

void SiteNamer::nameCompiled(std::string file, std::string name) {
  // By the file's name, a hash of its code: the same after `trace symbolize --prefix-map`.
  compiled_.insert_or_assign(std::string(fileName(file)), std::move(name));
}

std::string SiteNamer::writeFrame(const Frame& frame) const {
  if (frame.kind == trace::FrameKind::kPython && !compiled_.empty()) {
    if (auto it = compiled_.find(fileName(frame.file)); it != compiled_.end())
      return write(frame, it->second);
  }
  return write(frame);
}

std::vector<std::string> SiteNamer::name(const std::vector<Stack>& stacks) const {
  std::vector<std::string> names(stacks.size(), "(empty stack)");
  std::vector<FrameRefs> all(stacks.size()), user(stacks.size());
  std::vector<size_t> without_user;
  std::vector<std::vector<size_t>> groups;  // by innermost user frame, in order of appearance
  for (size_t i = 0; i < stacks.size(); ++i) {
    for (const Frame& frame : stacks[i].frames) {
      if (isModuleFrame(frame)) continue;  // no code: the report groups by it apart
      all[i].push_back(&frame);
      if (isUserFrame(frame)) user[i].push_back(&frame);
    }
    if (all[i].empty()) continue;
    if (user[i].empty()) {
      without_user.push_back(i);
      continue;
    }
    const Frame& innermost = *user[i].front();
    auto group = std::find_if(groups.begin(), groups.end(), [&](const std::vector<size_t>& g) {
      return *user[g.front()].front() == innermost;
    });
    if (group == groups.end()) {
      groups.push_back({i});
    } else {
      group->push_back(i);
    }
  }
  nameGroup(without_user, all, names);
  for (const std::vector<size_t>& group : groups) nameGroup(group, user, names);
  for (size_t i = 0; i < stacks.size(); ++i) {
    auto inner = std::find_if(all[i].begin(), all[i].end(), [](const Frame* frame) {
      return frame->kind == trace::FrameKind::kPython && !passesOperatorsOn(*frame);
    });
    if (inner == all[i].end()) {
      if (std::string node = backwardNode(all[i]); !node.empty() && user[i].empty()) {
        names[i] = std::move(node);
      }
      continue;
    }
    if (isUserFrame(**inner)) continue;  // the user's own line allocated: its name is that line
    std::string library = writeFrame(**inner);
    names[i] = user[i].empty() ? std::move(library) : fmt::format("{} <- {}", library, names[i]);
  }
  for (size_t i = 0; i < stacks.size(); ++i) {
    const std::string_view library = owningLibrary(all[i], user[i]);
    if (!library.empty() && !names[i].starts_with(library))
      names[i] = fmt::format("{} via {}", library, names[i]);
  }
  return names;
}

std::string SiteNamer::write(const Frame& frame, std::string_view compiled) {
  std::string function = frame.function;
  if (frame.kind == trace::FrameKind::kNative) {
    if (std::string name = functionName(frame.function); !name.empty()) function = std::move(name);
  }
  if (frame.file.empty()) return function.empty() ? Symbols::render(frame) : function;
  std::string file = frame.file;
  if (frame.kind == trace::FrameKind::kPython) {
    if (!compiled.empty()) {
      file = fmt::format("<compiled {}>", compiled);
    } else {
      file = isGenerated(file) ? std::string(kCompiledGraph) : std::string(packagePath(file));
    }
  }
  std::string at = frame.line == 0 ? file : fmt::format("{}:{}", file, frame.line);
  return function.empty() ? at : fmt::format("{} in {}", at, function);
}

}  // namespace memfloor::symbols

// Module lookup and stack interning.
#include "runtime_hook/stack_table.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace memfloor::hook {

namespace {

constexpr uint64_t kGoldenRatio64 = 0x9e3779b97f4a7c15ull;       // 2^64 / phi
constexpr uint64_t kSplitMixMultiplier = 0xbf58476d1ce4e5b9ull;  // splitmix64's first

std::string hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::string buildId(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    auto* p = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      const unsigned char* name = p + sizeof note;
      const unsigned char* desc = name + ((note.n_namesz + 3u) & ~3u);
      const unsigned char* next = desc + ((note.n_descsz + 3u) & ~3u);
      if (next > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        return hex(desc, note.n_descsz);
      }
      p = next;
    }
  }
  return {};
}

std::string selfExe() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "<main>";
  return std::string(path, static_cast<size_t>(n));
}

struct FindState {
  uint64_t addr;
  ModuleRange* out;
  bool found;
};

int findCallback(dl_phdr_info* info, size_t, void* arg) {
  auto* state = static_cast<FindState*>(arg);
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uint64_t start = info->dlpi_addr + ph.p_vaddr;
    uint64_t end = start + ph.p_memsz;
    lo = std::min(lo, start);
    hi = std::max(hi, end);
    if (state->addr >= start && state->addr < end) contains = true;
  }
  if (!contains) return 0;
  state->out->start = lo;
  state->out->end = hi;
  state->out->bias = info->dlpi_addr;
  state->out->path = (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
                         ? std::string(info->dlpi_name)
                         : selfExe();
  state->out->build_id = buildId(*info);
  state->found = true;
  return 1;
}

uint64_t mix(uint64_t h, uint64_t word) {
  h ^= word + kGoldenRatio64 + (h << 6) + (h >> 2);
  h *= kSplitMixMultiplier;
  return h ^ (h >> 31);
}

// The hash of a captured stack's raw words, as they are kept in raw_: {python count, (code,
// offset) pairs, native addresses}.
uint64_t hashStack(const CapturedStack& s) {
  uint64_t h = mix(kGoldenRatio64 ^ s.native_count, s.python_count);
  for (size_t i = 0; i < s.python_count; ++i) {
    h = mix(mix(h, s.python[i].code), static_cast<uint64_t>(s.python[i].offset));
  }
  for (size_t i = 0; i < s.native_count; ++i) h = mix(h, s.native[i]);
  return h;
}

bool sameStack(const std::vector<uint64_t>& raw, const CapturedStack& s) {
  if (raw.size() != 1 + 2 * s.python_count + s.native_count || raw[0] != s.python_count) {
    return false;
  }
  for (size_t i = 0; i < s.python_count; ++i) {
    if (raw[1 + 2 * i] != s.python[i].code ||
        raw[2 + 2 * i] != static_cast<uint64_t>(s.python[i].offset)) {
      return false;
    }
  }
  return std::equal(s.native, s.native + s.native_count, raw.begin() + 1 + 2 * s.python_count);
}

std::vector<uint64_t> rawStack(const CapturedStack& s) {
  std::vector<uint64_t> raw;
  raw.reserve(1 + 2 * s.python_count + s.native_count);
  raw.push_back(s.python_count);
  for (size_t i = 0; i < s.python_count; ++i) {
    raw.push_back(s.python[i].code);
    raw.push_back(static_cast<uint64_t>(s.python[i].offset));
  }
  raw.insert(raw.end(), s.native, s.native + s.native_count);
  return raw;
}

}  // namespace

bool findModule(uint64_t addr, ModuleRange& out) {
  FindState state{addr, &out, false};
  dl_iterate_phdr(findCallback, &state);
  return state.found;
}

StackTable::StackTable(std::vector<std::string> skip_substrings)
    : skip_(std::move(skip_substrings)) {}

bool StackTable::skipped(const ModuleRange& module) const {
  for (const std::string& s : skip_) {
    if (!s.empty() && module.path.find(s) != std::string::npos) return true;
  }
  return false;
}

size_t StackTable::RefHash::operator()(const PythonFrameRef& r) const {
  return mix(r.code, static_cast<uint64_t>(r.offset));
}

trace::StackId StackTable::lookupLocked(uint64_t hash, const CapturedStack& stack) const {
  auto [it, end] = by_hash_.equal_range(hash);
  for (; it != end; ++it) {
    if (sameStack(raw_[it->second - 1], stack)) return it->second;
  }
  return trace::kNoId;
}

void StackTable::addNativeFrames(const uint64_t* frames, size_t count) {
  std::vector<uint64_t> unknown;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < count; ++i) {
      if (frame_ids_.find(frames[i]) == frame_ids_.end()) unknown.push_back(frames[i]);
    }
  }
  // Resolve new addresses to modules without our lock: dl_iterate_phdr takes the loader lock, and
  // a thread inside dlopen may be waiting for ours.
  std::vector<ModuleRange> found(unknown.size());
  std::vector<bool> ok(unknown.size(), false);
  for (size_t i = 0; i < unknown.size(); ++i) {
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const ModuleRange& m : modules_) {
        // Return addresses point after the call: look up addr - 1.
        if (unknown[i] - 1 >= m.start && unknown[i] - 1 < m.end) {
          found[i] = m;
          known = true;
          break;
        }
      }
    }
    ok[i] = known || findModule(unknown[i] - 1, found[i]);
  }

  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < unknown.size(); ++i) {
    if (frame_ids_.count(unknown[i]) != 0) continue;  // another thread got there first
    trace::ModuleId module = trace::kNoId;
    bool skip = false;
    if (ok[i]) {
      skip = skipped(found[i]);
      for (size_t m = 0; m < modules_.size(); ++m) {
        if (modules_[m].start == found[i].start) module = static_cast<trace::ModuleId>(m + 1);
      }
      if (module == trace::kNoId) {
        modules_.push_back(found[i]);
        module = static_cast<trace::ModuleId>(modules_.size());
        pending_.modules.push_back(module);
      }
    }
    if (skip) {
      frame_ids_.emplace(unknown[i], trace::kNoId);
      continue;
    }
    Frame frame;
    frame.module = module;
    frame.offset = ok[i] ? unknown[i] - found[i].bias : unknown[i];
    frames_.push_back(std::move(frame));
    auto id = static_cast<trace::FrameId>(frames_.size());
    frame_ids_.emplace(unknown[i], id);
    pending_.frames.push_back(id);
  }
}

void StackTable::addPythonFrames(const CapturedStack& stack, const PythonFrameNamer* namer) {
  std::vector<PythonFrameRef> unknown;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < stack.python_count; ++i) {
      if (python_refs_.count(stack.python[i]) == 0) unknown.push_back(stack.python[i]);
    }
  }
  if (unknown.empty()) return;
  std::vector<std::string> files(unknown.size()), functions(unknown.size());
  std::vector<uint32_t> lines(unknown.size(), 0);
  for (size_t i = 0; i < unknown.size(); ++i) {
    if (namer != nullptr) namer->describe(unknown[i], files[i], functions[i], lines[i]);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < unknown.size(); ++i) {
    if (python_refs_.count(unknown[i]) != 0) continue;
    python_refs_.emplace(unknown[i],
                         pythonFrameIdLocked(PythonFrame{files[i], functions[i], lines[i]}));
  }
}

trace::StackId StackTable::intern(const CapturedStack& stack, const PythonFrameNamer* namer) {
  if (stack.python_count + stack.native_count == 0) return trace::kNoId;
  uint64_t hash = hashStack(stack);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (trace::StackId id = lookupLocked(hash, stack); id != trace::kNoId) return id;
  }
  addPythonFrames(stack, namer);
  addNativeFrames(stack.native, stack.native_count);

  std::lock_guard<std::mutex> lock(mutex_);
  if (trace::StackId id = lookupLocked(hash, stack); id != trace::kNoId) return id;
  std::vector<trace::FrameId> ids;
  ids.reserve(stack.python_count + stack.native_count);
  for (size_t i = 0; i < stack.python_count; ++i) ids.push_back(python_refs_[stack.python[i]]);
  bool leading = true;  // drop skipped frames (hook, CUPTI, driver) at the top only
  for (size_t i = 0; i < stack.native_count; ++i) {
    trace::FrameId id = frame_ids_[stack.native[i]];
    if (id == trace::kNoId && leading) continue;
    leading = false;
    if (id != trace::kNoId) ids.push_back(id);
  }
  stacks_.push_back(std::move(ids));
  raw_.push_back(rawStack(stack));
  auto id = static_cast<trace::StackId>(stacks_.size());
  by_hash_.emplace(hash, id);
  pending_.stacks.push_back(id);
  return id;
}

trace::FrameId StackTable::pythonFrameIdLocked(const PythonFrame& f) {
  std::string key;
  key.append(f.file).append(1, '\0').append(f.function).append(1, '\0');
  key.append(std::to_string(f.line));
  auto [it, inserted] = python_frame_ids_.try_emplace(std::move(key), trace::kNoId);
  if (inserted) {
    Frame frame;
    frame.kind = trace::FrameKind::kPython;
    frame.file = f.file;
    frame.function = f.function;
    frame.line = f.line;
    frames_.push_back(std::move(frame));
    it->second = static_cast<trace::FrameId>(frames_.size());
    pending_.frames.push_back(it->second);
  }
  return it->second;
}

trace::StackId StackTable::stackOfFramesLocked(std::vector<trace::FrameId> ids) {
  std::string key(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(trace::FrameId));
  auto [it, inserted] = python_stack_ids_.try_emplace(std::move(key), trace::kNoId);
  if (inserted) {
    stacks_.push_back(std::move(ids));
    raw_.emplace_back();  // never equal to a captured stack's words (those are never empty)
    it->second = static_cast<trace::StackId>(stacks_.size());
    pending_.stacks.push_back(it->second);
  }
  return it->second;
}

trace::StackId StackTable::internPython(const PythonFrame* frames, size_t count) {
  if (count == 0) return trace::kNoId;
  std::vector<trace::FrameId> ids(count);
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < count; ++i) ids[i] = pythonFrameIdLocked(frames[i]);
  return stackOfFramesLocked(std::move(ids));
}

trace::StackId StackTable::concat(trace::StackId inner, trace::StackId outer) {
  if (inner == trace::kNoId) return outer;
  if (outer == trace::kNoId) return inner;
  std::lock_guard<std::mutex> lock(mutex_);
  if (inner > stacks_.size() || outer > stacks_.size()) return inner;  // not ours: left alone
  const uint64_t pair = (uint64_t{inner} << 32) | outer;
  if (auto it = concat_ids_.find(pair); it != concat_ids_.end()) return it->second;
  std::vector<trace::FrameId> ids = stacks_[inner - 1];
  const std::vector<trace::FrameId>& more = stacks_[outer - 1];
  ids.insert(ids.end(), more.begin(), more.end());
  trace::StackId id = stackOfFramesLocked(std::move(ids));
  concat_ids_.emplace(pair, id);
  return id;
}

bool StackTable::hasPending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !pending_.stacks.empty() || !pending_.frames.empty() || !pending_.modules.empty();
}

void StackTable::drain(TraceOutput::Batch& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (trace::ModuleId id : pending_.modules) {
    const ModuleRange& m = modules_[id - 1];
    trace::ModuleDef def;
    def.id = id;
    def.path = batch.intern(m.path);
    def.base = m.bias;
    def.size = m.end - m.start;
    def.build_id = batch.intern(m.build_id);
    batch.write(trace::Record{def});
  }
  for (trace::FrameId id : pending_.frames) {
    const Frame& frame = frames_[id - 1];
    trace::FrameDef def;
    def.id = id;
    def.kind = frame.kind;
    def.module = frame.module;
    def.offset = frame.offset;
    if (frame.kind == trace::FrameKind::kPython) {
      def.file = batch.intern(frame.file);
      def.function = batch.intern(frame.function);
      def.line = frame.line;
    }
    batch.write(trace::Record{def});
  }
  for (trace::StackId id : pending_.stacks) {
    const std::vector<trace::FrameId>& frames = stacks_[id - 1];
    batch.writeStack(id, frames.data(), frames.size());
  }
  pending_ = Pending{};
}

size_t StackTable::stackCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stacks_.size();
}

}  // namespace memfloor::hook

// Native stacks: module lookup, interning, and the definitions written for them.
#include "runtime_hook/stack_table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "runtime_hook/native_unwinder.h"
#include "tests/runtime_hook/test_support.h"
#include "trace/reader.h"
#include "trace/source.h"

using namespace memfloor;
using hook::test::SharedSink;

namespace {

__attribute__((noinline)) trace::StackId captureHere(hook::StackTable& table) {
  uint64_t frames[40];
  trace::StackId id = table.intern(frames, hook::unwindWithLibgcc(frames, 40));
  asm volatile("" ::: "memory");  // keep the call from becoming a tail call
  return id;
}

// Names code 0x10 and 0x30 alike ("a.py", "f", line = offset) and every other code "b.py" "g".
class FakeNamer : public hook::PythonFrameNamer {
 public:
  void describe(const hook::PythonFrameRef& ref, std::string& file, std::string& function,
                uint32_t& line) const override {
    ++calls;
    bool a = ref.code == 0x10 || ref.code == 0x30;
    file = a ? "a.py" : "b.py";
    function = a ? "f" : "g";
    line = static_cast<uint32_t>(ref.offset);
  }
  mutable int calls = 0;
};

// The string, frame and stack definitions of a drained trace.
struct Definitions {
  std::map<trace::StringId, std::string> strings;
  std::map<trace::FrameId, trace::FrameDef> frames;
  std::map<trace::StackId, trace::StackDef> stacks;
};

Definitions readDefinitions(const std::vector<uint8_t>& bytes) {
  trace::MemorySource source(bytes);
  trace::FileOrderReader reader(source);
  Definitions d;
  trace::Record r;
  while (reader.next(r)) {
    if (auto* s = std::get_if<trace::StringDef>(&r)) d.strings[s->id] = s->text;
    if (auto* f = std::get_if<trace::FrameDef>(&r)) d.frames[f->id] = *f;
    if (auto* s = std::get_if<trace::StackDef>(&r)) d.stacks[s->id] = *s;
  }
  return d;
}

}  // namespace

TEST_CASE("findModule names the module of a return address", "[runtime_hook]") {
  uint64_t frames[64];
  size_t n = hook::unwindWithLibgcc(frames, 64);
  REQUIRE(n >= 2);
  hook::ModuleRange module;
  REQUIRE(hook::findModule(frames[0] - 1, module));
  CHECK(module.path.find("memfloor_runtime_hook_tests") != std::string::npos);
  CHECK(module.start <= frames[0]);
  CHECK(frames[0] < module.end);
}

TEST_CASE("a stack seen twice is interned once", "[runtime_hook]") {
  hook::StackTable table;
  uint64_t frames[64];
  size_t n = hook::unwindWithLibgcc(frames, 64);
  REQUIRE(n >= 2);
  trace::StackId first = table.intern(frames, n);
  trace::StackId second = table.intern(frames, n);
  CHECK(first != trace::kNoId);
  CHECK(first == second);
  CHECK(table.stackCount() == 1);
  CHECK(table.intern(frames + 1, n - 1) != first);  // a different stack, sharing frames

  uint64_t other[] = {0x1000, 0x2000};  // addresses in no module: kept as absolute offsets
  trace::StackId third = table.intern(other, 2);
  CHECK(third != first);
  CHECK(table.intern(other, 2) == third);
  CHECK(table.intern(other, 0) == trace::kNoId);
  CHECK(table.stackCount() == 3);
}

TEST_CASE("draining writes modules, frames and stacks before use", "[runtime_hook]") {
  std::vector<uint8_t> bytes;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
    REQUIRE(out.begin());
    hook::StackTable table;
    trace::StackId id = captureHere(table);
    REQUIRE(id != trace::kNoId);
    REQUIRE(table.hasPending());
    {
      hook::TraceOutput::Batch batch(out);
      table.drain(batch);
    }
    CHECK_FALSE(table.hasPending());
    CHECK(out.finish(1));
  }
  trace::MemorySource source(bytes);
  trace::FileOrderReader reader(source);
  std::map<trace::ModuleId, trace::ModuleDef> modules;
  std::map<trace::FrameId, trace::FrameDef> frames;
  std::vector<trace::StackDef> stacks;
  trace::Record r;
  while (reader.next(r)) {
    if (auto* m = std::get_if<trace::ModuleDef>(&r)) modules[m->id] = *m;
    if (auto* f = std::get_if<trace::FrameDef>(&r)) {
      CHECK((f->module == trace::kNoId || modules.count(f->module) == 1));  // defined before use
      frames[f->id] = *f;
    }
    if (auto* s = std::get_if<trace::StackDef>(&r)) {
      for (trace::FrameId f : s->frames) CHECK(frames.count(f) == 1);
      stacks.push_back(*s);
    }
  }
  REQUIRE(stacks.size() == 1);
  CHECK(stacks[0].frames.size() >= 2);
  CHECK_FALSE(modules.empty());
  for (const auto& [id, m] : modules) CHECK(m.size > 0);
}

TEST_CASE("Python stacks are interned by their frames and drained as Python frame definitions",
          "[runtime_hook]") {
  std::vector<uint8_t> bytes;
  trace::StackId a = trace::kNoId;
  trace::StackId b = trace::kNoId;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
    REQUIRE(out.begin());
    hook::StackTable table;
    hook::StackTable::PythonFrame inner{"train.py", "forward", 12};
    hook::StackTable::PythonFrame outer{"train.py", "<module>", 40};
    hook::StackTable::PythonFrame stack[] = {inner, outer};
    a = table.internPython(stack, 2);
    CHECK(a != trace::kNoId);
    CHECK(table.internPython(stack, 2) == a);
    b = table.internPython(stack + 1, 1);  // shares a frame, a different stack
    CHECK(b != a);
    hook::StackTable::PythonFrame moved[] = {{"train.py", "forward", 13}, outer};
    CHECK(table.internPython(moved, 2) != a);  // another line is another frame
    CHECK(table.internPython(stack, 0) == trace::kNoId);
    uint64_t native[] = {0x1000};
    CHECK(table.intern(native, 1) != a);  // native and Python stacks never alias
    {
      hook::TraceOutput::Batch batch(out);
      table.drain(batch);
    }
    CHECK(out.finish(1));
  }
  auto [strings, frames, stacks] = readDefinitions(bytes);
  REQUIRE(stacks.count(a) == 1);
  REQUIRE(stacks[a].frames.size() == 2);
  const trace::FrameDef& first = frames.at(stacks[a].frames[0]);
  CHECK(first.kind == trace::FrameKind::kPython);
  CHECK(strings.at(first.file) == "train.py");
  CHECK(strings.at(first.function) == "forward");
  CHECK(first.line == 12);
  CHECK(first.module == trace::kNoId);
  REQUIRE(stacks.at(b).frames.size() == 1);
  CHECK(stacks.at(b).frames[0] == stacks[a].frames[1]);  // the shared frame is defined once
}

TEST_CASE("a module's stack joins an allocation's stack outermost, once per pair",
          "[runtime_hook]") {
  std::vector<uint8_t> bytes;
  trace::StackId joined = trace::kNoId, alloc = trace::kNoId, module = trace::kNoId;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
    REQUIRE(out.begin());
    hook::StackTable table;
    hook::StackTable::PythonFrame frames[] = {{"model.py", "Attention.forward", 7},
                                              {"train.py", "main", 30}};
    hook::StackTable::PythonFrame path[] = {{"<nn.Module>", "Net.layers.3.attn", 0}};
    alloc = table.internPython(frames, 2);
    module = table.internPython(path, 1);
    joined = table.concat(alloc, module);
    CHECK(joined != alloc);
    CHECK(joined != module);
    CHECK(table.concat(alloc, module) == joined);
    CHECK(table.concat(module, alloc) != joined);  // the order is the stack's
    CHECK(table.concat(alloc, trace::kNoId) == alloc);
    CHECK(table.concat(trace::kNoId, module) == module);  // no frames of its own: the module's
    CHECK(table.concat(alloc, 999) == alloc);             // an id never made is ignored
    {
      hook::TraceOutput::Batch batch(out);
      table.drain(batch);
    }
    CHECK(out.finish(1));
  }
  auto [strings, frames, stacks] = readDefinitions(bytes);
  REQUIRE(stacks.count(joined) == 1);
  const std::vector<trace::FrameId>& ids = stacks.at(joined).frames;
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] == stacks.at(alloc).frames[0]);
  CHECK(ids[1] == stacks.at(alloc).frames[1]);
  CHECK(ids[2] == stacks.at(module).frames[0]);
  CHECK(strings.at(frames.at(ids[2]).function) == "Net.layers.3.attn");
}

TEST_CASE("captured Python frames are named once, and sit above the native frames",
          "[runtime_hook]") {
  std::vector<uint8_t> bytes;
  trace::StackId id = trace::kNoId;
  {
    hook::TraceOutput out(std::make_unique<SharedSink>(bytes), 1 << 16);
    REQUIRE(out.begin());
    hook::StackTable table;
    FakeNamer namer;
    hook::PythonFrameRef python[] = {{0x10, 4}, {0x20, 8}};
    uint64_t native[] = {0x1000, 0x2000};
    hook::CapturedStack stack{python, 2, native, 2};
    id = table.intern(stack, &namer);
    CHECK(id != trace::kNoId);
    CHECK(table.intern(stack, &namer) == id);
    CHECK(namer.calls == 2);
    hook::CapturedStack python_only{python, 2, nullptr, 0};
    CHECK(table.intern(python_only, &namer) != id);
    CHECK(namer.calls == 2);  // its frames were named already
    hook::PythonFrameRef moved[] = {{0x10, 6}, {0x20, 8}};
    CHECK(table.intern(hook::CapturedStack{moved, 2, native, 2}, &namer) != id);
    CHECK(namer.calls == 3);
    hook::PythonFrameRef alias[] = {{0x30, 4}, {0x20, 8}};  // another code, the same names
    trace::StackId same_names = table.intern(hook::CapturedStack{alias, 2, native, 2}, &namer);
    CHECK(same_names != id);  // interned by code object, so another stack id...
    CHECK(table.intern(native, 2) != id);
    CHECK(table.intern(hook::CapturedStack{}, &namer) == trace::kNoId);
    {
      hook::TraceOutput::Batch batch(out);
      table.drain(batch);
    }
    CHECK(out.finish(1));
  }
  auto [strings, frames, stacks] = readDefinitions(bytes);
  REQUIRE(stacks.at(id).frames.size() == 4);
  const std::vector<trace::FrameId>& ids = stacks.at(id).frames;
  CHECK(frames.at(ids[0]).kind == trace::FrameKind::kPython);
  CHECK(strings.at(frames.at(ids[0]).file) == "a.py");
  CHECK(frames.at(ids[0]).line == 4);
  CHECK(strings.at(frames.at(ids[1]).function) == "g");
  CHECK(frames.at(ids[2]).kind == trace::FrameKind::kNative);
  CHECK(frames.at(ids[2]).offset == 0x1000);
  CHECK(frames.at(ids[3]).offset == 0x2000);
  // ...whose frames are the same definitions.
  auto alias_stack = std::find_if(stacks.begin(), stacks.end(), [&](const auto& s) {
    return s.first != id && s.second.frames == ids;
  });
  CHECK(alias_stack != stacks.end());
}

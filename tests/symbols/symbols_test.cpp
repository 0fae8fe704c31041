// Tests of Symbols: stacks resolved into frames, and the site names of the listed stacks.
#include "symbols/symbols.h"

#include <catch2/catch.hpp>

namespace memfloor::symbols {
namespace {

using trace::FrameDef;
using trace::FrameKind;
using trace::ModuleDef;
using trace::StackDef;
using trace::StringDef;

Symbols sample() {
  Symbols s;
  s.add(StringDef{1, "/usr/lib/libtorch_cuda.so"});
  s.add(StringDef{2, "TransformerLayer::forwardMlp"});
  s.add(StringDef{3, "layer.cpp"});
  s.add(ModuleDef{1, 1, 0x7f0000000000, 1 << 20, trace::kNoId});
  s.add(FrameDef{1, FrameKind::kNative, 1, 0x1234, 2, 3, 42});
  s.add(FrameDef{2, FrameKind::kNative, 1, 0xabc, trace::kNoId, trace::kNoId, 0});
  s.add(FrameDef{3, FrameKind::kPython, trace::kNoId, 0, 2, trace::kNoId, 0});
  s.add(StackDef{1, {1, 2}});
  s.add(StackDef{2, {2, 1}});
  s.add(StackDef{3, {3}});
  s.add(StackDef{4, {}});
  return s;
}

TEST_CASE("Symbols resolves a stack into frames, innermost first", "[symbols]") {
  Symbols s = sample();
  Stack stack = s.stack(1);
  REQUIRE(stack.frames.size() == 2);
  CHECK(stack.frames[0].function == "TransformerLayer::forwardMlp");
  CHECK(stack.frames[0].file == "layer.cpp");
  CHECK(stack.frames[0].line == 42);
  CHECK(stack.frames[0].module == "/usr/lib/libtorch_cuda.so");
  CHECK(stack.frames[1].function.empty());
  CHECK(stack.frames[1].offset == 0xabc);
}

TEST_CASE("Symbols names each stack a report lists on its own by its innermost frame",
          "[symbols]") {
  Symbols s = sample();
  SiteNamer namer;
  auto one = [&](trace::StackId id) { return s.siteNames({id}, namer).at(id); };
  CHECK(one(1) == "layer.cpp:42 in TransformerLayer::forwardMlp");
  CHECK(one(2) == "libtorch_cuda.so+0xabc");
  CHECK(one(3) == "TransformerLayer::forwardMlp");
  CHECK(one(4) == "(empty stack)");
  CHECK(one(trace::kNoId) == "(no stack)");
  CHECK(one(99) == "(unknown stack 99)");
}

TEST_CASE("Symbols names the listed stacks together; unknown ones are not compared", "[symbols]") {
  Symbols s;
  // Three stacks through the same allocator frames (10, 11) from different callers, in no
  // module a user could look at: named as before user frames were told apart.
  s.add(StackDef{1, {10, 11, 20, 30}});
  s.add(StackDef{2, {10, 11, 21, 30}});
  s.add(StackDef{3, {10, 11, 22}});
  s.add(FrameDef{21, FrameKind::kNative, trace::kNoId, 0x21, trace::kNoId, trace::kNoId, 0});
  SiteNamer namer;
  auto names = s.siteNames({1, 2, 99, trace::kNoId, 2}, namer);
  CHECK(names.size() == 4);
  CHECK(names.at(2) == "?+0x21");
  CHECK(names.at(99) == "(unknown stack 99)");
  CHECK(names.at(trace::kNoId) == "(no stack)");
  CHECK(s.siteNames({}, namer).empty());
}

TEST_CASE("Symbols tolerates ids that were never defined", "[symbols]") {
  Symbols s;
  s.add(StackDef{1, {7}});
  CHECK(s.string(5).empty());
  CHECK(s.string(trace::kNoId).empty());
  Stack stack = s.stack(1);
  REQUIRE(stack.frames.size() == 1);
  CHECK(Symbols::render(stack.frames[0]) == "?+0x0");
  CHECK(s.stack(2).frames.empty());
}

TEST_CASE("Symbols renders a frame with a file but no line", "[symbols]") {
  Frame f;
  f.function = "step";
  f.file = "train.py";
  CHECK(Symbols::render(f) == "step (train.py)");
}

TEST_CASE("Symbols reads a stack's module path from its module frame", "[symbols]") {
  Symbols s = sample();
  s.add(StringDef{10, "<nn.Module>"});
  s.add(StringDef{11, "Net.h.3.attn"});
  s.add(FrameDef{10, FrameKind::kPython, trace::kNoId, 0, 11, 10, 0});
  s.add(
      FrameDef{11, FrameKind::kNative, trace::kNoId, 0, 11, 10, 0});  // a native one is no module's
  s.add(StackDef{10, {3, 1, 10}});
  s.add(StackDef{11, {3, 11}});
  CHECK(s.modulePath(10) == "Net.h.3.attn");
  CHECK(s.modulePath(11).empty());
  CHECK(s.modulePath(1).empty());
  CHECK(s.modulePath(99).empty());  // never defined
  CHECK(s.modulePath(trace::kNoId).empty());
}

}  // namespace
}  // namespace memfloor::symbols

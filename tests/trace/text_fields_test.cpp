// Tests of trace/text_fields.cpp: numbers and their ranges, names, flags, frame lists.
#include "trace/text_fields.h"

#include <catch2/catch.hpp>

#include "common/error.h"

namespace memfloor::trace {
namespace {

class Context final : public TextLineContext {
 public:
  Context() : TextLineContext("f.txt") { line_number_ = 3; }
  StringId inlineString(const std::string& text) override {
    seen.push_back(text);
    return 100 + static_cast<StringId>(seen.size());
  }
  std::vector<std::string> seen;
};

struct Parsed {
  Context context;
  std::vector<TextToken> tokens;
  explicit Parsed(std::string_view line) {
    const std::string problem = splitTextLine(line, tokens);
    REQUIRE(problem == "");
  }
  TextFields fields() { return TextFields(context, "alloc", tokens); }
};

TEST_CASE("numbers: decimal, hex, ranges", "[trace][text_fields]") {
  Parsed p("a=18446744073709551615 b=0xFFffFFff c=255 d=-2147483648 e=2147483647");
  TextFields f = p.fields();
  uint64_t a = 0;
  uint32_t b = 0;
  uint8_t c = 0;
  int32_t d = 0;
  int32_t e = 0;
  f.u64("a", a);
  f.u32("b", b);
  f.u8("c", c);
  f.s32("d", d);
  f.s32("e", e);
  f.done();
  CHECK(a == UINT64_MAX);
  CHECK(b == UINT32_MAX);
  CHECK(c == 255);
  CHECK(d == INT32_MIN);
  CHECK(e == INT32_MAX);

  auto error = [](std::string_view line, auto parse) {
    Parsed q(line);
    TextFields fields = q.fields();
    try {
      parse(fields);
    } catch (const Error& failure) {
      return std::string(failure.what());
    }
    return std::string("no error");
  };
  uint64_t u64 = 0;
  uint32_t u32 = 0;
  uint8_t u8 = 0;
  int32_t s32 = 0;
  CHECK(error("t=18446744073709551616", [&](TextFields& g) { g.u64("t", u64); }) ==
        "f.txt:3: t=18446744073709551616: expected an unsigned 64-bit number");
  CHECK(error("dev=4294967296", [&](TextFields& g) { g.u32("dev", u32); }) ==
        "f.txt:3: dev=4294967296: expected a number up to 4294967295");
  CHECK(error("x=256", [&](TextFields& g) { g.u8("x", u8); }) ==
        "f.txt:3: x=256: expected a number up to 255");
  CHECK(error("t=-1", [&](TextFields& g) { g.u64("t", u64); }) ==
        "f.txt:3: t=-1: expected an unsigned 64-bit number");
  CHECK(error("t=0x", [&](TextFields& g) { g.u64("t", u64); }) ==
        "f.txt:3: t=0x: expected an unsigned 64-bit number");
  CHECK(error("t=12abc", [&](TextFields& g) { g.u64("t", u64); }) ==
        "f.txt:3: t=12abc: expected an unsigned 64-bit number");
  CHECK(error("t=\"5\"", [&](TextFields& g) { g.u64("t", u64); }) ==
        "f.txt:3: t=\"5\": expected an unsigned 64-bit number");
  CHECK(error("rank=2147483648", [&](TextFields& g) { g.s32("rank", s32); }) ==
        "f.txt:3: rank=2147483648: expected a number from -2147483648 to 2147483647");
  CHECK(error("rank=-2147483649", [&](TextFields& g) { g.s32("rank", s32); }) ==
        "f.txt:3: rank=-2147483649: expected a number from -2147483648 to 2147483647");
}

TEST_CASE("fields: duplicates, unknown keys, positional leftovers", "[trace][text_fields]") {
  Context context;
  std::vector<TextToken> tokens;
  REQUIRE(splitTextLine("t=1 t=2", tokens).empty());
  CHECK_THROWS_WITH(TextFields(context, "alloc", tokens), "f.txt:3: field 't' given twice");
  REQUIRE(splitTextLine("t=1 sise=2", tokens).empty());
  TextFields f(context, "alloc", tokens);
  uint64_t t = 0;
  f.u64("t", t);
  CHECK_THROWS_WITH(f.done(), "f.txt:3: unknown field 'sise' for alloc");
  REQUIRE(splitTextLine("t=1 oops", tokens).empty());
  CHECK_THROWS_WITH(TextFields(context, "alloc", tokens),
                    "f.txt:3: unexpected 'oops' in a alloc line (fields are key=value)");
}

TEST_CASE("names, flags, frames and inline strings", "[trace][text_fields]") {
  Parsed p(R"(kind=device_static flags=async|vmm|0x80 frames=3,1,2 name="iteration 7" domain=9)");
  TextFields f = p.fields();
  MemoryKind kind = MemoryKind::kDevice;
  uint8_t flags = 0;
  std::vector<FrameId> frames;
  StringId name = 0;
  StringId domain = 0;
  f.memoryKind(kind);
  f.flags(flags);
  f.frames(frames);
  f.stringId("name", name);
  f.stringId("domain", domain);
  f.done();
  CHECK(kind == MemoryKind::kDeviceStatic);
  CHECK(flags == 0x83);
  CHECK(frames == std::vector<FrameId>{3, 1, 2});
  CHECK(name == 101);
  CHECK(p.context.seen == std::vector<std::string>{"iteration 7"});
  CHECK(domain == 9);

  Parsed numeric("kind=9");
  TextFields g = numeric.fields();
  g.memoryKind(kind);
  CHECK(kind == MemoryKind::kUnknown);

  auto kindOf = [](const char* line) {
    Parsed parsed(line);
    TextFields fields = parsed.fields();
    MemoryKind read = MemoryKind::kDevice;
    fields.memoryKind(read);
    return read;
  };
  CHECK(kindOf("kind=block") == MemoryKind::kBlock);
  CHECK(kindOf("kind=6") == MemoryKind::kBlock);
  CHECK(kindOf("kind=7") == MemoryKind::kUnknown);

  Parsed bad_kind("kind=gpu");
  TextFields h = bad_kind.fields();
  CHECK_THROWS_WITH(h.memoryKind(kind),
                    "f.txt:3: kind=gpu: expected a memory kind (device, pinned, managed, "
                    "device_static, pool, unknown, block) or a number");
  Parsed bad_flags("flags=async|");
  TextFields i = bad_flags.fields();
  CHECK_THROWS_AS(i.flags(flags), Error);
  Parsed zero_frame("frames=1,0");
  TextFields j = zero_frame.fields();
  CHECK_THROWS_WITH(j.frames(frames),
                    "f.txt:3: frames=1,0: expected non-zero frame ids separated by commas");
  Parsed bad_frame_kind("kind=java");
  TextFields k = bad_frame_kind.fields();
  FrameKind frame_kind = FrameKind::kNative;
  CHECK_THROWS_WITH(k.frameKind(frame_kind), "f.txt:3: kind=java: expected native or python");
}

}  // namespace
}  // namespace memfloor::trace

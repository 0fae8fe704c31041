// Tests of trace/text_reader.cpp: round trips, inline strings, defaults, errors with line numbers.
#include <random>

#include "common/error.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::fromText;
using testing::toText;

std::string errorOf(const std::string& text) {
  try {
    fromText(text, "fixture.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("text -> records -> text is identical in canonical form", "[trace][text_reader]") {
  const std::string canonical = toText(testing::everyRecordType()) + "trailer records=5 end=9\n";
  const std::vector<Record> records = fromText(canonical);
  CHECK(toText(records) == canonical);
  std::vector<Record> expected = testing::everyRecordType();
  expected.emplace_back(Trailer{5, 9});
  CHECK(records == expected);
}

TEST_CASE("binary -> text -> binary gives the same records", "[trace][text_reader]") {
  const testing::Bytes file = testing::writeBinary(testing::everyRecordType(), 256, true, 77);
  const std::vector<Record> from_binary = testing::readAll<FileOrderReader>(file);
  const std::vector<Record> via_text = fromText(toText(from_binary));
  CHECK(via_text == from_binary);
  const testing::Bytes again = testing::writeBinary(via_text, 256, false);
  CHECK(again == file);  // the same bytes, trailer included
}

TEST_CASE("random records round-trip through the text form", "[trace][text_reader]") {
  std::mt19937_64 rng(1234);
  auto any = [&]() -> uint64_t {
    switch (rng() % 4) {
      case 0:
        return 0;
      case 1:
        return rng() % 100;
      case 2:
        return rng();
      default:
        return UINT64_MAX;
    }
  };
  std::vector<Record> records;
  for (int i = 0; i < 500; ++i) {
    Alloc a;
    a.timestamp = any();
    a.address = any();
    a.size = any();
    a.thread = any();
    a.correlation = any();
    a.stream = static_cast<uint32_t>(any());
    a.stack = static_cast<uint32_t>(any());
    a.device = static_cast<uint32_t>(any());
    a.kind = static_cast<MemoryKind>(rng() % kMemoryKindCount);
    a.flags = static_cast<uint8_t>(any());
    records.emplace_back(a);
    std::string text;
    for (uint64_t n = rng() % 20; n > 0; --n) text += static_cast<char>(rng());
    records.emplace_back(StringDef{static_cast<StringId>(1 + rng() % 1000), text});
    records.emplace_back(ProcessInfo{any(), any(), 0, 0, static_cast<int32_t>(rng()),
                                     static_cast<int32_t>(rng()), static_cast<int32_t>(rng())});
  }
  CHECK(fromText(toText(records)) == records);
}

TEST_CASE("optional fields default; any order; comments and blank lines", "[trace][text_reader]") {
  const std::vector<Record> records = fromText(
      "# a fixture\n"
      "\n"
      "alloc addr=0x10 t=5   # trailing comment\n"
      "   process pid=3\n"
      "marker pop t=9 thread=1\n"
      "free t=6 addr=16 kind=1 flags=3\n");
  Alloc alloc;
  alloc.timestamp = 5;
  alloc.address = 0x10;
  Free free;
  free.timestamp = 6;
  free.address = 16;
  free.kind = MemoryKind::kPinned;
  free.flags = kMemoryFlagAsync | kMemoryFlagVmm;
  ProcessInfo process;
  process.pid = 3;
  CHECK(process.rank == kUnknownRank);
  const std::vector<Record> expected{alloc, process, Marker{9, 1, 0, 0, 0, MarkerType::kPop}, free};
  CHECK(records == expected);
}

TEST_CASE("inline strings get ids after the largest defined so far", "[trace][text_reader]") {
  const std::vector<Record> records = fromText(
      "string 7 \"explicit\"\n"
      "marker push t=5 thread=1 name=\"iteration 1\"\n"
      "marker pop t=6 thread=1\n"
      "marker push t=7 thread=1 name=\"iteration 1\" domain=\"nccl\"\n"
      "property key=\"env.PYTORCH_CUDA_ALLOC_CONF\" value=\"backend:cudaMallocAsync\"\n"
      "module 1 path=\"/lib/x.so\" base=0x1000 size=10\n");
  const std::vector<Record> expected{
      StringDef{7, "explicit"},
      StringDef{8, "iteration 1"},
      Marker{5, 1, 0, 8, 0, MarkerType::kPush},
      Marker{6, 1, 0, 0, 0, MarkerType::kPop},
      StringDef{9, "nccl"},
      Marker{7, 1, 0, 8, 9, MarkerType::kPush},
      StringDef{10, "env.PYTORCH_CUDA_ALLOC_CONF"},
      StringDef{11, "backend:cudaMallocAsync"},
      Property{10, 11},
      StringDef{12, "/lib/x.so"},
      ModuleDef{1, 12, 0x1000, 10, 0},
  };
  CHECK(records == expected);
  CHECK(errorOf("marker push t=1 thread=1 name=\"a\"\nstring 1 \"b\"\n") ==
        "fixture.txt:2: string id 1 was already given to an inline string on line 1; define "
        "explicit strings before inline ones");
  CHECK(errorOf("string 4294967295 \"last\"\nmarker push t=1 thread=1 name=\"a\"\n") ==
        "fixture.txt:2: no string id left for an inline string");
}

TEST_CASE("parse errors name the line", "[trace][text_reader]") {
  CHECK(errorOf("alloc t=1\nallok t=2\n") == "fixture.txt:2: unknown record type 'allok'");
  CHECK(errorOf("\n\nalloc t=1 sise=3\n") == "fixture.txt:3: unknown field 'sise' for alloc");
  CHECK(errorOf("string 0 \"x\"") == "fixture.txt:1: string id must be non-zero");
  CHECK(errorOf("string 1") == "fixture.txt:1: expected: string ID \"TEXT\"");
  CHECK(errorOf("string \"x\"") ==
        "fixture.txt:1: string needs its id first (a number up to 4294967295)");
  CHECK(errorOf("string 1 \"x\" extra=1") == "fixture.txt:1: expected: string ID \"TEXT\"");
  CHECK(errorOf("module path=1") ==
        "fixture.txt:1: module needs its id first (a number up to 4294967295)");
  CHECK(errorOf("frame 0 module=1") == "fixture.txt:1: frame id must be non-zero");
  CHECK(errorOf("stack 3 frames=1,x") ==
        "fixture.txt:1: frames=1,x: expected non-zero frame ids separated by commas");
  CHECK(errorOf("marker t=1") ==
        "fixture.txt:1: marker needs its type first: push, pop, start, end, instant");
  CHECK(errorOf("pool grown t=1") ==
        "fixture.txt:1: pool needs its type first: created, trimmed, destroyed");
  CHECK(errorOf("dropped count=1") == "fixture.txt:1: dropped needs its type first: cupti, writer");
  CHECK(errorOf("alloc t=1 t=2") == "fixture.txt:1: field 't' given twice");
  CHECK(errorOf("alloc t=\"x") == "fixture.txt:1: unterminated string");
  CHECK(errorOf("t=1 alloc") == "fixture.txt:1: a line starts with a record type");
  CHECK(errorOf("alloc push t=1") ==
        "fixture.txt:1: unexpected 'push' in a alloc line (fields are key=value)");
  CHECK(errorOf("alloc t=1 dev=\"gpu0\"") ==
        "fixture.txt:1: dev=\"gpu0\": expected a number up to 4294967295");
}

TEST_CASE("text fuzz findings kept in testdata read without a crash", "[trace][text_reader]") {
  for (const std::string& path : testing::testdataFiles("regressions/text")) {
    INFO(path);
    const testing::Bytes bytes = testing::readFile(path);
    std::vector<Record> records;
    try {
      records = fromText(std::string(bytes.begin(), bytes.end()), path);
    } catch (const Error&) {
      continue;
    }
    CHECK(fromText(toText(records)) == records);
  }
}

TEST_CASE("the text fixtures of the fuzz corpus read, also in binary", "[trace][text_reader]") {
  const std::vector<std::string> paths = testing::testdataFiles("corpus");
  CHECK(paths.size() >= 3);
  for (const std::string& path : paths) {
    INFO(path);
    const testing::Bytes bytes = testing::readFile(path);
    const std::string text(bytes.begin(), bytes.end());
    const std::vector<Record> records = fromText(text, path);
    CHECK_FALSE(records.empty());
    CHECK(fromText(toText(records)) == records);
    const testing::Bytes file = testing::writeBinary(records, 256, false);
    CHECK(testing::readAll<FileOrderReader>(file) == records);
  }
}

}  // namespace
}  // namespace memfloor::trace

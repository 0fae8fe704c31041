// Tests of trace/text_writer.cpp: the canonical line of every record type.
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

TEST_CASE("canonical lines of every record type", "[trace][text_writer]") {
  const std::string expected =
      "string 1 \"iteration 1\"\n"
      "string 2 \"tab\\there \\\"quoted\\\" back\\\\slash nul\\0 high\\xff\\n\"\n"
      "string 3 \"\"\n"
      "module 4 path=2 base=0x7f3a00000000 size=104857600 build_id=3\n"
      "frame 5 kind=python module=4 offset=0x1a2b3c function=1 file=2 line=42\n"
      "frame 6 module=4 offset=0x0\n"
      "stack 7 frames=5,6,5\n"
      "stack 8 frames=\n"
      "process pid=4242 start=1700000000000000000 host=1 cmd=2 rank=0 world_size=-2147483648\n"
      "process pid=1 rank=2147483647 local_rank=3 world_size=8\n"
      "device dev=0 name=1 memory=150000000000\n"
      "property key=1 value=2\n"
      "alloc t=1000000123 kind=managed dev=3 stream=7 addr=0x7f0000001000 size=4096 thread=11 "
      "stack=2 corr=5 flags=async|0x80\n"
      "free t=999 kind=pinned dev=4294967295 stream=4294967295 addr=0xffffffffffffffff "
      "size=18446744073709551615 thread=18446744073709551615 stack=4294967295 "
      "corr=18446744073709551615 flags=vmm\n"
      "pool trimmed t=900 dev=1 addr=0x5000 size=2097152 utilized=1024 pool_type=2\n"
      "marker push t=5 thread=11 name=1\n"
      "marker pop t=18446744073709551615 thread=11\n"
      "marker start t=0 thread=12 id=77 name=1 domain=3\n"
      "marker end t=40 thread=12 id=77\n"
      "marker instant t=41 thread=0 name=2\n"
      "census t=950 dev=1 objects=530000 duration=1200000000 storages=2 step=4 complete=0\n"
      "held t=950 dev=1 addr=0x7f0000200000 size=402653184 path=1 via=2 holders=3 "
      "role=optimizer_state\n"
      "held t=950 dev=4294967295 addr=0xffffffffffffffff size=18446744073709551615 "
      "path=4294967295\n"
      "step begin t=960 step=5 thread=11\n"
      "step end t=990 step=4294967295 optimizers=4294967295\n"
      "dropped writer count=12\n"
      "dropped cupti count=0\n";
  CHECK(testing::toText(testing::everyRecordType()) == expected);
}

TEST_CASE("a block's kind is written by name", "[trace][text_writer]") {
  Alloc block = testing::makeAlloc(5, 0x7f0000200000, 512);
  block.kind = MemoryKind::kBlock;
  block.stream = 7;
  Free back{block};  // the same fields, later
  back.timestamp = 9;
  CHECK(testing::toText({block, back}) ==
        "alloc t=5 kind=block dev=0 stream=7 addr=0x7f0000200000 size=512\n"
        "free t=9 kind=block dev=0 stream=7 addr=0x7f0000200000 size=512\n");
}

TEST_CASE("defaults are omitted, the always-written fields are not", "[trace][text_writer]") {
  CHECK(testing::toText({Alloc{}}) == "alloc t=0 kind=device dev=0 addr=0x0 size=0\n");
  CHECK(testing::toText({Free{}}) == "free t=0 kind=device dev=0 addr=0x0 size=0\n");
  CHECK(testing::toText({ProcessInfo{}}) == "process pid=0\n");
  CHECK(testing::toText({DeviceInfo{}}) == "device dev=0\n");
  CHECK(testing::toText({Property{}}) == "property key=0 value=0\n");
  CHECK(testing::toText({PoolEvent{}}) == "pool created t=0 dev=0 addr=0x0 size=0\n");
  CHECK(testing::toText({Marker{}}) == "marker push t=0 thread=0\n");
  CHECK(testing::toText({Trailer{}}) == "trailer records=0 end=0\n");
  Alloc both;
  both.flags = kMemoryFlagAsync | kMemoryFlagVmm;
  both.kind = static_cast<MemoryKind>(200);  // out of range: written as unknown
  CHECK(testing::toText({both}) ==
        "alloc t=0 kind=unknown dev=0 addr=0x0 size=0 flags=async|vmm\n");
  Free odd;
  odd.flags = 0x44;
  CHECK(testing::toText({odd}) == "free t=0 kind=device dev=0 addr=0x0 size=0 flags=0x44\n");
}

}  // namespace
}  // namespace memfloor::trace

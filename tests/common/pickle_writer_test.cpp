// Tests of common/pickle_writer: what it writes reads back (here and in Python's own pickle),
// shared where it was kept, in the opcodes PyTorch's memory viewer reads.
#include "common/pickle_writer.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/output_file.h"
#include "common/pickle.h"
#include "pickle_fixtures.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::read;

// The bytes `write` writes through a PickleWriter, finished.
template <typename Write>
std::string written(Write write) {
  std::ostringstream out;
  PickleWriter writer(out);
  write(writer);
  writer.finish();
  return out.str();
}

std::string ofValue(const PickleValue& value) {
  return written([&](PickleWriter& w) { writePickleValue(w, value); });
}

// The document of the Python test below: every type, a kept list written twice, batches.
void writeSample(PickleWriter& w) {
  w.beginDict();
  w.str("none");
  w.none();
  w.str("bools");
  w.beginList();
  w.boolean(true);
  w.boolean(false);
  w.end();
  w.str("ints");
  w.beginList();
  for (int64_t i : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536},
                    int64_t{-1}, int64_t{INT32_MIN}, int64_t{INT32_MAX}, int64_t{2147483648},
                    int64_t{-2147483649}, INT64_MAX, INT64_MIN}) {
    w.integer(i);
  }
  w.end();
  w.str("floats");
  w.beginList();
  w.number(1.5);
  w.number(-0.0);
  w.number(1e300);
  w.end();
  w.str("strs");
  w.beginList();
  for (const char* s : {"", "ünïcödé", "😀", "a"}) w.str(s);
  w.str(std::string(300, 'x'));
  w.end();
  w.str("tuples");
  w.beginList();
  for (int n : {0, 1, 4}) {
    w.beginTuple();
    for (int i = 1; i <= n; ++i) w.integer(i);
    w.end();
  }
  w.end();
  w.integer(7);
  w.str("int key");
  w.str("shared");
  w.beginList();
  w.beginList(PickleKeep::kYes);
  w.beginDict();
  w.str("filename");
  w.str("a.py");
  w.str("line");
  w.integer(1);
  w.end();
  const PickleRef frames = w.end();
  w.ref(frames);
  w.end();
  w.str("long");
  w.beginList();
  for (int i = 0; i < 2500; ++i) w.integer(i);
  w.end();
  w.str("dict");
  w.beginDict();
  for (int i = 0; i < 1001; ++i) {
    w.str("k" + std::to_string(i));
    w.integer(i);
  }
  w.end();
  w.str("again");  // memo entry 1000 and more: LONG_BINGET
  w.str("k1000");
  w.end();
}

TEST_CASE("pickle_writer: every plain type reads back", "[pickle]") {
  const std::string bytes = written(writeSample);
  CHECK(bytes.substr(0, 2) == "\x80\x04");
  CHECK(bytes.back() == '.');
  const PickleDocument doc = read(bytes);
  const PickleValue& root = doc.root();
  CHECK(root.find("none")->kind() == PickleKind::kNone);
  CHECK(root.find("bools")->items()[0]->boolean());
  CHECK_FALSE(root.find("bools")->items()[1]->boolean());
  CHECK(ints(*root.find("ints")) == std::vector<int64_t>{0, 255, 256, 65535, 65536, -1, INT32_MIN,
                                                         INT32_MAX, 2147483648, -2147483649,
                                                         INT64_MAX, INT64_MIN});
  const auto floats = root.find("floats")->items();
  CHECK(floats[0]->number() == 1.5);
  CHECK(std::signbit(floats[1]->number()));
  CHECK(floats[2]->number() == 1e300);
  CHECK(root.find("strs")->items()[4]->text() == std::string(300, 'x'));
  CHECK(root.find("strs")->items()[1]->text() == "ünïcödé");
  const auto tuples = root.find("tuples")->items();
  CHECK(tuples[0]->kind() == PickleKind::kTuple);
  CHECK(tuples[0]->items().empty());
  CHECK(ints(*tuples[2]) == std::vector<int64_t>{1, 2, 3, 4});
  CHECK(root.find(7)->text() == "int key");
  const auto shared = root.find("shared")->items();
  CHECK(shared[0] == shared[1]);
  CHECK(shared[0]->items()[0]->find("filename")->text() == "a.py");
  CHECK(root.find("long")->items().size() == 2500);
  CHECK(root.find("long")->items()[2499]->integer() == 2499);
  CHECK(root.find("dict")->entries().size() == 1001);
  // The same str written twice is one memo entry, read back as one value.
  CHECK(root.find("again") == root.find("dict")->entries()[1000].key);
}

TEST_CASE("pickle_writer: ints in the shortest opcode, as Python's pickler writes them",
          "[pickle]") {
  using namespace std::string_literals;
  auto op = [](int64_t value) {
    const std::string bytes = written([&](PickleWriter& w) { w.integer(value); });
    return bytes.substr(2, bytes.size() - 3);  // without PROTO 4 and STOP
  };
  CHECK(op(0) == "K\x00"s);
  CHECK(op(255) == "K\xff");
  CHECK(op(256) == "M\x00\x01"s);
  CHECK(op(65536) == "J\x00\x00\x01\x00"s);
  CHECK(op(-1) == "J\xff\xff\xff\xff");
  CHECK(op(2147483648) == "\x8a\x05\x00\x00\x00\x80\x00"s);
  CHECK(op(-2147483649) == "\x8a\x05\xff\xff\xff\x7f\xff");
  CHECK(op(int64_t{1} << 40) == "\x8a\x06\x00\x00\x00\x00\x00\x01"s);
  CHECK(op(INT64_MAX) == "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f");
  CHECK(op(INT64_MIN) == "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80"s);
}

TEST_CASE("pickle_writer: a str is written once, then fetched from the memo", "[pickle]") {
  const std::string once = written([](PickleWriter& w) {
    w.beginList();
    w.str("/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py");
    w.end();
  });
  const std::string twice = written([](PickleWriter& w) {
    w.beginList();
    w.str("/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py");
    w.str("/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py");
    w.end();
  });
  CHECK(twice.size() == once.size() + 2);  // BINGET 0
}

TEST_CASE("pickle_writer: invalid UTF-8 is written as U+FFFD", "[pickle]") {
  const std::string bytes = written([](PickleWriter& w) { w.str("a\xff"); });
  CHECK(read(bytes).root().text() == "a\xef\xbf\xbd");
}

TEST_CASE("pickle_writer: a document read is written back the same, shared as it was read",
          "[pickle]") {
  for (const char* name : {"plain.p0.pickle", "plain.p2.pickle", "plain.p5.pickle",
                           "snapshot.p4.pickle", "batches.p4.pickle"}) {
    INFO(name);
    const PickleDocument original = read(test::fixture(name));
    const std::string first = ofValue(original.root());
    const PickleDocument again = read(first);
    CHECK(test::same(original.root(), again.root()));
    CHECK(ofValue(again.root()) == first);
  }
  // The snapshot's shared frame lists stay shared.
  const PickleDocument again = read(ofValue(read(test::fixture("snapshot.p4.pickle")).root()));
  const auto blocks = again.root().find("segments")->items()[0]->find("blocks")->items();
  CHECK(blocks[0]->find("frames") == blocks[3]->find("frames"));
}

TEST_CASE("pickle_writer: a DAG shared 2^100 ways is written in proportion to its size",
          "[pickle]") {
  std::string bytes = "\x80\x04]";
  for (int i = 0; i < 100; ++i) bytes += "\x94h" + std::string(1, static_cast<char>(i)) + "\x86";
  bytes += ".";
  const std::string out = ofValue(read(bytes).root());
  CHECK(out.size() < 2000);
  CHECK(read(out).root().depth() == 101);
}

TEST_CASE("pickle_writer: bytes are not written; a set is written as a list", "[pickle]") {
  const PickleDocument extras = read(test::fixture("extras.p4.pickle"));
  CHECK_THROWS_AS(ofValue(extras.root()), Error);
  const PickleDocument set = read(ofValue(*extras.root().find("set")));
  CHECK(set.root().kind() == PickleKind::kList);
  CHECK(ints(set.root()) == std::vector<int64_t>{1, 2});
}

// Loads the writer's sample with Python's pickle, compares it with the same document made in
// Python, and lists the opcodes through pickletools against those MemoryViz.js implements.
constexpr const char* kPythonCheck = R"(import pickle, pickletools, sys
data = open(sys.argv[1], "rb").read()
doc = pickle.loads(data)
frames = [{"filename": "a.py", "line": 1}]
expected = {
    "none": None, "bools": [True, False],
    "ints": [0, 255, 256, 65535, 65536, -1, -2**31, 2**31 - 1, 2**31, -2**31 - 1, 2**63 - 1,
             -2**63],
    "floats": [1.5, -0.0, 1e300], "strs": ["", "ünïcödé", "😀", "a", "x" * 300],
    "tuples": [(), (1,), (1, 2, 3, 4)], 7: "int key", "shared": [frames, frames],
    "long": list(range(2500)), "dict": {f"k{i}": i for i in range(1001)}, "again": "k1000"}
print("equal" if doc == expected else f"differs: {doc!r}")
print("shared", doc["shared"][0] is doc["shared"][1])
js = {"APPENDS", "BINGET", "BININT", "BININT1", "BININT2", "EMPTY_DICT", "EMPTY_LIST", "FRAME",
      "LONG1", "LONG_BINGET", "MARK", "MEMOIZE", "PROTO", "SETITEMS", "SHORT_BINUNICODE", "STOP",
      "TUPLE2", "APPEND", "NEWFALSE", "BINPUT", "BINUNICODE", "EMPTY_TUPLE", "NEWTRUE", "NONE",
      "BINFLOAT", "TUPLE", "TUPLE1", "TUPLE3", "LONG_BINPUT", "LIST", "DICT", "SETITEM"}
ops = [op.name for op, arg, pos in pickletools.genops(data)]
print("outside the viewer's", sorted(set(ops) - js))
print("APPENDS", ops.count("APPENDS"), "SETITEMS", ops.count("SETITEMS"), "LONG_BINGET",
      ops.count("LONG_BINGET"))
)";

TEST_CASE("pickle_writer: Python's pickle loads what the writer wrote", "[pickle][python]") {
  const std::string python = MEMFLOOR_PYTHON3;
  if (!fs::exists(python)) {
    WARN("SKIPPED: no python3 at /usr/bin to load the writer's pickle");
    return;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_pickle_writer_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    OutputFile file((dir / "sample.pickle").string(), "pickle");  // as memfloor writes outputs
    PickleWriter writer(file.stream());
    writeSample(writer);
    writer.finish();
    file.commit();
  }
  std::ofstream(dir / "check.py") << kPythonCheck;
  const std::string command = "'" + python + "' '" + (dir / "check.py").string() + "' '" +
                              (dir / "sample.pickle").string() + "' 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0;) output.append(chunk, n);
  const int status = ::pclose(pipe);
  fs::remove_all(dir);
  INFO(output);
  CHECK(status == 0);
  // APPENDS: 7 short lists and 3 batches of 2500 items; SETITEMS: the root, the frame, 2 of 1001.
  CHECK(output ==
        "equal\n"
        "shared True\n"
        "outside the viewer's []\n"
        "APPENDS 10 SETITEMS 4 LONG_BINGET 1\n");
}

}  // namespace
}  // namespace memfloor::common

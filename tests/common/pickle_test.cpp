// Tests of common/pickle: Python's own pickles of every protocol read, and everything that is not
// plain data, malformed or cut short refused with a message naming the offset.
#include "common/pickle.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "pickle_fixtures.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using test::bytesOf;
using test::failure;
using test::fixture;
using test::ints;
using test::read;

const PickleValue& at(const PickleValue& dict, std::string_view key) {
  const PickleValue* value = dict.find(key);
  REQUIRE(value != nullptr);
  return *value;
}

std::vector<std::string_view> texts(const PickleValue& list) {
  std::vector<std::string_view> out;
  for (const PickleValue* item : list.items()) out.push_back(item->text());
  return out;
}

// testdata/pickle/<name>, read from its file.
PickleDocument readFixture(const std::string& name) {
  return readPickleFile(test::fixturePath(name));
}

// Bytes, and what reading them must say after "x.pickle: ".
struct Refusal {
  std::string bytes;
  std::string message;
};

void checkRefusals(const std::vector<Refusal>& cases, const std::string& ending = "") {
  for (const Refusal& c : cases) {
    INFO(c.message);
    CHECK_THAT(failure(c.bytes), Contains("x.pickle: " + c.message) && EndsWith(ending));
  }
}

// make_fixtures.py's plain(), whatever the protocol.
void checkPlain(const PickleValue& root) {
  REQUIRE(root.kind() == PickleKind::kDict);
  CHECK(root.entries().size() == 10);
  CHECK(root.entries()[0].key->text() == "none");
  CHECK(at(root, "none").kind() == PickleKind::kNone);
  CHECK(at(root, "true").boolean());
  CHECK_FALSE(at(root, "false").boolean());
  CHECK(ints(at(root, "ints")) == std::vector<int64_t>{0, 1, 255, 256, 65535, 65536, -1, INT32_MIN,
                                                       INT32_MAX, 2147483648, INT64_MAX,
                                                       INT64_MIN});
  const auto floats = at(root, "floats").items();
  REQUIRE(floats.size() == 8);
  CHECK(floats[0]->number() == 0.0);
  CHECK(std::signbit(floats[1]->number()));
  CHECK(floats[2]->number() == 1.5);
  CHECK(floats[3]->number() == -2.25);
  CHECK(floats[4]->number() == 1e300);
  CHECK(floats[5]->number() == 5e-324);
  CHECK(std::isinf(floats[6]->number()));
  CHECK(std::isnan(floats[7]->number()));
  CHECK(texts(at(root, "strs")) ==
        std::vector<std::string_view>{"", "a", "ünïcödé", "😀", std::string(300, 'x'),
                                      "line\nbreak\\u0041", "\xed\xa0\x80"});
  std::vector<size_t> tuple_sizes;
  for (const PickleValue* tuple : at(root, "tuples").items()) {
    CHECK(tuple->kind() == PickleKind::kTuple);
    tuple_sizes.push_back(tuple->items().size());
  }
  CHECK(tuple_sizes == std::vector<size_t>{0, 1, 2, 3, 5});
  CHECK(ints(*at(root, "tuples").items()[4]) == std::vector<int64_t>{1, 2, 3, 4, 5});
  // {"a": {"b": {"c": [[[]]]}}} under the root: seven levels.
  CHECK(at(root, "nested").depth() == 6);
  CHECK(root.depth() == 7);
  const PickleValue& int_keys = at(root, "int_keys");
  CHECK(int_keys.find(0)->text() == "zero");
  CHECK(int_keys.find(7)->text() == "seven");
  CHECK(int_keys.find(-1)->text() == "minus one");
  CHECK(int_keys.find(1) == nullptr);
  CHECK(int_keys.find("0") == nullptr);
  // The list the pickle holds twice is one value, not two copies.
  const auto shared = at(root, "shared").items();
  REQUIRE(shared.size() == 2);
  CHECK(shared[0] == shared[1]);
  CHECK(ints(*shared[0]) == std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("pickle: Python's pickles of protocols 0 to 5 read the same", "[pickle]") {
  const int protocol = GENERATE(0, 1, 2, 3, 4, 5);
  INFO("protocol " << protocol);
  const std::string bytes = fixture("plain.p" + std::to_string(protocol) + ".pickle");
  checkPlain(read(bytes).root());
  CHECK(looksLikePickle(bytesOf(bytes)) == (protocol >= 2));
}

TEST_CASE("pickle: bytes, bytearray, set and frozenset", "[pickle]") {
  const PickleDocument p3 = read(fixture("extras.p3.pickle"));
  CHECK(at(p3.root(), "bytes").kind() == PickleKind::kBytes);
  CHECK(at(p3.root(), "bytes").text() == std::string_view("\x00\xff", 2));
  CHECK(at(p3.root(), "short").text() == "ab");
  const PickleDocument p4 = read(fixture("extras.p4.pickle"));
  CHECK(at(p4.root(), "set").kind() == PickleKind::kSet);
  CHECK(ints(at(p4.root(), "set")) == std::vector<int64_t>{1, 2});
  CHECK(at(p4.root(), "frozenset").kind() == PickleKind::kSet);
  CHECK(ints(at(p4.root(), "frozenset")) == std::vector<int64_t>{3});
  const PickleDocument p5 = read(fixture("extras.p5.pickle"));
  CHECK(at(p5.root(), "bytearray").kind() == PickleKind::kBytes);
  CHECK(at(p5.root(), "bytearray").text() == "ab");
}

TEST_CASE("pickle: a snapshot-shaped document shares its frame lists and strs", "[pickle]") {
  const PickleDocument doc = read(fixture("snapshot.p4.pickle"));
  const PickleValue& root = doc.root();
  const auto segments = at(root, "segments").items();
  REQUIRE(segments.size() == 1);
  CHECK(at(*segments[0], "address").integer() == 0x7F0000000000);
  const auto blocks = at(*segments[0], "blocks").items();
  REQUIRE(blocks.size() == 20);
  const auto trace = at(root, "device_traces").items()[0]->items();
  REQUIRE(trace.size() == 20);
  for (size_t i = 0; i + 3 < blocks.size(); ++i) {
    CHECK(&at(*blocks[i], "frames") == &at(*blocks[i + 3], "frames"));
    CHECK(&at(*trace[i], "frames") == &at(*blocks[i], "frames"));
  }
  // One file name, one key: the same value in every frame.
  const PickleValue& first = *at(*blocks[0], "frames").items()[0];
  const PickleValue& second = *at(*blocks[1], "frames").items()[0];
  CHECK(&first != &second);
  CHECK(&at(first, "filename") == &at(second, "filename"));
  CHECK(first.entries()[0].key == second.entries()[0].key);
  CHECK(at(first, "filename").text() ==
        "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py");
  CHECK(at(at(root, "allocator_settings"), "expandable_segments").kind() == PickleKind::kBool);
}

TEST_CASE("pickle: lists and dicts of more than 1000 items, written in batches", "[pickle]") {
  const PickleDocument doc = read(fixture("batches.p4.pickle"));
  const auto list = at(doc.root(), "list").items();
  REQUIRE(list.size() == 2500);
  for (size_t i = 0; i < list.size(); ++i) REQUIRE(list[i]->integer() == static_cast<int64_t>(i));
  const auto dict = at(doc.root(), "dict").entries();
  REQUIRE(dict.size() == 1001);
  CHECK(dict[1000].key->text() == "k1000");
  CHECK(at(doc.root(), "dict").find("k999")->integer() == 999);
}

TEST_CASE("pickle: os.system through GLOBAL or STACK_GLOBAL is refused where it is named",
          "[pickle]") {
  const std::string kPlain =
      "; only plain data (dict, list, tuple, str, int, float, bool, None) is read";
  // By hand: GLOBAL 'os system', MARK, UNICODE 'echo hi', TUPLE, REDUCE.
  CHECK(failure("cos\nsystem\n(Vecho hi\ntR.") ==
        "x.pickle: offset 0: the pickle names the global 'os system'" + kPlain);
  // SHORT_BINUNICODE 'os', SHORT_BINUNICODE 'system', STACK_GLOBAL, then the call.
  CHECK(failure("\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x02hi\x85R.") ==
        "x.pickle: offset 14: the pickle names the global 'os system'" + kPlain);
  // Python's own pickles of a __reduce__ that returns (os.system, ("true",)).
  const std::string global = test::fixturePath("refused_global.p0.pickle");
  CHECK_THROWS_WITH(readPickleFile(global),
                    global + ": offset 0: the pickle names the global 'posix system'" + kPlain);
  const std::string stack = test::fixturePath("refused_stack_global.p4.pickle");
  CHECK_THROWS_WITH(readPickleFile(stack),
                    stack + ": offset 28: the pickle names the global 'posix system'" + kPlain);
}

TEST_CASE("pickle: a name from the input is quoted in part, escaped", "[pickle]") {
  const std::string module(300, 'm');
  const std::string message = failure("c" + module + "\nsys\x1b[2Jtem\n.");
  CHECK_THAT(message, Contains("the global '" + module.substr(0, 200) + "... sys\\x1b[2Jtem'"));
}

TEST_CASE("pickle: a key set twice is found with its later value, as Python keeps it", "[pickle]") {
  // EMPTY_DICT, MARK, 'a' 1, 'a' 2, SETITEMS.
  const PickleDocument doc = read(
      "\x80\x04}(\x8c\x01"
      "aK\x01\x8c\x01"
      "aK\x02u.");
  CHECK(doc.root().entries().size() == 2);
  CHECK(doc.root().find("a")->integer() == 2);
}

TEST_CASE("pickle: every opcode that names, calls or builds an object is refused", "[pickle]") {
  using namespace std::string_literals;
  const std::vector<Refusal> cases{
      {"\x80\x02N)R."s, "offset 4: the pickle calls an object (REDUCE)"},
      {"\x80\x02N}b.", "offset 4: the pickle sets an object's state (BUILD)"},
      {"\x80\x02N)\x81.", "offset 4: the pickle builds an object (NEWOBJ)"},
      {"\x80\x04N)}\x92.", "offset 5: the pickle builds an object (NEWOBJ_EX)"},
      {"(No.", "offset 2: the pickle builds an object (OBJ)"},
      {"(ios\nsystem\n.", "offset 1: the pickle names the global 'os system'"},
      {"\x80\x04NN\x93.", "offset 4: the pickle names a global (STACK_GLOBAL)"},
      {"\x80\x02\x82\x01.", "offset 2: the pickle names a registered extension (EXT1)"},
      {"\x80\x02\x83\x01\x00."s, "offset 2: the pickle names a registered extension (EXT2)"},
      {"\x80\x02\x84\x01\x00\x00\x00."s,
       "offset 2: the pickle names a registered extension (EXT4)"},
      {"Pid\n.", "offset 0: the pickle refers to a persistent object (PERSID)"},
      {"\x80\x02NQ.", "offset 3: the pickle refers to a persistent object (BINPERSID)"},
      {"\x80\x05\x97.", "offset 2: the pickle refers to an out-of-band buffer (NEXT_BUFFER)"},
      {"\x80\x05N\x98.", "offset 3: the pickle refers to an out-of-band buffer (READONLY_BUFFER)"},
  };
  checkRefusals(cases,
                "; only plain data (dict, list, tuple, str, int, float, bool, None) is read");
}

TEST_CASE("pickle: recursive data and containers changed after use are refused", "[pickle]") {
  using namespace std::string_literals;
  CHECK_THROWS_WITH(readFixture("refused_recursive_list.p4.pickle"),
                    EndsWith("offset 15: APPEND adds to a list already placed in a container: "
                             "recursive data (a container inside itself) is not read"));
  CHECK_THROWS_WITH(readFixture("refused_recursive_dict.p2.pickle"),
                    Contains("SETITEM adds to a dict already placed in a container"));
  // a = []; a.append([a])
  CHECK_THROWS_WITH(readFixture("refused_mutual_lists.p4.pickle"),
                    Contains("APPEND adds to a list already placed in a container"));
  // A list placed in another, then added to: EMPTY_LIST MEMOIZE, EMPTY_LIST, BINGET 0, APPEND,
  // POP, NONE, APPEND.
  CHECK_THAT(failure("\x80\x04]\x94]h\x00"
                     "a0Na."s),
             Contains("offset 10: APPEND adds to a list already placed in a container"));
  // A tuple holding a list, then the list added to.
  CHECK_THAT(failure("\x80\x04]\x94\x85h\x00N"
                     "a."s),
             Contains("offset 8: APPEND adds to a list already placed"));
}

// n lists, each inside the one before: "[[[...]]]", n levels.
std::string nestedLists(int n) {
  return "\x80\x02" + std::string(n, ']') + std::string(n - 1, 'a') + ".";
}

TEST_CASE("pickle: nesting is read to kMaxPickleDepth levels and refused past it", "[pickle]") {
  CHECK(read(nestedLists(kMaxPickleDepth)).root().depth() == kMaxPickleDepth);
  CHECK_THAT(failure(nestedLists(kMaxPickleDepth + 1)),
             Contains(": containers nested deeper than 128 levels"));
  // A tuple nested too deep is refused as it is built.
  CHECK_THAT(failure("\x80\x02" + std::string(kMaxPickleDepth, ']') +
                     std::string(kMaxPickleDepth - 1, 'a') + "\x85."),
             Contains("deeper than 128 levels"));
}

TEST_CASE("pickle: a DAG shared 2^100 ways is read in proportion to its bytes", "[pickle]") {
  // x0 = [], x(i+1) = [x(i), x(i)]: each level memoized and fetched twice.
  std::string bytes = "\x80\x04]";
  for (int i = 0; i < 100; ++i) bytes += "\x94h" + std::string(1, static_cast<char>(i)) + "\x86";
  bytes += ".";
  const PickleDocument doc = read(bytes);
  CHECK(doc.root().depth() == 101);
  CHECK(doc.root().items()[0] == doc.root().items()[1]);
}

TEST_CASE("pickle: malformed pickles are refused with what is wrong and where", "[pickle]") {
  using namespace std::string_literals;
  const std::vector<Refusal> cases{
      {"", "offset 0: truncated: the data ends before STOP"},
      {"\x80\x04N", "offset 3: truncated: the data ends before STOP"},
      {"{\"a\": 1}",
       "offset 0: unknown opcode 0x7b: not a pickle, or one of a protocol newer "
       "than 5"},
      {"\x80\x06N.", "offset 0: pickle protocol 6 is not read (protocols 0 to 5 are)"},
      {"\x80\x02.", "offset 2: stack underflow: STOP needs 1 value"},
      {"\x80\x02N(.", "offset 4: stack underflow: STOP needs 1 value above the latest MARK"},
      {"\x80\x02Na.", "offset 3: stack underflow: APPEND needs 2 values"},
      {"\x80\x02](Na.", "offset 5: stack underflow: APPEND needs 2 values above the latest MARK"},
      {"\x80\x02]e.", "offset 3: APPENDS needs a MARK, and there is none"},
      {"\x80\x02(Ne.", "offset 4: stack underflow: APPENDS has no list to add to"},
      {"\x80\x02}(NNe.", "offset 6: APPENDS adds to a dict, not to a list"},
      {"\x80\x02}(Nu.", "offset 5: SETITEMS has a key without a value"},
      {"\x80\x02(N\x86.", "offset 4: stack underflow: TUPLE2 needs 2 values above the latest MARK"},
      {"\x80\x02h\x07.", "offset 2: BINGET of memo entry 7, which was never stored"},
      {"\x80\x02j\xff\xff\xff\xff.", "offset 2: LONG_BINGET of memo entry 4294967295, which"},
      {"\x80\x02\x8b\xff\xff\xff\xff.", "offset 2: LONG4 has a negative length"},
      {"\x80\x02T\xff\xff\xff\xff.", "offset 2: BINSTRING has a negative length"},
      {"\x80\x02\x8c\x02\xc3(.", "offset 2: SHORT_BINUNICODE's text is not UTF-8 (at its byte 0)"},
      {"\x80\x02X\x03\x00\x00\x00"
       "a\xed\xa0."s,
       "offset 2: BINUNICODE's text is not UTF-8 (at its byte 1)"},
      {"S'abc'\n.", "offset 0: protocol 0's STRING (a Python 2 str) is not read"},
      {"\x80\x02X\x00\x01\x00\x00"
       "ab."s,
       "offset 2: truncated: BINUNICODE needs 256 bytes, 3 left"},
      {"\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\xff",
       "offset 2: truncated: BINUNICODE8 needs 18446744073709551615 bytes, 0 left"},
      {"\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."s,
       "offset 2: truncated: FRAME needs 255 bytes, 2 left"},
      {"Vab\\u00zz\n.", "offset 0: UNICODE's text has a bad \\u or \\U escape"},
      {"V\\U00110000\n.", "offset 0: UNICODE's text has a bad \\u or \\U escape"},
      {"I12x\n.", "offset 0: '12x' is not a decimal int within int64"},
      {"Fone\n.", "offset 0: 'one' is not a float"},
      {"Np-1\n.", "offset 1: '-1' is not a memo index"},
      {"cos", "offset 0: truncated: GLOBAL's line has no newline before the end"},
  };
  checkRefusals(cases);
  // Embedded NUL bytes, which the literals above cannot hold.
  CHECK_THAT(failure("\x80\x02K"s), Contains("offset 2: truncated: BININT1 needs 1 byte, 0 left"));
  CHECK_THAT(failure("\x80\x02]\x00."s), Contains("offset 3: unknown opcode 0x00"));
}

TEST_CASE("pickle: ints beyond int64 are refused, int64's extremes read", "[pickle]") {
  CHECK_THROWS_WITH(readFixture("refused_int65.p2.pickle"),
                    EndsWith("offset 5: an int larger than 64 bits; only ints within int64 are "
                             "read"));
  CHECK_THROWS_WITH(readFixture("refused_int_long4.p4.pickle"),
                    Contains("an int larger than 64 bits"));
  CHECK_THROWS_WITH(readFixture("refused_int_text.p0.pickle"),
                    Contains("'9223372036854775808' is not a decimal int within int64"));
  using namespace std::string_literals;
  // LONG1 of 9 bytes that only extend the sign: int64's extremes and -1.
  CHECK(read("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\xff."s).root().integer() ==
        INT64_MIN);
  CHECK(read("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\x00."s).root().integer() ==
        INT64_MAX);
  CHECK(read("\x80\x02\x8a\x01\xff."s).root().integer() == -1);
  CHECK(read("\x80\x02\x8a\x00."s).root().integer() == 0);
  // 2^63 in 9 bytes, and -2^63 - 1.
  CHECK_THAT(failure("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00."s),
             Contains("larger than 64 bits"));
  CHECK_THAT(failure("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff."s),
             Contains("larger than 64 bits"));
  CHECK(read("L-9223372036854775808L\n.").root().integer() == INT64_MIN);
}

TEST_CASE("pickle: memo indices up to 2^32 and beyond cost no memory of their size", "[pickle]") {
  // LONG_BINPUT 2^32 - 1, then LONG_BINGET of it.
  const PickleDocument doc = read("\x80\x04Nr\xff\xff\xff\xffj\xff\xff\xff\xff\x86.");
  CHECK(doc.root().items().size() == 2);
  CHECK(read("Np9223372036854775807\ng9223372036854775807\n\x86.").root().items().size() == 2);
  // MEMOIZE numbers an entry as len(memo), as Python does, whatever indices came before: after
  // BINPUT 1 that is 1 again.
  const PickleDocument memoized = read("\x80\x04Nq\x01\x88\x94h\x01\x85.");
  CHECK(memoized.root().items()[0]->kind() == PickleKind::kBool);
}

TEST_CASE("pickle: every prefix of a fixture is refused, never a crash", "[pickle]") {
  for (const std::string& name : test::kAcceptedFixtures) {
    const std::string bytes = fixture(name);
    std::vector<size_t> accepted;  // prefix lengths read without an Error
    for (size_t n = 0; n < bytes.size(); ++n) {
      try {
        read(std::string_view(bytes).substr(0, n));
        accepted.push_back(n);
      } catch (const Error&) {
        // expected
      }
    }
    INFO(name);
    CHECK(accepted.empty());
  }
}

TEST_CASE("pickle: bytes after STOP are ignored, as pickle.loads and the memory viewer do",
          "[pickle]") {
  using namespace std::string_literals;
  CHECK(read("\x80\x04K\x07.\x00\x00garbage"s).root().integer() == 7);
}

TEST_CASE("pickle: files are read through InputFile, named in messages", "[pickle]") {
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_pickle_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string missing = (dir / "missing.pickle").string();
  CHECK_THROWS_WITH(readPickleFile(missing, "memory snapshot"),
                    missing + ": cannot open the memory snapshot: No such file or directory");
  const std::string empty = (dir / "empty.pickle").string();
  std::ofstream(empty).flush();
  CHECK_THROWS_WITH(readPickleFile(empty), empty + ": the pickle is empty");
  CHECK_THROWS_WITH(readPickleFile(dir.string()), Contains("a directory, not a regular file"));
  checkPlain(readPickleFile(test::fixturePath("plain.p4.pickle")).root());
  fs::remove_all(dir);
}

TEST_CASE("pickle: a document moved keeps its values where they are", "[pickle]") {
  PickleDocument first = read(
      "\x80\x04\x8c\x01"
      "a.");  // a str shorter than any SSO buffer
  const PickleValue* root = &first.root();
  PickleDocument second = std::move(first);
  CHECK(&second.root() == root);
  CHECK(second.root().text() == "a");
}

TEST_CASE("pickle: looksLikePickle knows protocols 2 to 5 by their first two bytes", "[pickle]") {
  using namespace std::string_literals;
  CHECK(looksLikePickle(bytesOf("\x80\x02")));
  CHECK(looksLikePickle(bytesOf("\x80\x05\x95")));
  CHECK_FALSE(looksLikePickle(bytesOf("\x80\x06")));
  CHECK_FALSE(looksLikePickle(bytesOf("\x80\x01")));
  CHECK_FALSE(looksLikePickle(bytesOf("\x80")));
  CHECK_FALSE(looksLikePickle(bytesOf("")));
  CHECK_FALSE(looksLikePickle(bytesOf("{\"schema\"")));
  CHECK_FALSE(looksLikePickle(bytesOf("MFTRACE")));
}

}  // namespace
}  // namespace memfloor::common

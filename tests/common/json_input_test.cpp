// Tests of common/json_input: the files it refuses, the parse and the schema checks, and their
// messages (each names the file and what is wrong).
#include "common/json_input.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "tests/scratch_dir.h"

namespace memfloor::common {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

constexpr JsonSchema kSample{"memfloor.sample/2", "sample document",
                             "re-run the sampler with this version"};

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("json_input_test") {}
};

// The message of the Error that `load` throws on `path`.
std::string failure(const std::string& path) {
  try {
    loadJsonDocument(path, kSample, "sample");
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no error for " << path);
  return "";
}

TEST_CASE("json_input: a document of the expected family and major loads") {
  TempDir dir;
  std::string path = dir.write("ok.json", R"({"schema": "memfloor.sample/2", "n": 1})");
  nlohmann::json doc = loadJsonDocument(path, kSample, "sample");
  CHECK(doc.at("n") == 1);
}

TEST_CASE("json_input: a symbolic link to a document is read") {
  TempDir dir;
  std::string target = dir.write("target.json", R"({"schema": "memfloor.sample/2"})");
  fs::create_symlink(target, dir.path / "link.json");
  CHECK(loadJsonDocument((dir.path / "link.json").string(), kSample, "sample").at("schema") ==
        "memfloor.sample/2");
}

TEST_CASE("json_input: files that cannot be a document are refused before parsing") {
  TempDir dir;
  SECTION("missing") {
    std::string path = (dir.path / "missing.json").string();
    CHECK_THAT(failure(path),
               Contains(path + ": cannot open the sample: No such file or directory"));
  }
  SECTION("a directory") {
    fs::create_directory(dir.path / "dir.json");
    std::string path = (dir.path / "dir.json").string();
    CHECK_THAT(failure(path), Contains(path + ": cannot read the sample: a directory, not a "
                                              "regular file"));
  }
  SECTION("a symbolic link to a directory") {
    fs::create_directory(dir.path / "real");
    fs::create_directory_symlink(dir.path / "real", dir.path / "link.json");
    CHECK_THAT(failure((dir.path / "link.json").string()), Contains("not a regular file"));
  }
  SECTION("empty") {
    std::string path = dir.write("empty.json", "");
    CHECK_THAT(failure(path), Contains(path + ": the sample is empty"));
  }
  SECTION("larger than the limit") {
    // A sparse file: its size is past the limit, its blocks are not written.
    std::string path = dir.write("huge.json", "{");
    fs::resize_file(path, kMaxJsonInputBytes + 1);
    CHECK_THAT(failure(path), Contains(path + ": the sample is too large: 4294967297 bytes"));
  }
  SECTION("unreadable") {
    std::string path = dir.write("locked.json", R"({"schema": "memfloor.sample/2"})");
    fs::permissions(path, fs::perms::none);
    if (::geteuid() == 0) {
      SUCCEED("root reads a file without permissions");
    } else {
      CHECK_THAT(failure(path), Contains(path + ": cannot open the sample: Permission denied"));
    }
  }
}

TEST_CASE("json_input: what is not a document of the schema is an error naming the file") {
  TempDir dir;
  auto fails = [&](const std::string& name, const std::string& text, const std::string& what) {
    std::string path = dir.write(name, text);
    CHECK_THAT(failure(path), Contains(path + ": " + what));
  };
  fails("text.json", "hello", "not JSON: parse error at line 1, column 1");
  fails("cut.json", R"({"schema": "memfloor.sample/2", "n": [)", "not JSON: parse error");
  fails("trailing.json", R"({"schema": "memfloor.sample/2"} x)", "not JSON: parse error at line 1");
  CHECK_THAT(failure(dir.write("trailing.json", "{} x")), Contains("(not a JSON document)"));
  fails("array.json", "[1, 2]", "not a sample document (a JSON array, not an object)");
  fails("number.json", "7", "not a sample document (a JSON number, not an object)");
  fails("noschema.json", R"({"n": 1})",
        "not a sample document (no \"schema\": \"memfloor.sample/2\")");
  fails("numberschema.json", R"({"schema": 2})", "not a sample document (no \"schema\"");
  fails("family.json", R"({"schema": "memfloor.report/2"})",
        "not a sample document (schema \"memfloor.report/2\", expected \"memfloor.sample/2\")");
  fails("noversion.json", R"({"schema": "memfloor.sample"})",
        "not a sample document (schema \"memfloor.sample\", expected \"memfloor.sample/2\")");
  fails("newer.json", R"({"schema": "memfloor.sample/3"})",
        "schema \"memfloor.sample/3\" is not supported: this memfloor reads memfloor.sample/2 "
        "(written by a newer memfloor)");
  fails("older.json", R"({"schema": "memfloor.sample/1"})",
        "schema \"memfloor.sample/1\" is not supported: this memfloor reads memfloor.sample/2 "
        "(re-run the sampler with this version)");
}

TEST_CASE("json_input: documents already in memory get the same checks") {
  CHECK(parseJsonDocument(R"({"schema": "memfloor.sample/2"})", kSample, "s.json").is_object());
  CHECK_THROWS_WITH(parseJsonDocument("{", kSample, "s.json"),
                    Contains("s.json: not JSON: parse error at line 1, column 2"));
  CHECK_THROWS_WITH(checkSchema(nlohmann::json::array(), kSample, "the sample"),
                    Contains("the sample: not a sample document (a JSON array"));
  CHECK_THROWS_AS(checkSchema(nlohmann::json{{"schema", "memfloor.sample/9"}}, kSample, "x"),
                  Error);
}

TEST_CASE("json_input: comments only where asked for") {
  const std::string text = "// settings\n{\"a\": 1 /* one */}";
  CHECK(parseJson(text, "c.json", /*comments=*/true).at("a") == 1);
  CHECK_THROWS_WITH(parseJson(text, "c.json"), Contains("c.json: not JSON"));
}

TEST_CASE("json_input: schema names") {
  auto major = [](std::string_view name) {
    std::optional<SchemaName> s = parseSchemaName(name);
    return s ? s->major : -1;
  };
  CHECK(major("memfloor.report/2") == 2);
  CHECK(major("memfloor.report/12") == 12);
  CHECK(parseSchemaName("memfloor.report/12")->family == "memfloor.report");
  CHECK(major("memfloor.report/") == -1);
  CHECK(major("memfloor.report/2x") == -1);
  CHECK(major("memfloor.report/-1") == -1);
  CHECK(major("memfloor.report/99999999999999999999") == -1);
  CHECK(major("/2") == -1);
  CHECK(major("memfloor.report") == -1);
  CHECK(parseSchemaName("memfloor.gate/1")->family == "memfloor.gate");
}

TEST_CASE("json_input: nesting past the limit is refused while parsing, not crashed on") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH(parseJson(deep, "deep.json"),
                    Contains("deep.json: not a memfloor document: nested deeper than 128 levels"));
  const std::string open_only(100000, '{');
  CHECK_THROWS_AS(parseJson(open_only, "open.json"), Error);
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parseJson(ok, "ok.json").is_array());
  const std::string one_more = "[" + ok + "]";
  CHECK_THROWS_AS(parseJson(one_more, "more.json"), Error);
}

TEST_CASE("json_input: a lone surrogate's escape is read as U+FFFD, as Python's json reads it") {
  // What json.dump writes for a file name Python decoded with surrogateescape ("caf\udce9.py").
  const nlohmann::json v =
      parseJson(R"({"f": "caf\udce9.py", "g": "\ud800", "h": "\udbff x"})", "s");
  CHECK(v.at("f") == "caf\xef\xbf\xbd.py");
  CHECK(v.at("g") == "\xef\xbf\xbd");
  CHECK(v.at("h") == "\xef\xbf\xbd x");
  // A pair is one code point; an escaped backslash before "u" is no escape; the text is kept
  // when nothing is replaced.
  CHECK(parseJson(R"(["\ud83d\ude00"])", "s").at(0) == "\xf0\x9f\x98\x80");
  CHECK(parseJson(R"(["\\udc80"])", "s").at(0) == "\\udc80");
  CHECK_FALSE(replaceLoneSurrogates(R"(["\ud83d\ude00", "\\udc80", "\n"])"));
  CHECK(replaceLoneSurrogates(R"("\ud83d\ud83d")") == R"("\ufffd\ufffd")");
  CHECK(replaceLoneSurrogates(R"("\ude00\ud83d")") == R"("\ufffd\ufffd")");
  CHECK(replaceLoneSurrogates("\"\\ud83") == std::nullopt);  // cut short: the parser says so
  CHECK_THROWS_WITH(parseJson("\"\\ud83", "cut.json"), Contains("cut.json: not JSON"));
}

}  // namespace
}  // namespace memfloor::common

// Tests of the outputs: clang-style text, the findings document and SARIF 2.1.0.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "checker/checker.h"
#include "checker/findings_json.h"
#include "checker/sarif.h"
#include "checker/text_output.h"
#include "common/error.h"

namespace memfloor::checker {
namespace {

Finding sample() {
  Finding f;
  f.rule = "MF001";
  f.message = "'m_' keeps its device memory after 'I::use'";
  f.loc = {"/repo/src/hc layer.cpp", 12, 7, 300};
  f.related = {{{"/repo/src/base.cpp", 4, 5, 80}, "releases 'm_' here"}};
  f.function = "Hc::post";
  f.field = "m_";
  f.fixits = {{{"/repo/src/hc layer.cpp", 12, 40, 333}, 0, "\n  m_ = nullptr;"}};
  return f;
}

TEST_CASE("Text output is clang-style with notes", "[outputs]") {
  const std::string text = formatText({sample()}, "/repo", false);
  CHECK(text ==
        "src/hc layer.cpp:12:7: warning: 'm_' keeps its device memory after 'I::use' [MF001]\n"
        "src/hc layer.cpp:12:40: note: fix-it: insert \"\\n  m_ = nullptr;\"\n"
        "src/base.cpp:4:5: note: releases 'm_' here\n");
}

// A byte a terminal acts on (it moves the cursor, sets the title, rings): C0 but the newline and
// the tab, and DEL.
bool holdsControlByte(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b < ' ' && c != '\n' && c != '\t') || b == 0x7f;
  });
}

TEST_CASE("Text output writes the control bytes of names, messages and source lines escaped",
          "[outputs]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_outputs_test_control_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // A name from a directory walk, a line of a CRLF file, a handle from a --facts document: each
  // with ESC and BEL.
  const std::string name = "red\x1b[31m\x07.py";
  std::ofstream(dir / name) << "x = 1\r\n\ts = \"\x1b[2J\x07\"; self.stage.finish()\r\n";
  Finding f;
  f.rule = "MF001";
  f.message = "'self.\x1b]0;title\x07stage' keeps its device memory";
  f.loc = {(dir / name).string(), 2, 15, 0};  // `self`, after the string
  f.fixits = {{{(dir / name).string(), 2, 40, 0}, 0, "\n\tself.\x1b]0;title\x07stage = None"}};

  const std::string text = formatText({f}, dir.string());
  CHECK_FALSE(holdsControlByte(text));
  CHECK(text ==
        "red\\x1b[31m\\x07.py:2:15: warning: 'self.\\x1b]0;title\\x07stage' keeps its device "
        "memory [MF001]\n"
        "\ts = \"\\x1b[2J\\x07\"; self.stage.finish()\n"
        "\t                   ^\n"  // under `self` as the escaped line shows it
        "red\\x1b[31m\\x07.py:2:40: note: fix-it: insert \"\\n\tself.\\x1b]0;title\\x07stage = "
        "None\"\n");

  // The findings document keeps the bytes: JSON escapes them itself.
  const nlohmann::json json = findingsToJson({f}, {}, dir.string());
  CHECK(json.at("findings").at(0).at("location").at("file") == name);
  CHECK(json.at("findings").at(0).at("message") == f.message);
  fs::remove_all(dir);
}

TEST_CASE("Errors of units are written escaped on stderr and exact in the findings document",
          "[outputs]") {
  const std::vector<std::string> errors{"bad\x1b[31m\x07.py:1: cannot parse: invalid syntax"};
  std::ostringstream out;
  std::ostringstream err;
  CHECK(finishCheck(Facts{}, Config{}, CheckOptions{}, errors, out, err) == 2);
  CHECK_FALSE(holdsControlByte(err.str()));
  CHECK(err.str().find("memfloor-check: error: bad\\x1b[31m\\x07.py:1: cannot parse: invalid "
                       "syntax\n") != std::string::npos);

  std::ostringstream json_out;
  CheckOptions json_options;
  json_options.format = OutputFormat::kJson;
  CHECK(finishCheck(Facts{}, Config{}, json_options, errors, json_out, err) == 2);
  CHECK(nlohmann::json::parse(json_out.str()).at("errors") == errors);
}

TEST_CASE("The findings document follows memfloor.findings/1", "[outputs]") {
  const nlohmann::json json = findingsToJson({sample()}, {"bad.cpp: does not parse"}, "/repo");
  CHECK(json.at("schema") == kFindingsSchema);
  const nlohmann::json& f = json.at("findings").at(0);
  CHECK(f.at("rule") == "MF001");
  CHECK(f.at("location") ==
        nlohmann::json{{"file", "src/hc layer.cpp"}, {"line", 12}, {"column", 7}});
  CHECK(f.at("related").at(0).at("location").at("file") == "src/base.cpp");
  CHECK(f.at("function") == "Hc::post");
  CHECK(f.at("field") == "m_");
  CHECK(f.at("fixits").at(0).at("location").at("offset") == 333);
  CHECK(f.at("fingerprint").get<std::string>().size() == 16);
  CHECK(json.at("errors").at(0) == "bad.cpp: does not parse");
}

TEST_CASE("A baseline is a findings document read through the common loader", "[outputs]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_outputs_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const nlohmann::json json = findingsToJson({sample()}, {}, "/repo");
  std::ofstream(dir / "baseline.json") << json.dump(2);
  CHECK(readBaseline(dir / "baseline.json") ==
        std::set<std::string>{json.at("findings").at(0).at("fingerprint").get<std::string>()});

  std::ofstream(dir / "report.json") << R"({"schema": "memfloor.report/2"})";
  CHECK_THROWS_WITH(readBaseline(dir / "report.json"),
                    Catch::Contains((dir / "report.json").string() +
                                    ": not a findings document (schema \"memfloor.report/2\""));
  std::ofstream(dir / "newer.json") << R"({"schema": "memfloor.findings/2", "findings": []})";
  CHECK_THROWS_WITH(readBaseline(dir / "newer.json"),
                    Catch::Contains("written by a newer memfloor"));
  std::ofstream(dir / "fields.json") << R"({"schema": "memfloor.findings/1", "findings": [{}]})";
  CHECK_THROWS_WITH(readBaseline(dir / "fields.json"),
                    Catch::Contains("fields.json: findings[0].fingerprint: missing"));
  CHECK_THROWS_WITH(readBaseline(dir / "missing.json"),
                    Catch::Contains("cannot open the baseline"));
  fs::remove_all(dir);
}

TEST_CASE("SARIF has rule metadata, relative URIs, related locations and fingerprints",
          "[outputs]") {
  const std::vector<RuleInfo> rules{{"MF001", "release-after-use-deviance", "summary"}};
  const nlohmann::json sarif = toSarif({sample()}, rules, "/repo");
  CHECK(sarif.at("version") == "2.1.0");
  const nlohmann::json& run = sarif.at("runs").at(0);
  CHECK(run.at("tool").at("driver").at("rules").at(0).at("id") == "MF001");
  CHECK(run.at("originalUriBaseIds").at("%SRCROOT%").at("uri") == "file:///repo/");
  const nlohmann::json& result = run.at("results").at(0);
  CHECK(result.at("ruleId") == "MF001");
  CHECK(result.at("ruleIndex") == 0);
  const nlohmann::json& artifact =
      result.at("locations").at(0).at("physicalLocation").at("artifactLocation");
  CHECK(artifact.at("uri") == "src/hc%20layer.cpp");
  CHECK(artifact.at("uriBaseId") == "%SRCROOT%");
  CHECK(result.at("relatedLocations").at(0).at("id") == 1);
  CHECK(result.at("partialFingerprints").contains("memfloorFingerprint/v1"));
  CHECK(result.at("fixes").at(0).at("artifactChanges").at(0).at("replacements").size() == 1);
}

}  // namespace

TEST_CASE("Output formats are text, json and sarif; anything else is refused", "[outputs]") {
  CHECK(parseOutputFormat("text") == OutputFormat::kText);
  CHECK(parseOutputFormat("json") == OutputFormat::kJson);
  CHECK(parseOutputFormat("sarif") == OutputFormat::kSarif);
  CHECK_THROWS_WITH(parseOutputFormat("bogus"),
                    "--format: expected text, json or sarif, not 'bogus'");
  CHECK_THROWS_AS(parseOutputFormat("JSON"), Error);
}

}  // namespace memfloor::checker

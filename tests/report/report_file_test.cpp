// Tests of reports/report_file: loading report.json, and the errors for what is not one.
#include "report/report_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "tests/reports/report_doc_builder.h"
#include "tests/scratch_dir.h"

using namespace memfloor;

namespace {

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("report_file_test") {}
};

}  // namespace

TEST_CASE("report_file: a v3 report loads, and a v2 one") {
  TempDir dir;
  nlohmann::json doc = testing::makeReport({});
  std::string path = dir.write("ok.json", doc.dump());
  CHECK(report::loadReportJson(path).at("schema") == "memfloor.report/3");
  doc["schema"] = "memfloor.report/2";
  path = dir.write("v2.json", doc.dump());
  CHECK(report::loadReportJson(path).at("schema") == "memfloor.report/2");
}

TEST_CASE("report_file: what is not a usable report is an error naming the file") {
  TempDir dir;
  auto fails = [&](const std::string& name, const std::string& text, const std::string& what) {
    std::string path = dir.write(name, text);
    CHECK_THROWS_AS(report::loadReportJson(path), Error);
    CHECK_THROWS_WITH(report::loadReportJson(path), Catch::Contains(path) && Catch::Contains(what));
  };
  CHECK_THROWS_WITH(report::loadReportJson((dir.path / "missing.json").string()),
                    Catch::Contains("missing.json: cannot open the report: No such file"));
  fails("empty.json", "", "empty");
  fails("text.json", "hello, not a report\n", "not JSON: parse error at line 1, column 1");
  fails("cut.json", R"({"schema": "memfloor.report/2", "runs": [)", "not JSON");
  fails("array.json", "[1, 2]", "a JSON array, not an object");
  fails("noschema.json", R"({"runs": []})", "no \"schema\"");
  fails("findings.json", R"({"schema": "memfloor.findings/1"})", "not a memfloor report");
  fails("v1.json", R"({"schema": "memfloor.report/1"})",
        "\"memfloor.report/1\" is not supported: this memfloor reads memfloor.report/3 and "
        "memfloor.report/2 (re-run");
  fails("v4.json", R"({"schema": "memfloor.report/4"})", "written by a newer memfloor");
}

// Tests of the HTML report: the data embedding cannot close its script element, schema errors.
#include "reports/html_report.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"

namespace memfloor::reports {
namespace {

using Catch::Matchers::Contains;
using nlohmann::json;

const std::string kDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/reports/";
const std::string kHostile = "</script><img src=x onerror=alert(1)>";

json readFixture(const std::string& name) {
  std::ifstream in(kDir + name);
  REQUIRE(in);
  return json::parse(in);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of <script type="application/json" id="ID">...</script> in `page`.
std::string scriptText(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  start += open.size();
  size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return page.substr(start, end - start);
}

std::string writeTemp(const std::string& name, const std::string& text) {
  std::string path =
      (std::filesystem::temp_directory_path() / ("html_report_test_" + name)).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

json minimalReport() {
  return {{"schema", "memfloor.report/3"},
          {"tool", {{"name", "memfloor"}, {"version", "0.1.0"}}},
          {"runs", json::array()},
          {"summary", {{"runs", 0}, {"verdict", "unknown"}, {"worst", nullptr}}},
          {"findings", {{"source", nullptr}, {"items", json::array()}, {"errors", json::array()}}}};
}

TEST_CASE("scriptSafeJson escapes what could end the script element", "[html]") {
  json doc = {{"name", kHostile + " & <!-- \u2028 \u2029 </SCRIPT >"}, {"n", 1}};
  std::string text = scriptSafeJson(doc);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(text.find("\u2028") == std::string::npos);
  CHECK(text.find("\u2029") == std::string::npos);
  CHECK_THAT(text, Contains("\\u003c/script\\u003e"));
  CHECK_THAT(text, Contains("\\u2028"));
  CHECK_THAT(text, Contains("\\u0026"));
  CHECK(json::parse(text) == doc);  // the same document for JSON.parse
}

TEST_CASE("scriptSafeJson replaces invalid UTF-8 instead of failing", "[html]") {
  json doc = {{"name", std::string("bad \xff\xfe byte")}};
  std::string text = scriptSafeJson(doc);
  CHECK(json::parse(text)["name"] == "bad \xef\xbf\xbd\xef\xbf\xbd byte");
}

TEST_CASE("the page embeds the fixture report and gate as data only", "[html]") {
  json report = readFixture("two_runs.report.json");
  json gate = readFixture("two_runs.gate.json");
  std::string page = renderHtml(report, gate);

  // The template's three script elements are the only ones: no string closed one early.
  CHECK(count(page, "<script") == 3);
  CHECK(count(page, "</script") == 3);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("@memfloor:") == std::string::npos);  // every slot filled
  CHECK_THAT(page, Contains("<!DOCTYPE html>"));
  CHECK_THAT(page, Contains("Content-Security-Policy"));

  CHECK(json::parse(scriptText(page, "memfloor-report")) == report);
  CHECK(json::parse(scriptText(page, "memfloor-gate")) == gate);
}

TEST_CASE("without a gate the gate element holds null", "[html]") {
  std::string page = renderHtml(minimalReport());
  CHECK(scriptText(page, "memfloor-gate") == "null");
  CHECK(json::parse(scriptText(page, "memfloor-report")) == minimalReport());
}

TEST_CASE("the page grows with the report's JSON, not more", "[html]") {
  // A report with a full timeline (2048 points, the schema's bound) and nothing to escape: the
  // page is the empty page plus the compact JSON.
  json report = minimalReport();
  json points = json::array();
  for (uint64_t i = 0; i < 2048; ++i) points.push_back({i * 1000, i, i + 5, i + 1});
  report["runs"].push_back(
      {{"label", "rank 0"},
       {"timeline",
        {{{"device", 0}, {"kind", "device"}, {"bucket_ns", 1000}, {"points", points}}}}});
  const size_t empty = renderHtml(minimalReport()).size();
  const size_t full = renderHtml(report).size();
  CHECK(full - empty == report.dump().size() - minimalReport().dump().size());
}

TEST_CASE("renderHtml refuses documents that are not memfloor.report/3 or /2", "[html]") {
  json v1 = minimalReport();
  v1["schema"] = "memfloor.report/1";
  CHECK_THROWS_WITH(renderHtml(v1), Contains("memfloor.report/1") &&
                                        Contains("memfloor.report/3") &&
                                        Contains("memfloor analyze"));
  json v2 = minimalReport();
  v2["schema"] = "memfloor.report/2";
  CHECK_NOTHROW(renderHtml(v2));
  json none = minimalReport();
  none.erase("schema");
  CHECK_THROWS_WITH(renderHtml(none), Contains("no \"schema\""));
  CHECK_THROWS_AS(renderHtml(json::array()), Error);
  json findings = {{"schema", "memfloor.findings/1"}};
  CHECK_THROWS_WITH(renderHtml(findings), Contains("memfloor.findings/1"));
  CHECK_THROWS_WITH(renderHtml(minimalReport(), minimalReport()),
                    Contains("the gate result") && Contains("memfloor.gate/1"));
}

TEST_CASE("loadGateJson names the file and what is wrong", "[html]") {
  SECTION("missing file") {
    CHECK_THROWS_WITH(loadGateJson("no/such/gate.json"),
                      Contains("no/such/gate.json") && Contains("cannot open"));
  }
  SECTION("not JSON") {
    std::string path = writeTemp("not_json.json", "{\"schema\": ");
    CHECK_THROWS_WITH(loadGateJson(path), Contains(path) && Contains("not JSON"));
  }
  SECTION("a report given as the gate") {
    std::string path = writeTemp("report_as_gate.json", minimalReport().dump());
    CHECK_THROWS_WITH(loadGateJson(path), Contains(path) && Contains("memfloor.report/3") &&
                                              Contains("expected \"memfloor.gate/1\""));
  }
  SECTION("the fixture") {
    CHECK(loadGateJson(kDir + "two_runs.gate.json")["verdict"] == "regression");
  }
}

}  // namespace
}  // namespace memfloor::reports

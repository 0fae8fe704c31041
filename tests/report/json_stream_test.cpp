// Tests of report/json_stream.cpp: the streamed text is byte for byte nlohmann's dump(2), with
// placeholders replaced by their elements.
#include "report/json_stream.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <sstream>

#include "analysis/merged_report.h"
#include "report/report_json.h"

namespace memfloor::report {
namespace {

using nlohmann::json;

std::string dumped(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

std::string streamed(const json& doc, const StreamedArrays& arrays = {}) {
  std::ostringstream out;
  writeIndented(out, doc, arrays);
  return out.str();
}

TEST_CASE("writeIndented writes what dump(2) writes", "[reports][json_stream]") {
  const json docs[] = {
      json(nullptr),
      json(true),
      json(-12),
      json(uint64_t{18446744073709551615u}),
      json(0.5),
      json("quote \" backslash \\ newline \n control \x01 invalid \xff utf-8"),
      json::array(),
      json::object(),
      json::parse(R"({"b": [1, [], {}, [2, [3]], {"x": null}], "a": {"z": {}, "y": []}, "": 1})"),
      json::parse(R"([[[[]]], {"k": [{"k": [{}]}]}])"),
      // What the writer leaves to nlohmann: floats, and strings or keys that need escapes or
      // hold UTF-8 (valid or not); next to what it writes itself.
      json{{"floats", {0.1, -0.0, 1e300, 2.5e-7, 3.0, std::numeric_limits<double>::quiet_NaN()}},
           {"integers", {0, -1, INT64_MIN, INT64_MAX, uint64_t{10}}},
           {"strings", {"", "plain ASCII ~ !", "del \x7f", "caf\xc3\xa9", "tab\tquote\"", "\xc3"}},
           {"key \"quoted\"", 1},
           {"caf\xc3\xa9 \xff", {{"deep", {{"er", json::array({json::object()})}}}}},
           {"~", nullptr}},
  };
  for (const json& doc : docs) {
    INFO(dumped(doc));
    CHECK(streamed(doc) == dumped(doc));
  }
}

TEST_CASE("placeholders are replaced by their streamed elements", "[reports][json_stream]") {
  json doc = json::parse(R"({"runs": [{"rows": [], "name": "a"}, {"rows": [], "name": "b"}]})");
  json expected = doc;
  StreamedArrays arrays;
  const json& view = doc;
  for (size_t run = 0; run < 2; ++run) {
    const size_t count = run == 0 ? 3 : 0;  // the second stays empty: "[]"
    // Elements are dumped whole from their depth: nested levels, an empty object and a string
    // with an escaped newline and invalid UTF-8 keep dump(2)'s layout and replacement.
    auto element = [run](size_t i) {
      return json{{"i", i},
                  {"run", run},
                  {"v", {i, json::object(), {{"deep", {1, 2}}}}},
                  {"text", "line\nbreak, invalid \xff utf-8"}};
    };
    arrays[&view.at("runs").at(run).at("rows")] = {
        count, [element](JsonText& text, size_t i) { text.value(element(i)); }};
    for (size_t i = 0; i < count; ++i) expected["runs"][run]["rows"].push_back(element(i));
  }
  CHECK(streamed(doc, arrays) == dumped(expected));
}

TEST_CASE("JsonText written value by value is dump(2)'s text", "[reports][json_stream]") {
  // Nested and empty levels, keys that need escapes or hold UTF-8, a DOM subtree among values.
  JsonText text;
  text.beginObject();
  text.key("a");
  text.beginArray();
  text.end();
  text.key("b");
  text.beginArray();
  text.value(uint64_t{1});
  text.beginArray();
  text.value(std::string_view("x"));
  text.beginObject();
  text.end();
  text.end();
  text.value(json::parse(R"({"k": [1, {"z": null}], "j": -2.5})"));
  text.end();
  text.key("caf\xc3\xa9 \"q\"");
  text.beginObject();
  text.key("deep");
  text.value(std::string_view("line\nbreak \xff"));
  text.end();
  text.end();
  const std::string written = text.text();
  INFO(written);
  CHECK(written == dumped(json::parse(written, nullptr, true, false)));
  const json expected = {
      {"a", json::array()},
      {"b", {1, {"x", json::object()}, json::parse(R"({"k": [1, {"z": null}], "j": -2.5})")}},
      {"caf\xc3\xa9 \"q\"", {{"deep", "line\nbreak \xff"}}}};
  CHECK(written == dumped(expected));
}

TEST_CASE("toJsonText streams the same text as toJson's DOM", "[reports][json_stream]") {
  analysis::Report run;
  run.input.path = "r.mftrace";
  run.iterations.resize(3);
  for (size_t i = 0; i < run.iterations.size(); ++i) {
    run.iterations[i].index = static_cast<uint32_t>(i + 1);
    run.iterations[i].name = "step " + std::to_string(i + 1);
  }
  run.timeline.push_back({});
  run.timeline.back().points.push_back({10, 1, 2, 3});
  report::MergedReport merged = analysis::mergeRuns({run, analysis::Report{}}, std::nullopt);
  CHECK(toJsonText(merged) == dumped(toJson(merged)) + "\n");
}

}  // namespace
}  // namespace memfloor::report

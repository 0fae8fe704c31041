// Tests of the facts: merging keeps a site seen in two units once; the JSON form round-trips.
#include "checker/facts.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace memfloor::checker {
namespace {

Facts unit(const std::string& name) {
  Facts f;
  f.units = {name};
  f.records["ns::Layer"] = {"ns::Base"};
  f.fields["ns::Layer::m_"] = {
      "ns::Layer::m_", "m_", "ns::Layer", HandleKind::kSmartPointer, {"layer.h", 3, 5, 40}};
  f.events.push_back({EventKind::kRelease,
                      "ns::Layer::m_",
                      "ns::Layer::post()",
                      "= nullptr",
                      true,
                      {"layer.h", 10, 7, 120}});
  CallSite c;
  c.method = "ns::I::use()";
  c.handle = "m_";
  c.loc = {"layer.h", 9, 7, 100};
  c.released.candidates.push_back(
      {"ns::Layer::drop()", "ns::Layer::m_", "drop", true, {"layer.h", 11, 3, 130}});
  f.calls.push_back(c);
  f.derefs.push_back({"ns::Layer::m_", "ns::Layer::post()", "m_", {"layer.h", 9, 7, 100}, {}});
  f.call_edges.push_back({"ns::Layer::post()", "ns::Layer::drop()", true, {"layer.h", 11, 3, 130}});
  return f;
}

TEST_CASE("Merging keeps sites from a header seen by two units once", "[facts]") {
  Facts a = unit("a.cpp");
  a.merge(unit("b.cpp"));
  CHECK(a.units == std::vector<std::string>{"a.cpp", "b.cpp"});
  CHECK(a.events.size() == 1);
  CHECK(a.calls.size() == 1);
  CHECK(a.derefs.size() == 1);
  CHECK(a.call_edges.size() == 1);
  CHECK(a.records.at("ns::Layer") == std::vector<std::string>{"ns::Base"});
}

TEST_CASE("Facts round-trip through JSON", "[facts]") {
  const Facts a = unit("a.cpp");
  const nlohmann::json json = toJson(a);
  CHECK(json.at("schema") == kFactsSchema);
  const Facts b = factsFromJson(json);
  CHECK(toJson(b) == json);
  CHECK(b.calls.front().released.candidates.front().all_paths);
  CHECK(b.fields.at("ns::Layer::m_").kind == HandleKind::kSmartPointer);
  CHECK(b.call_edges.front().on_this);
}

TEST_CASE("Facts written before call edges existed are read without them", "[facts]") {
  nlohmann::json json = toJson(unit("a.cpp"));
  json.erase("call_edges");
  const Facts b = factsFromJson(json);
  CHECK(b.call_edges.empty());
  CHECK(b.calls.size() == 1);
}

TEST_CASE("Malformed facts documents are refused", "[facts]") {
  CHECK_THROWS_AS(factsFromJson(nlohmann::json{{"schema", "memfloor.facts/9"}}), Error);
  nlohmann::json json = toJson(unit("a.cpp"));
  json["calls"] = 3;
  CHECK_THROWS_WITH(factsFromJson(json), Catch::Contains("malformed"));
}

TEST_CASE("Locations whose numbers do not fit an int are refused", "[facts]") {
  // A float past int's range used to be converted (undefined behaviour), a larger integer wrapped.
  for (const nlohmann::json& offset : {nlohmann::json(1.5e10), nlohmann::json(4294967297),
                                       nlohmann::json(-4294967297), nlohmann::json(2.5)}) {
    nlohmann::json json = toJson(unit("a.cpp"));
    json["calls"][0]["loc"]["offset"] = offset;
    CHECK_THROWS_WITH(factsFromJson(json, "f.json"),
                      Catch::Contains("f.json: malformed") && Catch::Contains("\"offset\""));
  }
  nlohmann::json json = toJson(unit("a.cpp"));
  json["calls"][0]["loc"]["offset"] = 2147483647;
  CHECK(factsFromJson(json).calls.at(0).loc.offset == 2147483647);
}

TEST_CASE("Facts files are read through the common loader, errors naming the file", "[facts]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("memfloor_facts_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  };
  const std::string good = write("a.facts.json", toJson(unit("a.cpp")).dump(1));
  CHECK(loadFacts(good).units == std::vector<std::string>{"a.cpp"});

  const std::string missing = (dir / "missing.json").string();
  CHECK_THROWS_WITH(loadFacts(missing), Catch::Contains(missing + ": cannot open the facts file"));
  const std::string findings = write("findings.json", R"({"schema": "memfloor.findings/1"})");
  CHECK_THROWS_WITH(
      loadFacts(findings),
      Catch::Contains(findings + ": not a facts document (schema "
                                 "\"memfloor.findings/1\", expected \"memfloor.facts/1\")"));
  nlohmann::json bad = toJson(unit("a.cpp"));
  bad["calls"] = 3;
  const std::string malformed = write("bad.facts.json", bad.dump());
  CHECK_THROWS_WITH(loadFacts(malformed),
                    Catch::Contains(malformed + ": malformed facts document"));
  const std::string cut = write("cut.facts.json", R"({"schema": "memfloor.facts/1", "units": [)");
  CHECK_THROWS_WITH(loadFacts(cut), Catch::Contains(cut + ": not JSON"));
  fs::remove_all(dir);
}

TEST_CASE("Python sources are told by their extension", "[facts]") {
  CHECK(isPythonSource("model/layer.py"));
  CHECK(isPythonSource("stubs/torch.pyi"));
  CHECK_FALSE(isPythonSource("layer.cpp"));
  CHECK_FALSE(isPythonSource("layer.pyc"));
  CHECK_FALSE(isPythonSource("py"));
}

}  // namespace
}  // namespace memfloor::checker

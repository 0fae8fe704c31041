// Tests of the facts' fast path: it reads what memfloor writes as the DOM reader does, and leaves
// everything else to it (whose answers and messages are then those of memfloor-check).
#include "checker/facts_reader.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "checker/python_front_end.h"
#include "common/error.h"
#include "common/json_input.h"

namespace memfloor::checker {
namespace {

Facts sample() {
  Facts f;
  f.units = {"a.py", "b.py"};
  f.records["m.Layer"] = {"m.Base", "m.Mixin"};
  f.records["m.Base"] = {};
  f.fields["m.Layer.w"] = {"m.Layer.w", "w", "m.Layer", HandleKind::kContainer, {"a.py", 3, 5, 40}};
  FunctionFact fn{"m.Layer.drop",  "Layer.drop",  "m.Layer",         FunctionKind::kMethod,
                  {"m.Base.drop"}, {"m.Layer.w"}, {"a.py", 9, 1, 80}};
  f.functions[fn.key] = fn;
  f.events.push_back(
      {EventKind::kRelease, "m.Layer.w", "m.Layer.drop", "= None", true, {"a.py", 10, 7, 120}});
  f.events.back().per_call = false;
  CallSite c;
  c.method = "*.use";
  c.handle = "self.w";
  c.persistent = true;
  c.loc = {"b.py", 9, 7, -1};
  c.released.candidates.push_back(
      {"m.Layer.drop", "m.Layer.w", "drop", true, {"a.py", 11, 3, 130}});
  c.released.event_idiom = "del";
  c.fix_indent = "    \"\\\t\u00e9";  // escapes and UTF-8 survive
  f.calls.push_back(c);
  f.derefs.push_back({"m.Layer.w", "m.Layer.drop", "self.w", {"a.py", 9, 7, 100}, {}});
  f.call_edges.push_back({"m.Layer.drop", "m.Base.drop", true, {"a.py", 11, 3, 130}});
  return f;
}

std::string text(const nlohmann::json& json) { return json.dump(1); }

TEST_CASE("The fast path reads what --emit-facts writes as the DOM reader does", "[facts_reader]") {
  const nlohmann::json json = toJson(sample());
  for (const std::string& written : {json.dump(), json.dump(1), json.dump(-1, ' ', true)}) {
    const std::optional<Facts> fast = readFactsText(written);
    REQUIRE(fast);
    CHECK(toJson(*fast) == json);
    CHECK(toJson(factsFromJson(common::parseJson(written, "f"))) == json);
  }
  nlohmann::json old = json;  // before call edges
  old.erase("call_edges");
  const std::optional<Facts> fast = readFactsText(old.dump());
  REQUIRE(fast);
  CHECK(fast->call_edges.empty());
}

TEST_CASE("What the fast path does not read is left to the DOM reader", "[facts_reader]") {
  const nlohmann::json json = toJson(sample());
  const auto with = [&json](const nlohmann::json::json_pointer& at, const nlohmann::json& value) {
    nlohmann::json changed = json;
    changed[at] = value;
    return changed.dump();
  };
  using Pointer = nlohmann::json::json_pointer;
  // Read by the DOM reader, not by the fast path: an enum name it takes for the first value, a
  // key it ignores, a schema of the same major written otherwise.
  for (const std::string& other :
       {with(Pointer("/fields/m.Layer.w/kind"), "box"), with(Pointer("/calls/0/extra"), 1),
        with(Pointer("/schema"), "memfloor.facts/01")}) {
    CHECK_FALSE(readFactsText(other));
    CHECK_NOTHROW(factsFromJson(common::parseJson(other, "f")));
  }
  // Refused by both: the DOM reader says why.
  for (const std::string& bad :
       {with(Pointer("/calls/0/loc/line"), 2.0), with(Pointer("/calls/0/loc/line"), 1LL << 40),
        with(Pointer("/calls/0/persistent"), nullptr), with(Pointer("/units"), "a.py"),
        with(Pointer("/schema"), "memfloor.facts/2"), std::string("{\"units\": [] ]}"),
        std::string("[]"), std::string()}) {
    CHECK_FALSE(readFactsText(bad));
  }
  nlohmann::json no_units = json;
  no_units.erase("units");
  CHECK_FALSE(readFactsText(no_units.dump()));
}

TEST_CASE("A key met twice is the DOM reader's: the last one", "[facts_reader]") {
  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("memfloor_facts_reader_" + std::to_string(::getpid()) + ".json");
  std::string written = toJson(sample()).dump();
  written.insert(1, R"("units": ["first.py"], )");
  CHECK_FALSE(readFactsText(written));
  std::ofstream(path, std::ios::binary) << written;
  CHECK(loadFacts(path.string()).units == std::vector<std::string>{"a.py", "b.py"});
  // And a malformed file gets the DOM reader's message.
  std::ofstream(path, std::ios::binary) << text(nlohmann::json{{"schema", kFactsSchema}});
  CHECK_THROWS_WITH(loadFacts(path.string()),
                    Catch::Contains(path.string() + ": malformed facts document") &&
                        Catch::Contains("key 'units' not found"));
  fs::remove(path);
}

TEST_CASE("The front end's envelope is read with its errors and counts", "[facts_reader]") {
  nlohmann::json envelope{{"schema", kPyFactsSchema},
                          {"errors", {"c.py:1: cannot parse"}},
                          {"files", 2},
                          {"bytes", 90},
                          {"facts", toJson(sample())}};
  const std::optional<FrontEndOutput> read = readFrontEndText(envelope.dump(), kPyFactsSchema);
  REQUIRE(read);
  CHECK(toJson(read->facts) == toJson(sample()));
  CHECK(read->errors == std::vector<std::string>{"c.py:1: cannot parse"});
  CHECK(read->files == 2);
  CHECK(read->bytes == 90);
  // In pieces, as a child's output is read: cut anywhere, empty ones between.
  const std::string whole = envelope.dump();
  for (const std::size_t cut : {std::size_t{1}, std::size_t{7}, whole.size() / 2}) {
    std::vector<std::string> pieces{""};
    for (std::size_t at = 0; at < whole.size(); at += cut) {
      pieces.push_back(whole.substr(at, cut));
      pieces.emplace_back();
    }
    const std::optional<FrontEndOutput> again = readFrontEndText(pieces, kPyFactsSchema);
    REQUIRE(again);
    CHECK(toJson(again->facts) == toJson(sample()));
    CHECK(again->errors == read->errors);
  }
  CHECK_FALSE(readFrontEndText(std::vector<std::string>{"", whole.substr(1)}, kPyFactsSchema));
  CHECK_FALSE(readFrontEndText(envelope.dump(), "memfloor.pyfacts/2"));
  envelope["files"] = -1;
  CHECK_FALSE(readFrontEndText(envelope.dump(), kPyFactsSchema));
  envelope["files"] = 2;
  envelope["facts"]["schema"] = "memfloor.facts/2";
  CHECK_FALSE(readFrontEndText(envelope.dump(), kPyFactsSchema));
  envelope.erase("facts");
  CHECK_FALSE(readFrontEndText(envelope.dump(), kPyFactsSchema));
}

}  // namespace
}  // namespace memfloor::checker

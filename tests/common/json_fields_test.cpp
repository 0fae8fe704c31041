// Tests of common/json_fields: each accessor's check and the error naming file and field.
#include "common/json_fields.h"

#include <catch2/catch.hpp>

#include "common/error.h"

namespace memfloor::common {
namespace {

using Catch::Matchers::Contains;
using nlohmann::json;

// An enum read by its name, as the readers' enums are (toString found by argument lookup).
enum class Verdict { kStable, kGrowing };
constexpr std::array<Verdict, 2> kTwo = {Verdict::kStable, Verdict::kGrowing};
std::string_view toString(Verdict v) { return v == Verdict::kStable ? "stable" : "growing"; }

const JsonFields f("r.json");

TEST_CASE("json_fields: members of the right type are read") {
  const json doc =
      json::parse(R"({"s": "x", "b": true, "n": 7, "neg": -3, "big": 18446744073709551615,
                                   "o": {"k": "v"}, "a": [1, 2], "v": "growing", "nul": null})");
  CHECK(f.string(doc, "", "s") == "x");
  CHECK(f.boolean(doc, "", "b"));
  CHECK(f.u32(doc, "", "n") == 7);
  CHECK(f.u16(doc, "", "n") == 7);
  CHECK(f.i32(doc, "", "neg") == -3);
  CHECK(f.i64(doc, "", "n") == 7);
  CHECK(f.u64(doc, "", "big") == UINT64_MAX);
  CHECK(f.stringMap(doc, "", "o") == std::map<std::string, std::string>{{"k", "v"}});
  CHECK(f.array(doc, "", "a").size() == 2);
  CHECK(f.number(doc.at("n"), "n") == 7.0);
  CHECK(f.number(json(0.5), "x") == 0.5);
  CHECK(f.strings(json::parse(R"({"l": ["a", "b"]})"), "", "l") ==
        std::vector<std::string>{"a", "b"});
  CHECK(f.optional(doc, "", "nul") == nullptr);
  CHECK(f.optional(doc, "", "absent") == nullptr);
  CHECK(f.optional(doc, "", "n") != nullptr);
  CHECK(f.name(doc, "", "v", kTwo) == Verdict::kGrowing);
  std::vector<std::string> names;
  f.each(doc, "ctx", "a", [&](const json&, const std::string& name) { names.push_back(name); });
  CHECK(names == std::vector<std::string>{"ctx.a[0]", "ctx.a[1]"});
}

TEST_CASE("json_fields: errors name the file and the field") {
  const json doc =
      json::parse(R"({"n": 70000, "neg": -1, "f": 0.5, "s": 3, "big": 9223372036854775808,
                                   "v": "wavy", "o": {"k": 1}})");
  CHECK_THROWS_WITH(f.u32(doc, "runs[0]", "missing"), Contains("r.json: runs[0].missing: missing"));
  CHECK_THROWS_WITH(f.u16(doc, "", "n"), Contains("r.json: n: value out of range"));
  CHECK_THROWS_WITH(f.u64(doc, "", "neg"), Contains("neg: expected an unsigned integer"));
  CHECK_THROWS_WITH(f.i64(doc, "", "f"), Contains("f: expected an integer"));
  CHECK_THROWS_WITH(f.i64(doc, "", "big"), Contains("big: value out of range"));
  CHECK_THROWS_WITH(f.bytes(doc, "", "big"), Contains("big: value out of range"));
  CHECK(f.u64(doc, "", "big") == (uint64_t{1} << 63));
  CHECK_THROWS_WITH(f.string(doc, "", "s"), Contains("s: expected a string"));
  CHECK_THROWS_WITH(f.boolean(doc, "", "s"), Contains("s: expected true or false"));
  CHECK_THROWS_WITH(f.array(doc, "", "o"), Contains("o: expected an array"));
  CHECK_THROWS_WITH(f.stringMap(doc, "", "o"), Contains("o.k: expected a string"));
  CHECK_THROWS_WITH(f.number(doc.at("v"), "v"), Contains("r.json: v: expected a number"));
  CHECK_THROWS_WITH(f.strings(doc, "", "o"), Contains("r.json: o: expected a list of strings"));
  CHECK_THROWS_WITH(f.strings(json::parse(R"({"l": ["a", 2]})"), "c", "l"),
                    Contains("r.json: c.l[1]: expected a string"));
  CHECK_THROWS_WITH(f.member(json::array(), "", "x"), Contains("r.json: expected an object"));
  CHECK_THROWS_WITH(f.name(doc, "", "v", kTwo),
                    Contains("v: expected one of stable, growing, not \"wavy\""));
  CHECK_THROWS_AS(f.object(doc, "", "n"), Error);
}

}  // namespace
}  // namespace memfloor::common

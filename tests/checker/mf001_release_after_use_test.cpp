// Tests of MF001 on facts written by hand: the fix-it statement in the site's language, terminal
// methods named the C++ or the Python way, and the MF004 at an MF001 site folded into it.
#include "checker/rules/mf001_release_after_use.h"

#include <catch2/catch.hpp>

#include "checker/rules/rule.h"

namespace memfloor::checker {
namespace {

constexpr int kTeacherLine = 3;
constexpr int kSiteLine = 8;
constexpr int kReleaseStateLine = 20;

SourceLoc at(const std::string& file, int line) {
  SourceLoc loc;
  loc.file = file;
  loc.line = line;
  return loc;
}

FunctionFact method(const std::string& key, const std::string& display, const std::string& record) {
  FunctionFact f;
  f.key = key;
  f.display = display;
  f.record = record;
  f.kind = FunctionKind::kMethod;
  return f;
}

// `Layer.finish` calls commit() on self.manager and releases it (`idiom`); `Layer.replay` calls
// commit() and keeps it. Both in `file`.
Facts program(const std::string& file, const std::string& idiom) {
  Facts facts;
  facts.units = {file};
  facts.functions["layer.Layer.finish"] =
      method("layer.Layer.finish", "Layer.finish", "layer.Layer");
  facts.functions["layer.Layer.replay"] =
      method("layer.Layer.replay", "Layer.replay", "layer.Layer");
  CallSite teacher;
  teacher.method = "layer.Manager.commit";
  teacher.method_display = "Manager.commit";
  teacher.receiver_record = "layer.Manager";
  teacher.field = "layer.Layer.manager";
  teacher.function = "layer.Layer.finish";
  teacher.handle = "self.manager";
  teacher.handle_is_pointer = true;
  teacher.persistent = true;
  teacher.loc = at(file, kTeacherLine);
  teacher.released.direct = true;
  teacher.released.event = at(file, kTeacherLine + 1);
  teacher.released.event_idiom = idiom;
  CallSite site = teacher;
  site.function = "layer.Layer.replay";
  site.loc = at(file, kSiteLine);
  site.released = PathFacts{};
  site.fix_after = at(file, kSiteLine);
  site.fix_indent = "        ";
  facts.calls = {teacher, site};
  return facts;
}

// `teacher` releases its handle by calling `method` on every path after its call: a method of the
// object (`owner_field` empty) or of the object holding the field `owner_field`.
void releasedByCall(CallSite& teacher, const std::string& method, const std::string& owner_field) {
  Candidate call;
  call.method = method;
  call.field = owner_field;
  call.name = method.substr(method.rfind('.') + 1);
  call.all_paths = true;
  call.loc = at(teacher.loc.file, kTeacherLine + 1);
  teacher.released = PathFacts{};
  teacher.released.candidates.push_back(call);
}

// A dereference of the layer's self.manager in `function` at `line` of layer.py, with no None
// check.
DerefSite uncheckedUse(const std::string& function, int line) {
  DerefSite use;
  use.field = "layer.Layer.manager";
  use.function = function;
  use.handle = "self.manager";
  use.loc = at("layer.py", line);
  return use;
}

std::vector<Finding> mf001(const Facts& facts, const Config& config = Config{}) {
  std::vector<Finding> found;
  ReleaseAfterUseRule(config).check(Program(facts), found);
  return found;
}

std::string fixOf(const Facts& facts) {
  const std::vector<Finding> found = mf001(facts);
  REQUIRE(found.size() == 1);
  REQUIRE(found.front().loc.line == kSiteLine);
  REQUIRE(found.front().fixits.size() == 1);
  return found.front().fixits.front().replacement;
}

TEST_CASE("In a Python file the fix-it is a Python statement", "[mf001]") {
  CHECK(fixOf(program("layer.py", "= None")) == "\n        self.manager = None");
  CHECK(fixOf(program("layer.py", "del")) == "\n        del self.manager");
  CHECK(fixOf(program("layer.py", ".clear()")) == "\n        self.manager.clear()");
  CHECK(fixOf(program("stubs/layer.pyi", "= nullptr")) == "\n        self.manager = None");
  CHECK(fixOf(program("layer.cpp", "= nullptr")) == "\n        self.manager = nullptr;");
}

TEST_CASE("A Python release through a method call is written as that call", "[mf001]") {
  // The teacher calls release_state() on the manager, a method that releases its own state.
  Facts facts = program("layer.py", "");
  releasedByCall(facts.calls.front(), "layer.Manager.release_state", "");
  facts.functions["layer.Manager.release_state"] =
      method("layer.Manager.release_state", "Manager.release_state", "layer.Manager");
  facts.events.push_back({EventKind::kRelease, "layer.Manager.saved", "layer.Manager.release_state",
                          "= None", true, at("layer.py", kReleaseStateLine)});
  CHECK(fixOf(facts) == "\n        self.manager.release_state()");
}

TEST_CASE("Terminal methods match Python displays too", "[mf001]") {
  Facts facts = program("layer.py", "= None");
  facts.calls.erase(facts.calls.begin());  // no teacher: only the configuration says it
  CHECK(mf001(facts).empty());
  Config config;
  config.terminal_methods = {"commit"};
  CHECK(mf001(facts, config).size() == 1);
  config.terminal_methods = {"Manager.commit"};
  CHECK(mf001(facts, config).size() == 1);
  config.terminal_methods = {"mit"};  // a suffix of the name is not the name
  CHECK(mf001(facts, config).empty());
}

TEST_CASE("An unguarded use that MF001 explains is one finding, with MF004 as its note",
          "[mf001][mf004]") {
  // Layer.finish releases self.manager (an event); Layer.replay dereferences it unguarded at the
  // site MF001 reports, and again on a later line where no call is kept.
  Facts facts = program("layer.py", "= None");
  facts.events.push_back({EventKind::kRelease, "layer.Layer.manager", "layer.Layer.finish",
                          "= None", true, at("layer.py", kTeacherLine + 1)});
  facts.derefs = {uncheckedUse("layer.Layer.replay", kSiteLine)};
  Config config;
  config.mf004_python = true;  // MF004 is opt-in at Python sites
  const std::vector<Finding> folded = runRules(facts, config);
  REQUIRE(folded.size() == 1);
  CHECK(folded.front().rule == "MF001");
  REQUIRE(folded.front().related.size() == 3);  // the teacher's call, its release, the MF004
  CHECK(folded.front().related.back().loc.line == kSiteLine);
  CHECK_THAT(folded.front().related.back().message,
             Catch::StartsWith("'self.manager' is dereferenced in 'Layer.replay'") &&
                 Catch::EndsWith("[MF004]"));
  // With MF001 off, or on another line, MF004 is reported as before.
  Config no_mf001 = config;
  no_mf001.disabled_rules = {"MF001"};
  const std::vector<Finding> alone = runRules(facts, no_mf001);
  REQUIRE(alone.size() == 1);
  CHECK(alone.front().rule == "MF004");
  facts.derefs.front().loc.line = kSiteLine + 1;
  const std::vector<Finding> apart = runRules(facts, config);
  REQUIRE(apart.size() == 2);
  CHECK(apart[0].rule == "MF001");
  CHECK(apart[1].rule == "MF004");
  // With the defaults MF004 says nothing at a Python site; MF001 still names the unguarded use
  // and offers no fix-it, which would leave it to fail on None.
  const std::vector<Finding> defaults = runRules(facts, Config{});
  REQUIRE(defaults.size() == 1);
  CHECK(defaults.front().rule == "MF001");
  CHECK(defaults.front().fixits.empty());
  CHECK_THAT(defaults.front().message, Catch::Contains("checks it for None"));
}

TEST_CASE("A call that is its member's only unchecked use gets the release under a None check",
          "[mf001]") {
  // Layer.replay's call dereferences self.manager with no check, and nothing else does.
  Facts facts = program("layer.py", "= None");
  facts.derefs = {uncheckedUse("layer.Layer.replay", kSiteLine)};
  facts.calls.back().guard_at = at("layer.py", kSiteLine);
  std::vector<Finding> found = mf001(facts);
  REQUIRE(found.size() == 1);
  REQUIRE(found.front().fixits.size() == 2);  // one edit: the check before, the release after
  CHECK(found.front().fixits[0].replacement == "if self.manager is not None:\n            ");
  CHECK(found.front().fixits[1].replacement == "\n            self.manager = None");
  CHECK_THAT(found.front().message,
             Catch::EndsWith("the fix-it checks it for None before this use"));
  // A statement the check cannot skip (it binds a new name: no guard_at) is said in words.
  facts.calls.back().guard_at = SourceLoc{};
  found = mf001(facts);
  REQUIRE(found.size() == 1);
  CHECK(found.front().fixits.empty());
  CHECK_THAT(found.front().message,
             Catch::EndsWith("release it ('self.manager = None') once 'Layer.replay' checks it "
                             "for None before this use"));
  // Another unchecked use: the check at the site would not cover it; named by its line and noted.
  facts.calls.back().guard_at = at("layer.py", kSiteLine);
  facts.derefs.push_back(uncheckedUse("layer.Layer.finish", kTeacherLine));
  found = mf001(facts);
  REQUIRE(found.size() == 1);
  CHECK(found.front().fixits.empty());
  CHECK_THAT(found.front().message, Catch::EndsWith("before its use at line 3"));
  CHECK(found.front().related.back().loc.line == kTeacherLine);
  // In another file: its name (the note carries the whole location).
  facts.derefs.back().loc.file = "/abs/pkg/other.py";
  CHECK_THAT(mf001(facts).front().message, Catch::EndsWith("before its use at other.py:3"));
}

TEST_CASE("A release through the owner's method is written for this site's owner", "[mf001]") {
  // The teacher calls self.drop(), a method of the layer that sets self.manager to None.
  Facts facts = program("layer.py", "");
  releasedByCall(facts.calls.front(), "layer.Layer.drop", facts.calls.front().field);
  facts.functions["layer.Layer.drop"] = method("layer.Layer.drop", "Layer.drop", "layer.Layer");
  facts.events.push_back({EventKind::kRelease, "layer.Layer.manager", "layer.Layer.drop", "= None",
                          true, at("layer.py", kReleaseStateLine)});
  CHECK(fixOf(facts) == "\n        self.drop()");
  // On another field (the layer's method is no method of that field's owner): no statement.
  facts.calls.back().field = "layer.Other.manager";
  facts.calls.back().handle = "self.other.manager";
  facts.calls.front().field = "";  // the belief is the type's only
  const std::vector<Finding> found = mf001(facts);
  REQUIRE(found.size() == 1);
  CHECK(found.front().fixits.empty());
}

}  // namespace
}  // namespace memfloor::checker

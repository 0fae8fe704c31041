// Tests of the holder classes: each rule, in order, against the census before, and the time class
// of a block when no census before says more.
#include "analysis/holder_classes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace memfloor::analysis::test {
namespace {

using Entry = HolderHistory::Entry;

const HolderClass kTimeInter{RetentionClass::kInterIteration, "time: inter"};
const HolderClass kTimeLeak{RetentionClass::kLeak, "time: leak"};

TEST_CASE("A container is a path without its last index or key", "[holders]") {
  CHECK(containerOf("trainer.losses[3]") == "trainer.losses");
  CHECK(containerOf("cache['k']") == "cache");
  CHECK(containerOf("a.b[1][2]") == "a.b[1]");
  CHECK(containerOf("optimizer.state[model.w]['exp_avg']") == "optimizer.state[model.w]");
  CHECK(containerOf("model.weight") == "");
  CHECK(containerOf("a[1].b") == "");
  CHECK(containerOf("[1]") == "");  // no container before it
  CHECK(containerOf("") == "");
}

TEST_CASE("Censuses are named by their step, else by their iteration", "[holders]") {
  CHECK(censusName(7, 3) == "the census at step 7");
  CHECK(censusName(0, 3) == "the census after iteration 3");
}

TEST_CASE("The first census of a device: roles, else the blocks' time classes", "[holders]") {
  HolderHistory history;
  const std::vector<HolderClass> classes =
      history.next({{"model.weight", 0x100, trace::HeldRole::kParameter, kTimeLeak},
                    {"model.planted", 0x200, trace::HeldRole::kOther, kTimeInter},
                    {"optimizer.state[model.weight]['exp_avg']", 0x300,
                     trace::HeldRole::kOptimizerState, kTimeInter}},
                   censusName(1, 1));
  REQUIRE(classes.size() == 3);
  CHECK(classes[0] == HolderClass{RetentionClass::kPersistent, "role: parameter"});
  CHECK(classes[1] == kTimeInter);
  CHECK(classes[2] == HolderClass{RetentionClass::kPersistent, "role: optimizer_state"});
}

TEST_CASE("Later censuses: replaced, the same storage since, a container that grew", "[holders]") {
  HolderHistory history;
  history.next({{"model.planted", 0x200, trace::HeldRole::kOther, kTimeInter},
                {"model.cache", 0x400, trace::HeldRole::kOther, kTimeLeak},
                {"losses[0]", 0x500, trace::HeldRole::kOther, kTimeLeak},
                {"fixed[0]", 0x600, trace::HeldRole::kOther, kTimeLeak}},
               censusName(1, 1));
  std::vector<HolderClass> classes =
      history.next({{"model.planted", 0x210, trace::HeldRole::kOther, kTimeLeak},
                    {"model.cache", 0x400, trace::HeldRole::kOther, kTimeLeak},
                    {"losses[0]", 0x500, trace::HeldRole::kOther, kTimeLeak},
                    {"losses[1]", 0x510, trace::HeldRole::kOther, kTimeInter},
                    {"fixed[0]", 0x610, trace::HeldRole::kOther, kTimeLeak},
                    {"model.new", 0x700, trace::HeldRole::kOther, kTimeInter}},
                   censusName(2, 2));
  REQUIRE(classes.size() == 6);
  CHECK(classes[0] ==
        HolderClass{RetentionClass::kInterIteration, "replaced since the census at step 1"});
  CHECK(classes[1] ==
        HolderClass{RetentionClass::kPersistent, "same storage since the census at step 1"});
  // Every element of a container that grew, the one kept since the census before as well.
  const HolderClass grew{RetentionClass::kLeak,
                         "container grew from 1 to 2 elements since the census at step 1"};
  CHECK(classes[2] == grew);
  CHECK(classes[3] == grew);
  // A container of as many elements as before: its element was replaced.
  CHECK(classes[4] ==
        HolderClass{RetentionClass::kInterIteration, "replaced since the census at step 1"});
  CHECK(classes[5] == kTimeInter);  // a new path

  // The same storage is named since the census where it first had its address; the comparison is
  // always with the census just before.
  classes = history.next({{"model.cache", 0x400, trace::HeldRole::kOther, kTimeLeak},
                          {"model.planted", 0x210, trace::HeldRole::kOther, kTimeLeak},
                          {"losses[0]", 0x500, trace::HeldRole::kOther, kTimeLeak},
                          {"losses[1]", 0x510, trace::HeldRole::kOther, kTimeLeak}},
                         censusName(0, 3));
  REQUIRE(classes.size() == 4);
  CHECK(classes[0].rule == "same storage since the census at step 1");
  CHECK(classes[1].rule == "same storage since the census at step 2");
  CHECK(classes[2].rule == "same storage since the census at step 1");  // no longer growing
  CHECK(classes[3].rule == "same storage since the census at step 2");
  classes = history.next({{"model.planted", 0x220, trace::HeldRole::kOther, kTimeLeak}},
                         censusName(4, 4));
  CHECK(classes.at(0).rule == "replaced since the census after iteration 3");
}

TEST_CASE("Time classes follow the retention rules", "[holders]") {
  CHECK(timeClass({.born_persistent = true, .freed_in_run = true}).cls ==
        RetentionClass::kPersistent);
  CHECK(timeClass({.freed_in_run = true}) ==
        HolderClass{RetentionClass::kInterIteration,
                    "time: inter-iteration (freed before the run's end)"});
  CHECK(timeClass({.site_fate = RetentionClass::kLeak}).cls == RetentionClass::kLeak);
  CHECK(timeClass({.site_fate = RetentionClass::kInterIteration}).cls ==
        RetentionClass::kInterIteration);
  CHECK(timeClass({.site_fate = RetentionClass::kPersistent}).cls == RetentionClass::kPersistent);
  CHECK(timeClass({}) == HolderClass{RetentionClass::kPersistent,
                                     "time: persistent (made once and kept to the run's end)"});
}

}  // namespace
}  // namespace memfloor::analysis::test

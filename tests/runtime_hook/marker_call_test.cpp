// The markers C API's arguments as markers.
#include "runtime_hook/marker_call.h"

#include <memfloor/markers.h>

#include <catch2/catch.hpp>

using namespace memfloor;
using namespace memfloor::hook;

TEST_CASE("the C API's types are the trace's marker types", "[runtime_hook]") {
  MarkerCall m;
  REQUIRE(apiMarkerCall(MEMFLOOR_MARKER_PUSH, "iteration", 0, m));
  CHECK(m.type == trace::MarkerType::kPush);
  CHECK(m.name == "iteration");
  CHECK(m.id == 0);
  CHECK(m.domain == "memfloor");

  REQUIRE(apiMarkerCall(MEMFLOOR_MARKER_POP, nullptr, 0, m));
  CHECK(m.type == trace::MarkerType::kPop);
  CHECK(m.name.empty());

  REQUIRE(apiMarkerCall(MEMFLOOR_MARKER_START, "epoch", 9, m));
  CHECK(m.type == trace::MarkerType::kStart);
  CHECK(m.id == 9);
  REQUIRE(apiMarkerCall(MEMFLOOR_MARKER_END, nullptr, 9, m));
  CHECK(m.type == trace::MarkerType::kEnd);
  CHECK(m.id == 9);
  REQUIRE(apiMarkerCall(MEMFLOOR_MARKER_INSTANT, "checkpoint", 0, m));
  CHECK(m.type == trace::MarkerType::kInstant);
  CHECK(m.domain == kApiMarkerDomain);
}

TEST_CASE("a type the trace does not know is refused", "[runtime_hook]") {
  MarkerCall m;
  m.name = "kept";
  CHECK_FALSE(apiMarkerCall(-1, "x", 0, m));
  CHECK_FALSE(apiMarkerCall(5, "x", 0, m));
  CHECK_FALSE(apiMarkerCall(1000, "x", 0, m));
  CHECK(m.name == "kept");
}

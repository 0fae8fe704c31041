// Tests of the report's small helpers: enum names and the dominant retention class.
#include "analysis/report.h"

#include <catch2/catch.hpp>

#include "invariants.h"

namespace memfloor::analysis {
namespace {

TEST_CASE("Report enums have stable JSON names", "[report]") {
  CHECK(toString(RetentionClass::kInterIteration) == "inter_iteration");
  CHECK(toString(RetentionClass::kLeak) == "leak");
  CHECK(toString(RetentionClass::kPersistent) == "persistent");
  CHECK(toString(TrendVerdict::kGrowing) == "growing");
  CHECK(toString(TrendVerdict::kStable) == "stable");
  CHECK(toString(TrendVerdict::kUnknown) == "unknown");
  CHECK(toString(IterationSource::kMarkers) == "markers");
  CHECK_FALSE(toolVersion().empty());
}

TEST_CASE("The dominant class holds the most bytes", "[report]") {
  RetainedTally r;
  CHECK(r.dominant() == RetentionClass::kInterIteration);
  r.persistent = {100, 1};
  CHECK(r.dominant() == RetentionClass::kPersistent);
  r.leak = {200, 2};
  CHECK(r.dominant() == RetentionClass::kLeak);
  CHECK(r.total() == Tally{300, 3});
}

}  // namespace
}  // namespace memfloor::analysis

// Tests of the report's small helpers: enum names, the dominant classes, a peak's total.
#include <catch2/catch.hpp>

#include "analysis/report.h"
#include "tests/analysis/invariants.h"

namespace memfloor::report {
namespace {

TEST_CASE("Report enums have stable JSON names", "[report]") {
  CHECK(toString(RetentionClass::kInterIteration) == "inter_iteration");
  CHECK(toString(RetentionClass::kLeak) == "leak");
  CHECK(toString(RetentionClass::kPersistent) == "persistent");
  CHECK(toString(TrendVerdict::kGrowing) == "growing");
  CHECK(toString(TrendVerdict::kStable) == "stable");
  CHECK(toString(TrendVerdict::kUnknown) == "unknown");
  CHECK(toString(IterationSource::kMarkers) == "markers");
  CHECK(toString(PeakClass::kIteration) == "iteration");
  CHECK(toString(PeakClass::kEarlierIteration) == "earlier_iteration");
  CHECK(toString(PeakClass::kInterIteration) == "inter_iteration");
  CHECK(toString(PeakClass::kLeak) == "leak");
  CHECK(toString(PeakClass::kPersistent) == "persistent");
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

TEST_CASE("A peak's classes sum to its total; the dominant one holds the most", "[report]") {
  PeakTally p;
  CHECK(p.dominant() == PeakClass::kIteration);
  p.persistent = {100, 1};
  CHECK(p.dominant() == PeakClass::kPersistent);
  p.earlier_iteration = {100, 2};
  CHECK(p.dominant() == PeakClass::kEarlierIteration);  // ties: the earlier class
  p.leak = {300, 1};
  p.iteration = {50, 5};
  p.inter_iteration = {7, 1};
  CHECK(p.dominant() == PeakClass::kLeak);
  CHECK(p.total() == Tally{557, 10});
}

}  // namespace
}  // namespace memfloor::report

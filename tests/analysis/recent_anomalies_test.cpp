// Tests of analysis/recent_anomalies.h and the cut tail of an analysis: what falls in a cut trace's
// last flush period is kept apart.
#include "analysis/recent_anomalies.h"

#include <catch2/catch.hpp>

#include "checked_analysis.h"
#include "report/report_json.h"
#include "reports/report_table.h"
#include "trace_builder.h"

namespace memfloor::analysis::test {
namespace {

TEST_CASE("RecentAnomalies sums the anomalies since a time, over the last two periods",
          "[recent_anomalies]") {
  RecentAnomalies recent;
  recent.add(5, true, 100);  // no period yet: nothing is kept
  recent.setPeriod(320);     // buckets 11 ns wide, 64 of them
  recent.add(1000, true, 100);
  recent.add(1500, false, 7);
  recent.add(1600, false, 8);
  recent.add(1601, true, 50);
  CutTail all = recent.since(0);
  CHECK(all.known);
  CHECK(all.double_allocations == Tally{150, 2});
  CHECK(all.unmatched_frees == Tally{15, 2});
  // From 1550 on: the bucket of 1550 (1540..1550) and later.
  CutTail late = recent.since(1550);
  CHECK(late.from_ns == 1550);
  CHECK(late.unmatched_frees == Tally{8, 1});
  CHECK(late.double_allocations == Tally{50, 1});
  CHECK(recent.since(2000).unmatched_frees.count == 0);
  // Over two periods later the old buckets are gone; an old, out-of-order one is not counted.
  recent.add(1601 + 2 * 320 + 100, false, 1);
  recent.add(1000, true, 9);
  CutTail after = recent.since(0);
  CHECK(after.unmatched_frees == Tally{1, 1});
  CHECK(after.double_allocations.count == 0);
}

// Timestamps are untrusted: near 2^64 nothing may wrap (a wrapped bound once meant a loop of 2^64
// steps).
TEST_CASE("RecentAnomalies at the end of the timestamp range", "[recent_anomalies]") {
  RecentAnomalies recent;
  recent.setPeriod(1);  // buckets 1 ns wide
  recent.add(UINT64_MAX - 100, true, 1);
  recent.add(UINT64_MAX, false, 2);
  recent.add(0, false, 4);  // far older than the window
  CutTail tail = recent.since(0);
  CHECK(tail.double_allocations == Tally{0, 0});  // 100 buckets back: out of the window
  CHECK(tail.unmatched_frees == Tally{2, 1});
  CHECK(recent.since(UINT64_MAX).unmatched_frees == Tally{2, 1});
  recent.setPeriod(UINT64_MAX);
  recent.add(UINT64_MAX, true, 8);
  CHECK(recent.since(0).double_allocations == Tally{8, 1});
}

// A hook trace cut by SIGKILL: the frees of the last period were lost, so the allocations that
// reuse their addresses look like double allocations, and one free has lost its allocation.
std::vector<trace::Record> cutTrace() {
  TraceBuilder t;
  const trace::StringId key = t.name("hook.flush_period_ms");
  t.record(trace::Property{key, t.name("1")});
  t.alloc(1'000'000, 0x1000, 64).alloc(1'100'000, 0x1000, 64);  // an early double allocation
  t.alloc(5'000'000, 0x2000, 32);
  t.alloc(9'500'000, 0x3000, 16);
  // The cut: one period before the last memory record (10'800'000) is 9'800'000.
  t.free(10'000'000, 0x4000, {}, 8);
  t.alloc(10'500'000, 0x2000, 32);
  t.alloc(10'800'000, 0x3000, 16);
  return t.records();
}

Report analyzeCut(bool complete) {
  return analyzeBytes(encodeTrace(cutTrace(), complete), "cut.mftrace");
}

TEST_CASE("A cut trace keeps the anomalies of its last flush period apart", "[recent_anomalies]") {
  const Report r = analyzeCut(false);
  CHECK(r.anomalies.double_allocations == Tally{112, 3});
  CHECK(r.anomalies.unmatched_frees == Tally{8, 1});
  const CutTail& tail = r.anomalies.cut_tail;
  REQUIRE(tail.known);
  CHECK(tail.from_ns == 9'800'000);
  CHECK(tail.double_allocations == Tally{48, 2});
  CHECK(tail.unmatched_frees == Tally{8, 1});
  CHECK(report::toJson(r)["anomalies"]["cut_tail"]["from_ns"] == 9'800'000);
  CHECK(reports::formatTable(r).find("the trace was cut") != std::string::npos);
}

TEST_CASE("A complete trace, or one without the flush period, has no cut tail",
          "[recent_anomalies]") {
  const Report complete = analyzeCut(true);
  CHECK_FALSE(complete.anomalies.cut_tail.known);
  CHECK(report::toJson(complete)["anomalies"]["cut_tail"].is_null());
  CHECK(reports::formatTable(complete).find("the trace was cut") == std::string::npos);

  std::vector<trace::Record> without_period = cutTrace();
  std::erase_if(without_period,
                [](const trace::Record& r) { return std::holds_alternative<trace::Property>(r); });
  const Report unknown = analyzeBytes(encodeTrace(without_period, false), "cut.mftrace");
  REQUIRE_FALSE(unknown.input.complete);
  CHECK_FALSE(unknown.anomalies.cut_tail.known);
}

}  // namespace
}  // namespace memfloor::analysis::test

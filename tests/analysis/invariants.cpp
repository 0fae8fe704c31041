// checkInvariants: Catch2 checks of the report invariants (see invariants.h).
#include "invariants.h"

#include <catch2/catch.hpp>
#include <optional>

#include "report/iteration_ranges.h"
#include "report/levels.h"

namespace memfloor::analysis::test {

const IterationMemory& memoryOf(const IterationRow& row, uint32_t device, trace::MemoryKind kind) {
  for (const IterationMemory& m : row.memory) {
    if (m.key == MemoryKey{device, kind}) return m;
  }
  FAIL("iteration " << row.index << " has no memory " << device << ":" << trace::toString(kind));
  throw;  // unreachable: FAIL throws
}

namespace {

// The peak's classes sum to the peak; its sites hold part of each class, ranked by bytes.
void checkPeak(const IterationRow& row, const IterationMemory& m) {
  REQUIRE(m.peak_composition.has_value());
  const PeakSnapshot& at_peak = *m.peak_composition;
  CHECK(at_peak.live.total().bytes == m.peak);
  CHECK(at_peak.at_ns >= row.start_ns);
  CHECK(at_peak.at_ns <= row.end_ns);
  if (row.index == 1) {
    CHECK(at_peak.live.inter_iteration == Tally{});
    CHECK(at_peak.live.leak == Tally{});
    CHECK(at_peak.live.earlier_iteration == Tally{});  // the prelude is persistent
  }
  PeakTally sites;
  uint64_t previous = UINT64_MAX;
  for (const PeakSite& site : at_peak.sites) {
    const uint64_t bytes = site.live.total().bytes;
    CHECK(bytes > 0);
    CHECK(bytes <= previous);
    previous = bytes;
    sites.iteration += site.live.iteration;
    sites.earlier_iteration += site.live.earlier_iteration;
    sites.inter_iteration += site.live.inter_iteration;
    sites.leak += site.live.leak;
    sites.persistent += site.live.persistent;
  }
  CHECK(sites.iteration.bytes <= at_peak.live.iteration.bytes);
  CHECK(sites.earlier_iteration.bytes <= at_peak.live.earlier_iteration.bytes);
  CHECK(sites.inter_iteration.bytes <= at_peak.live.inter_iteration.bytes);
  CHECK(sites.leak.bytes <= at_peak.live.leak.bytes);
  CHECK(sites.persistent.bytes <= at_peak.live.persistent.bytes);
  CHECK(sites.total().count <= at_peak.live.total().count);
}

// A census's holders: held + not seen is the allocated level's live bytes; the classes and the
// holders (listed or left out) sum to held; holders ranked by bytes, what the iterations keep
// before persistent state.
void checkHeldBy(const IterationRow& row) {
  uint32_t previous_device = 0;
  for (size_t k = 0; k < row.held_by.size(); ++k) {
    const HeldBy& h = row.held_by[k];
    INFO("census of device " << h.device);
    if (k > 0) CHECK(h.device > previous_device);
    previous_device = h.device;
    CHECK(h.timestamp >= row.idle_start_ns);
    CHECK(h.held.bytes + h.not_seen.bytes == h.allocated);
    CHECK(h.by_class.total() == h.held);
    CHECK(h.by_class.cached == Tally{});
    Tally holders = h.holders_left_out;
    uint64_t previous = UINT64_MAX;
    bool persistent = false;
    for (const Holder& x : h.holders) {
      const bool now_persistent = x.cls == RetentionClass::kPersistent;
      CHECK((now_persistent || !persistent));  // no kept holder after a persistent one
      if (now_persistent != persistent) previous = UINT64_MAX;
      CHECK(x.bytes <= previous);
      previous = x.bytes;
      persistent = now_persistent;
      holders.bytes += x.bytes;
      holders.count += 1;
    }
    CHECK(holders.bytes == h.held.bytes);
    CHECK(h.storages.not_matched.count + h.storages.same_block.count <= h.storages.found.count);
  }
}

// Rows and ranges are every iteration once, in order; a range repeats a kept row before it and
// is long enough to be one; its spreads are ordered.
void checkRanges(const Report& r) {
  std::vector<uint32_t> seen(iterationCount(r) + 1, 0);
  for (const IterationRow& row : r.iterations) {
    REQUIRE(row.index >= 1);
    REQUIRE(row.index < seen.size());
    ++seen[row.index];
  }
  for (const IterationRange& range : r.iteration_ranges) {
    INFO("range " << range.first << "-" << range.last);
    REQUIRE(range.first <= range.last);
    REQUIRE(range.last < seen.size());
    CHECK(range.count() >= kMinRangeIterations);
    for (uint32_t i = range.first; i <= range.last; ++i) ++seen[i];
    const std::optional<IterationRow> like = windowOf(r, range.like);
    REQUIRE(like);
    CHECK(like->index == range.like);
    CHECK(stepFault(range, *like).empty());
    CHECK(range.like < range.first);
    CHECK(range.start_ns <= range.end_ns);
    REQUIRE(range.memory.size() == r.memory.size());
    for (const RangeMemory& m : range.memory) {
      for (const Spread& s : {m.peak, m.floor, m.live_at_start, m.live_at_end, m.idle.peak}) {
        CHECK(s.min <= s.mean);
        CHECK(s.mean <= s.max);
      }
      CHECK(m.floor.min <= m.peak.max);
    }
  }
  for (size_t i = 1; i < seen.size(); ++i) {
    INFO("iteration " << i);
    CHECK(seen[i] == 1);
  }
}

}  // namespace

void checkWindowsExpand(const Report& folded, const Report& whole) {
  REQUIRE(iterationCount(folded) == whole.iterations.size());
  for (const IterationRow& row : whole.iterations) {
    const std::optional<IterationRow> window = windowOf(folded, row.index);
    REQUIRE(window);
    REQUIRE(window->memory.size() == row.memory.size());
    // One assertion per window that differs: a run of 20,000 windows stays quick to check.
    for (size_t p = 0; p < row.memory.size(); ++p) {
      const IterationMemory::Idle& got = window->memory[p].idle;
      const IterationMemory::Idle& want = row.memory[p].idle;
      if (got.floor != want.floor || got.retained != want.retained ||
          got.explained != want.explained) {
        FAIL("iteration " << row.index << ", memory " << p << ": idle floor " << got.floor
                          << " retained " << got.retained << ", unfolded " << want.floor << " "
                          << want.retained);
      }
    }
    if (window->top_sites != row.top_sites)
      FAIL("iteration " << row.index << ": top sites differ from the unfolded ones");
  }
}

void checkInvariants(const Report& r) {
  REQUIRE(r.trends.size() == r.memory.size());
  uint64_t block_allocs = 0;
  for (const MemorySummary& m : r.memory) {
    INFO("memory " << m.key.device << ":" << trace::toString(m.key.kind));
    CHECK(m.allocated.bytes - m.freed.bytes == m.live_at_end);
    CHECK(m.allocated.count >= m.freed.count);
    CHECK(m.live_at_end <= m.peak);
    if (m.key.kind == trace::MemoryKind::kBlock) block_allocs += m.allocated.count;
  }
  // Blocks and their segments come from two sources: a device's allocated bytes may exceed its
  // reserved ones (not asserted); what is counted is blocks outside the segments, at most all.
  CHECK(r.anomalies.blocks_outside_segments <= block_allocs);
  checkRanges(r);
  const uint32_t n = iterationCount(r);
  for (size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationRow& row = r.iterations[i];
    INFO("iteration " << row.index);
    CHECK((i == 0 || row.index > r.iterations[i - 1].index));
    CHECK(row.start_ns <= row.end_ns);
    CHECK(row.idle_start_ns == row.end_ns);
    CHECK(row.idle_start_ns <= row.idle_end_ns);
    CHECK(row.idle_final == (row.index == n));
    const bool next_is_row =
        i + 1 < r.iterations.size() && r.iterations[i + 1].index == row.index + 1;
    checkHeldBy(row);
    REQUIRE(row.memory.size() == r.memory.size());
    RetainedTally sites_total;
    for (size_t k = 0; k < row.memory.size(); ++k) {
      const IterationMemory& m = row.memory[k];
      INFO("memory " << m.key.device << ":" << trace::toString(m.key.kind));
      CHECK(m.key == r.memory[k].key);
      CHECK(m.floor <= m.live_at_start);
      CHECK(m.live_at_start <= m.peak);
      CHECK(m.floor <= m.live_at_end);
      CHECK(m.live_at_end <= m.peak);
      CHECK(m.live_at_start + m.allocated.bytes - m.freed.bytes == m.live_at_end);
      CHECK(m.idle.floor <= m.live_at_end);
      CHECK(m.idle.floor <= m.idle.live_at_end);
      CHECK(m.idle.live_at_end <= m.idle.peak);
      CHECK(m.live_at_end + m.idle.allocated.bytes - m.idle.freed.bytes == m.idle.live_at_end);
      CHECK(m.idle.retained.total().bytes <= m.idle.floor);
      if (next_is_row) {
        CHECK(m.idle.live_at_end == r.iterations[i + 1].memory[k].live_at_start);
      } else if (row.index == n) {
        CHECK(m.idle.live_at_end == r.memory[k].live_at_end);
      }
      for (const RetainedSite& s : row.top_sites) {
        if (!(s.key == m.key)) continue;
        sites_total.inter_iteration += s.retained.inter_iteration;
        sites_total.leak += s.retained.leak;
        sites_total.persistent += s.retained.persistent;
      }
      CHECK(sites_total.inter_iteration.bytes <= m.idle.retained.inter_iteration.bytes);
      CHECK(sites_total.leak.bytes <= m.idle.retained.leak.bytes);
      CHECK(sites_total.persistent.bytes <= m.idle.retained.persistent.bytes);
      sites_total = {};
      checkPeak(row, m);
    }
  }
}

void checkInvariants(const MergedReport& report) {
  for (size_t i = 0; i < report.runs.size(); ++i) {
    INFO("run " << i << ": " << report.runs[i].input.path);
    checkInvariants(report.runs[i]);
  }
  CHECK(report.labels.size() == report.runs.size());
  if (!report.worst) return;
  const WorstRun& worst = *report.worst;
  REQUIRE(worst.run < report.runs.size());
  const Report& run = report.runs[worst.run];
  CHECK(worst.key == headlineKey(run, worst.key.device));  // allocated where there are blocks
  REQUIRE(worst.iteration >= 1);
  const std::optional<IterationRow> window = windowOf(run, worst.iteration);
  REQUIRE(window);
  CHECK(window->index == worst.iteration);  // the steady window's row is kept whole
  CHECK(memoryOf(*window, worst.key.device, worst.key.kind).idle.floor == worst.idle_floor);
}

}  // namespace memfloor::analysis::test

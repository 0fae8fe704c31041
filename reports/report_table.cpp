// The human table: header lines, one row per iteration and memory, trends, top sites, the peaks.
#include "reports/report_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/printable.h"
#include "common/units.h"
#include "report/holder_links.h"
#include "report/iteration_ranges.h"
#include "report/labels.h"
#include "report/levels.h"
#include "reports/held_by_table.h"

namespace memfloor::reports {
namespace {

constexpr double kNsPerSecond = 1e9;

using Out = std::back_insert_iterator<std::string>;

// How the analysis ranks the sites it lists: retained bytes of counted iterations first, then the
// rest (retention.h); at a peak, the bytes live there (peak_composition.h).
std::pair<uint64_t, uint64_t> rankOf(const report::RetainedTally& t) {
  return {t.inter_iteration.bytes + t.leak.bytes, t.persistent.bytes + t.cached.bytes};
}
std::pair<uint64_t, uint64_t> rankOf(const report::PeakTally& t) { return {t.total().bytes, 0}; }

// Sites of one name on one memory, from different stacks, are one row of the tables: their tallies
// summed, with how many stacks, ranked again as the analysis ranks sites (the JSON keeps a site per
// stack).
template <class Site, class SiteTally>
std::vector<std::pair<Site, size_t>> byName(const std::vector<Site>& sites,
                                            SiteTally Site::*tally) {
  std::vector<std::pair<Site, size_t>> rows;
  for (const Site& site : sites) {
    auto row = std::find_if(rows.begin(), rows.end(), [&](const std::pair<Site, size_t>& r) {
      if constexpr (requires { site.key; }) {
        if (!(r.first.key == site.key)) return false;
      }
      return r.first.where == site.where;
    });
    if (row == rows.end()) {
      rows.emplace_back(site, 1);
    } else {
      row->first.*tally += site.*tally;
      ++row->second;
    }
  }
  // Ranked within each memory, the memories in the order they came: a row's rank is the first
  // row of its memory.
  std::vector<size_t> ranks(rows.size(), 0);
  if constexpr (requires(const Site& s) { s.key; }) {
    for (size_t i = 0; i < rows.size(); ++i) {
      while (!(rows[ranks[i]].first.key == rows[i].first.key)) ++ranks[i];
    }
  }
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (ranks[a] != ranks[b]) return ranks[a] < ranks[b];
    return rankOf(rows[a].first.*tally) > rankOf(rows[b].first.*tally);
  });
  std::vector<std::pair<Site, size_t>> ranked;
  ranked.reserve(rows.size());
  for (size_t i : order) ranked.push_back(std::move(rows[i]));
  return ranked;
}

std::string nameWithStacks(const std::string& where, size_t stacks) {
  return stacks > 1 ? fmt::format("{} ({} stacks)", common::printable(where), stacks)
                    : common::printable(where);
}

void header(Out out, const report::Report& r) {
  fmt::format_to(out, "trace: {} (format {}.{}, {})\n", common::printable(r.input.path),
                 r.input.major, r.input.minor, r.input.ending);
  if (r.process.present) {
    fmt::format_to(out, "process: pid {} on {}", r.process.pid,
                   r.process.host.empty() ? "?" : common::printable(r.process.host));
    if (r.process.rank != trace::kUnknownRank) {
      fmt::format_to(out, ", rank {}/{}", r.process.rank, r.process.world_size);
    }
    if (!r.process.command_line.empty())
      fmt::format_to(out, ": {}", common::printable(r.process.command_line));
    out = '\n';
  }
  const report::Anomalies& a = r.anomalies;
  if (r.overflow) {
    fmt::format_to(out,
                   "warning: the sizes in this trace add up past 2^64 bytes (16 EiB): its byte "
                   "totals wrapped around and are wrong\n");
  }
  if (r.dropped_cupti + r.dropped_writer > 0) {
    fmt::format_to(out, "dropped records: {} by CUPTI, {} by the writer\n", r.dropped_cupti,
                   r.dropped_writer);
  }
  if (a.unmatched_frees.count + a.double_allocations.count + a.size_mismatches > 0) {
    fmt::format_to(out,
                   "pairing: {} unmatched frees ({}), {} double allocations ({}), {} size "
                   "mismatches\n",
                   a.unmatched_frees.count, report::formatBytes(a.unmatched_frees.bytes),
                   a.double_allocations.count, report::formatBytes(a.double_allocations.bytes),
                   a.size_mismatches);
  }
  if (a.cut_tail.known) {
    fmt::format_to(
        out,
        "the trace was cut: memory records from {:.3f} s on may be missing (one flush "
        "period); {} unmatched frees and {} double allocations fall there\n",
        static_cast<double>(std::max(a.cut_tail.from_ns, r.first_ns) - r.first_ns) / kNsPerSecond,
        a.cut_tail.unmatched_frees.count, a.cut_tail.double_allocations.count);
  }
  if (a.out_of_order_records > 0) {
    fmt::format_to(out, "warning: {} records out of timestamp order\n", a.out_of_order_records);
  }
  if (a.blocks_outside_segments > 0) {
    fmt::format_to(out, "warning: {} allocator blocks outside every live segment of their device\n",
                   a.blocks_outside_segments);
  }
  for (const std::string& w : a.warnings)
    fmt::format_to(out, "warning: {}\n", common::printable(w));
  if (a.warnings_left_out > 0) {
    fmt::format_to(out, "warning: and {} more records the analysis could not take as they are\n",
                   a.warnings_left_out);
  }
}

void summary(Out out, const report::Report& r) {
  fmt::format_to(out, "\n{:<16} {:>10} {:>10} {:>10} {:>10}\n", "memory", "peak", "at end",
                 "allocs", "frees");
  for (const report::MemorySummary& m : r.memory) {
    fmt::format_to(out, "{:<16} {:>10} {:>10} {:>10} {:>10}\n", report::memoryLabel(r, m.key),
                   report::formatBytes(m.peak), report::formatBytes(m.live_at_end),
                   m.allocated.count, m.freed.count);
  }
}

// The column of a reserved level's cached bytes: shown only in runs with allocator blocks.
std::string cachedColumn(bool blocks, std::string_view text) {
  return blocks ? fmt::format(" {:>10}", text) : std::string();
}

// One kept row: a line per memory.
void iterationRow(Out out, const report::Report& r, const report::IterationRow& row, bool blocks) {
  std::string mark = row.warmup ? "w" : (row.complete ? "" : "?");
  const auto sites = byName(row.top_sites, &report::RetainedSite::retained);
  for (const report::IterationMemory& m : row.memory) {
    std::string site;
    for (const auto& [s, stacks] : sites) {
      if (s.key == m.key) {
        site = fmt::format("{} ({})", nameWithStacks(s.where, stacks),
                           toString(s.retained.dominant()));
        break;
      }
    }
    fmt::format_to(out, "{:>4}{:1} {:<16} {:>10} {:>10} {:>10} {:>10} {:>10}{}  {}\n", row.index,
                   mark, report::memoryLabel(r, m.key), report::formatBytes(m.peak),
                   report::formatBytes(m.idle.floor),
                   report::formatBytes(m.idle.retained.persistent.bytes),
                   report::formatBytes(m.idle.retained.inter_iteration.bytes),
                   report::formatBytes(m.idle.retained.leak.bytes),
                   cachedColumn(blocks, report::formatBytes(m.idle.retained.cached.bytes)), site);
  }
}

// A range: what its windows repeat (a trend's: its last window, and the floor's step), and the
// spread of its peaks (the largest in the peak column).
void rangeRows(Out out, const report::Report& r, const report::IterationRange& range, bool blocks) {
  const bool trend = !range.step.empty();
  if (trend) {
    fmt::format_to(out,
                   "{:>5} iterations {}-{} ({}): idle windows as after iteration {} plus a step "
                   "each, the last's shown\n",
                   "", range.first, range.last, range.count(), range.like);
  } else {
    fmt::format_to(out, "{:>5} iterations {}-{} ({}): idle windows as after iteration {}\n", "",
                   range.first, range.last, range.count(), range.like);
  }
  const std::optional<report::IterationRow> window = report::windowOf(r, range.last);
  for (size_t k = 0; k < range.memory.size(); ++k) {
    const report::RangeMemory& m = range.memory[k];
    const bool same = window && k < window->memory.size();
    const report::IterationMemory::Idle idle =
        same ? window->memory[k].idle : report::IterationMemory::Idle{};
    const std::string step =
        trend && k < range.step.memory.size()
            ? fmt::format(", idle floor {:+} B/iteration", range.step.memory[k].floor)
            : std::string();
    fmt::format_to(out, "{:>5} {:<16} {:>10} {:>10} {:>10} {:>10} {:>10}{}  peaks {} to {}{}\n", "",
                   report::memoryLabel(r, m.key), report::formatBytes(m.peak.max),
                   report::formatBytes(idle.floor),
                   report::formatBytes(idle.retained.persistent.bytes),
                   report::formatBytes(idle.retained.inter_iteration.bytes),
                   report::formatBytes(idle.retained.leak.bytes),
                   cachedColumn(blocks, report::formatBytes(idle.retained.cached.bytes)),
                   report::formatBytes(m.peak.min), report::formatBytes(m.peak.max), step);
  }
}

void iterationRows(Out out, const report::Report& r) {
  const bool blocks = report::hasBlocks(r);
  fmt::format_to(out, "\n{:>5} {:<16} {:>10} {:>10} {:>10} {:>10} {:>10}{}  {}\n", "iter", "memory",
                 "peak", "idle floor", "persistent", "inter-iter", "leak",
                 cachedColumn(blocks, "cached"), "top retaining site");
  // Kept rows and ranges in the order of their first iteration.
  std::vector<std::pair<uint32_t, size_t>> entries;  // (first iteration, row or range + rows)
  for (size_t i = 0; i < r.iterations.size(); ++i) entries.emplace_back(r.iterations[i].index, i);
  for (size_t k = 0; k < r.iteration_ranges.size(); ++k) {
    entries.emplace_back(r.iteration_ranges[k].first, r.iterations.size() + k);
  }
  std::sort(entries.begin(), entries.end());
  size_t n = entries.size();
  size_t half = kTableMaxIterations / 2;
  for (size_t i = 0; i < n; ++i) {
    if (n > kTableMaxIterations && i == half) {
      fmt::format_to(out, "{:>5} ({} rows not shown; the JSON has them)\n", "...", n - 2 * half);
      i = n - half;
    }
    const size_t at = entries[i].second;
    if (at < r.iterations.size()) {
      iterationRow(out, r, r.iterations[at], blocks);
    } else {
      rangeRows(out, r, r.iteration_ranges[at - r.iterations.size()], blocks);
    }
  }
  fmt::format_to(out, "(w: warm-up, ?: cut off by the end of the trace)\n");
}

void trends(Out out, const report::Report& r) {
  fmt::format_to(out, "\nidle-floor trend: {}\n", toString(r.verdict));
  for (const report::Trend& t : r.trends) {
    if (t.points == 0) continue;
    fmt::format_to(
        out, "  {:<16} {:<8} {:+} B/iteration over iterations {}-{} ({} -> {}){}\n",
        report::memoryLabel(r, t.key), toString(t.verdict), t.slope_bytes_per_iteration,
        t.first_iteration, t.last_iteration, report::formatBytes(t.first_floor),
        report::formatBytes(t.last_floor),
        report::isReservedLevel(r, t.key) ? ", the allocator's cache: not in the verdict" : "");
  }
}

// The last window another iteration ends is the steady state a user looks at; the final window
// only when there is no other.
void topSites(Out out, const report::Report& r) {
  const uint32_t n = report::iterationCount(r);
  if (n == 0) return;
  const uint32_t index = n >= 2 ? n - 1 : n;
  const std::optional<report::IterationRow> window = report::windowOf(r, index);
  if (!window || window->top_sites.empty()) return;
  const report::IterationRow& row = *window;
  fmt::format_to(out, "\ntop retaining sites in the idle window after iteration {}:\n", index);
  fmt::format_to(out, "  {:<16} {:<16} {:>10} {:>7}  {}\n", "memory", "class", "bytes", "allocs",
                 "where");
  for (const auto& [s, stacks] : byName(row.top_sites, &report::RetainedSite::retained)) {
    report::Tally total = s.retained.total();
    fmt::format_to(out, "  {:<16} {:<16} {:>10} {:>7}  {}\n", report::memoryLabel(r, s.key),
                   toString(s.retained.dominant()), report::formatBytes(total.bytes), total.count,
                   nameWithStacks(s.where, stacks));
  }
}

// Per memory, the iteration with the largest peak (the first of equal ones) and what is live at
// it: by class, then the sites holding the most.
void peakComposition(Out out, const report::Report& r) {
  std::vector<std::pair<size_t, size_t>> largest;  // (iteration, memory) positions
  for (size_t k = 0; k < r.memory.size(); ++k) {
    std::optional<size_t> best;
    for (size_t i = 0; i < r.iterations.size(); ++i) {
      const std::vector<report::IterationMemory>& memory = r.iterations[i].memory;
      if (k < memory.size() && memory[k].peak_composition &&
          (!best || memory[k].peak > r.iterations[*best].memory[k].peak)) {
        best = i;
      }
    }
    if (best) largest.emplace_back(*best, k);
  }
  if (largest.empty()) return;
  const bool blocks = report::hasBlocks(r);
  fmt::format_to(out, "\npeak composition, at the largest peak of each memory:\n");
  fmt::format_to(out, "  {:<16} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}{}\n", "memory",
                 "iter", "peak", "iteration", "earlier", "inter-iter", "leak", "persistent",
                 cachedColumn(blocks, "cached"));
  for (const auto& [i, k] : largest) {
    const report::IterationMemory& m = r.iterations[i].memory[k];
    const report::PeakTally& live = m.peak_composition->live;
    fmt::format_to(out, "  {:<16} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}{}\n",
                   report::memoryLabel(r, m.key), r.iterations[i].index,
                   report::formatBytes(m.peak), report::formatBytes(live.iteration.bytes),
                   report::formatBytes(live.earlier_iteration.bytes),
                   report::formatBytes(live.inter_iteration.bytes),
                   report::formatBytes(live.leak.bytes), report::formatBytes(live.persistent.bytes),
                   cachedColumn(blocks, report::formatBytes(live.cached.bytes)));
  }
  for (const auto& [i, k] : largest) {
    const report::IterationMemory& m = r.iterations[i].memory[k];
    if (m.peak_composition->sites.empty()) continue;
    fmt::format_to(out, "top sites at the peak of iteration {}, {} (+{} into it):\n",
                   r.iterations[i].index, report::memoryLabel(r, m.key),
                   report::formatDuration(m.peak_composition->at_ns - r.iterations[i].start_ns));
    fmt::format_to(out, "  {:<18} {:>10} {:>7}  {}\n", "class", "bytes", "allocs", "where");
    for (const auto& [s, stacks] : byName(m.peak_composition->sites, &report::PeakSite::live)) {
      const report::Tally total = s.live.total();
      fmt::format_to(out, "  {:<18} {:>10} {:>7}  {}\n", toString(s.live.dominant()),
                     report::formatBytes(total.bytes), total.count,
                     nameWithStacks(s.where, stacks));
    }
    if (m.peak_composition->modules.empty()) continue;
    fmt::format_to(out, "top modules at that peak:\n  {:>10} {:>7}  {}\n", "bytes", "allocs",
                   "module");
    for (const report::PeakModule& module : m.peak_composition->modules) {
      fmt::format_to(out, "  {:>10} {:>7}  {}\n", report::formatBytes(module.live.bytes),
                     module.live.count, common::printable(module.module));
    }
  }
}

// One line per run: its largest steady floor over the devices' headline memories (allocated where
// a device has blocks), and with blocks in any run, the reserved floor of the same device.
void runsTable(Out out, const report::MergedReport& m) {
  const bool blocks = std::any_of(m.runs.begin(), m.runs.end(),
                                  [](const report::Report& r) { return report::hasBlocks(r); });
  fmt::format_to(out, "\nruns: {}\n  {:<24} {:>16}{} {:>10}  {}\n", m.runs.size(), "run",
                 "steady idle floor", blocks ? fmt::format(" {:>10}", "reserved") : "", "iteration",
                 "trend");
  for (size_t i = 0; i < m.runs.size(); ++i) {
    const report::Report& run = m.runs[i];
    const report::SteadyFloor* top = nullptr;
    for (const report::SteadyFloor& s : run.steady) {
      if (s.key == report::headlineKey(run, s.key.device) &&
          (top == nullptr || s.idle_floor >= top->idle_floor)) {
        top = &s;
      }
    }
    std::string reserved;
    if (blocks) {
      const report::SteadyFloor* r =
          top != nullptr && top->key.kind == trace::MemoryKind::kBlock
              ? report::steadyFloorOf(run, {top->key.device, trace::MemoryKind::kDevice})
              : nullptr;
      reserved = fmt::format(" {:>10}", r != nullptr ? report::formatBytes(r->idle_floor) : "-");
    }
    fmt::format_to(out, "  {:<24} {:>16}{} {:>10}  {}\n", common::printable(m.labels[i]),
                   report::formatBytes(top != nullptr ? top->idle_floor : 0), reserved,
                   top != nullptr ? top->iteration : 0, toString(run.verdict));
  }
}

}  // namespace

std::string formatTable(const report::Report& r) {
  std::string text;
  Out out(text);
  header(out, r);
  if (r.iteration_source == report::IterationSource::kUnknown) {
    fmt::format_to(out, "iterations: unknown (no marker matches '{}'); whole-trace summary:\n",
                   common::printable(r.iteration_pattern));
    summary(out, r);
    return text;
  }
  if (r.detection) {
    const report::DetectedPeriod& d = *r.detection;
    fmt::format_to(out,
                   "iterations: {} detected (no marker matches '{}'): period {}, from the "
                   "allocations of {} at {}{}",
                   report::iterationCount(r), common::printable(r.iteration_pattern),
                   report::formatDuration(d.period_ns), report::formatBytes(d.size),
                   d.where.empty() ? "(no stack)" : common::printable(d.where),
                   d.every > 1 ? fmt::format(", one in {}", d.every) : "");
  } else if (r.iteration_source == report::IterationSource::kSteps) {
    fmt::format_to(out, "iterations: {} from optimizer steps (no marker matches '{}')",
                   report::iterationCount(r), common::printable(r.iteration_pattern));
  } else {
    fmt::format_to(out, "iterations: {} from markers", report::iterationCount(r));
  }
  if (r.warmup_iterations > 0) fmt::format_to(out, ", first {} warm-up", r.warmup_iterations);
  out = '\n';
  summary(out, r);
  iterationRows(out, r);
  trends(out, r);
  topSites(out, r);
  heldByTable(text, r);
  peakComposition(out, r);
  return text;
}

std::string formatTable(const report::MergedReport& m) {
  std::string text;
  Out out(text);
  for (size_t i = 0; i < m.runs.size(); ++i) {
    if (m.runs.size() > 1)
      fmt::format_to(out, "{}== {} ==\n", i == 0 ? "" : "\n", common::printable(m.labels[i]));
    text += formatTable(m.runs[i]);
  }
  if (m.runs.size() > 1) runsTable(out, m);
  if (m.worst) {
    fmt::format_to(out, "\nworst: {} (device {}): idle floor {} after iteration {}\n",
                   common::printable(m.labels[m.worst->run]), m.worst->key.device,
                   report::headlineFloor(m), m.worst->iteration);
  }
  if (m.findings) {
    fmt::format_to(out, "\nfindings: {} from {}\n", m.findings->items.size(),
                   common::printable(m.findings->path));
    for (uint32_t f = 0; f < m.findings->items.size(); ++f) {
      const report::LinkedFinding& finding = m.findings->items[f];
      uint64_t most = report::maxExplainedBytes(m, f);
      // The holders it names (report/holder_links.h), where a census lists them.
      const uint64_t held =
          report::maxHeldBytes(report::linkHolders(m.runs, report::holderLinkName(finding)));
      fmt::format_to(out, "  {} {}:{}  {}  explains up to {} per idle window{}\n",
                     common::printable(finding.rule), common::printable(finding.file), finding.line,
                     common::printable(finding.field), report::formatBytes(most),
                     held == 0 ? "" : "; names holders of up to " + report::formatBytes(held));
    }
  }
  return text;
}

}  // namespace memfloor::reports

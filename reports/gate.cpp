// The CI gate: reads the compared fields of two reports, matches runs and memories, applies the
// thresholds (docs/gate.md).
#include "reports/gate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "common/json_fields.h"
#include "report/report_reader.h"
#include "trace/records.h"

namespace memfloor::reports {
namespace {

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr long double kPercent = 100.0L;
constexpr int64_t kMinI64 = std::numeric_limits<int64_t>::min();

using SlotKey = std::pair<uint32_t, std::string>;
constexpr trace::MemoryKind kBlock = trace::MemoryKind::kBlock;

// A site's bytes at a peak, at most 2^63 − 1: the reader keeps each class below it, so no partial
// sum overflows.
uint64_t peakBytes(const report::PeakTally& t) {
  uint64_t sum = 0;
  for (const report::Tally* c : {&t.iteration, &t.earlier_iteration, &t.inter_iteration, &t.leak,
                                 &t.persistent, &t.cached}) {
    sum = std::min<uint64_t>(sum + c->bytes, kMaxI64);
  }
  return sum;
}

SlotMetrics& slotFor(std::map<SlotKey, SlotMetrics>& slots, const report::MemoryKey& key) {
  std::string kind(trace::toString(key.kind));
  SlotMetrics& slot = slots[{key.device, kind}];
  slot.device = key.device;
  slot.kind = std::move(kind);
  return slot;
}

// The holders of each device's last census, on its allocated level: blocks where the run has them
// (slots holds its memories already).
void addHolders(const report::RunReader& run, std::map<SlotKey, SlotMetrics>& slots) {
  for (const report::HeldBy& census : run.lastCensuses()) {
    const bool blocks = slots.contains({census.device, std::string(trace::toString(kBlock))});
    SlotMetrics& slot =
        slotFor(slots, {census.device, blocks ? kBlock : trace::MemoryKind::kDevice});
    for (const report::Holder& holder : census.holders) {
      if (holder.role != trace::HeldRole::kOther) continue;  // persistent by its role
      uint64_t& bytes = slot.holders[holder.path];           // <= 2^63 − 1 (ReportReader)
      bytes = std::min<uint64_t>(bytes + std::min<uint64_t>(holder.bytes, kMaxI64), kMaxI64);
    }
  }
}

// What the gate compares of one run (docs/gate.md, "What is compared"), read by the typed reader.
RunMetrics readRun(const report::RunReader& run) {
  RunMetrics out;
  out.label = run.label();
  std::map<SlotKey, SlotMetrics> slots;
  for (const report::MemorySummary& m : run.memory()) slotFor(slots, m.key).peak = m.peak;

  // The steady window of each memory: its idle floor, and the sites its iteration lists.
  for (const report::SteadyWindow& window : run.steadyWindows()) {
    out.measured = true;
    SlotMetrics& slot = slotFor(slots, window.floor.key);
    slot.idle_floor = window.floor.idle_floor;
    for (const report::RetainedSite& site : window.top_sites) {
      if (!(site.key == window.floor.key)) continue;
      // What the site keeps from the counted iterations; its persistent bytes (weights, state)
      // are in the idle floor, and the ranking puts sites with counted bytes first, so a site
      // with them is listed whenever it matters. Cached bytes are a caching allocator's
      // segments kept for reuse, not the program's: the reserved idle floor compares them, the
      // allocated level's sites what the program keeps. The reader keeps bytes below 2^63, so
      // neither sum overflows.
      const uint64_t counted = site.retained.inter_iteration.bytes + site.retained.leak.bytes;
      if (counted == 0) continue;
      uint64_t& bytes = slot.sites[site.where];  // <= 2^63 − 1
      bytes = std::min<uint64_t>(bytes + std::min<uint64_t>(counted, kMaxI64), kMaxI64);
    }
  }

  // The largest peak of each memory, and the sites live there: all their bytes, whatever their
  // class (the sites are ranked by them).
  for (const report::LargestPeak& peak : run.largestPeaks()) {
    if (!peak.composition) continue;  // a report written before peak compositions
    out.peak_sites = true;
    SlotMetrics& slot = slotFor(slots, peak.key);
    for (const report::PeakSite& site : peak.composition->sites) {
      uint64_t& bytes = slot.peak_sites[site.where];  // <= 2^63 − 1, as above
      bytes = std::min<uint64_t>(bytes + peakBytes(site.live), kMaxI64);
    }
  }

  addHolders(run, slots);
  for (const report::Trend& t : run.trends()) {
    SlotMetrics& slot = slotFor(slots, t.key);
    // "unknown": fewer than 3 windows fitted, too few for a slope to mean anything.
    if (t.verdict != report::TrendVerdict::kUnknown) slot.slope = t.slope_bytes_per_iteration;
  }

  for (auto& [key, slot] : slots) out.slots.push_back(std::move(slot));
  return out;
}

int64_t saturatingSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return b < 0 ? kMaxI64 : kMinI64;
  return out;
}

GateCheck makeCheck(Metric metric, const std::string& run, const SlotMetrics& slot, int64_t base,
                    int64_t cur, const Threshold& threshold) {
  GateCheck c;
  c.metric = metric;
  c.run = run;
  c.device = slot.device;
  c.kind = slot.kind;
  c.baseline = base;
  c.current = cur;
  c.delta = saturatingSub(cur, base);
  if (base != 0) {
    c.delta_percent = static_cast<double>(c.delta) / std::fabs(static_cast<double>(base)) * 100.0;
  }
  c.allowed = allowedDelta(threshold, base);
  c.regression = c.delta > c.allowed;
  return c;
}

// One check per `where` listed on either side; a site listed on one side only counts 0 on the
// other.
void compareSites(Metric metric, const std::string& run, const SlotMetrics& key,
                  const std::map<std::string, uint64_t>& base,
                  const std::map<std::string, uint64_t>& cur, const Threshold& threshold,
                  std::vector<GateCheck>& checks) {
  auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };  // <= 2^63 − 1 (ReportReader)
  std::set<std::string> wheres;
  for (const auto& [where, bytes] : base) wheres.insert(where);
  for (const auto& [where, bytes] : cur) wheres.insert(where);
  for (const std::string& where : wheres) {
    auto b = base.find(where);
    auto c = cur.find(where);
    GateCheck check = makeCheck(metric, run, key, b == base.end() ? 0 : i64(b->second),
                                c == cur.end() ? 0 : i64(c->second), threshold);
    check.site = where;
    checks.push_back(std::move(check));
  }
}

// peaks: both runs' reports have peak compositions (an older one has none to compare with).
void compareSlot(const std::string& run, const SlotMetrics& base, const SlotMetrics& cur,
                 bool peaks, const GateThresholds& t, std::vector<GateCheck>& checks) {
  const SlotMetrics& key = cur;
  auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };  // <= 2^63 − 1 (ReportReader)
  checks.push_back(makeCheck(Metric::kIdleFloor, run, key, i64(base.idle_floor),
                             i64(cur.idle_floor), t.idle_floor));
  checks.push_back(makeCheck(Metric::kPeak, run, key, i64(base.peak), i64(cur.peak), t.peak));
  // Growth needs a fitted slope in current; a baseline without one is taken as flat.
  if (cur.slope) {
    checks.push_back(
        makeCheck(Metric::kFloorGrowth, run, key, base.slope.value_or(0), *cur.slope, t.growth));
  }
  compareSites(Metric::kSiteRetained, run, key, base.sites, cur.sites, t.site, checks);
  if (peaks) {
    compareSites(Metric::kSitePeak, run, key, base.peak_sites, cur.peak_sites, t.site_peak, checks);
  }
  compareSites(Metric::kHolder, run, key, base.holders, cur.holders, t.holder, checks);
}

// "rank N": the label of a run whose rank is known (docs/report-schema.md, runs[].label).
bool hasRank(const RunMetrics& run) {
  std::string_view label = run.label;
  if (!label.starts_with("rank ") || label.size() == 5) return false;
  return std::all_of(label.begin() + 5, label.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The current run each baseline run is compared with (nullptr: missing); fills missing_runs,
// added_runs and paired_runs.
std::vector<const RunMetrics*> pairRuns(const ReportMetrics& baseline, const ReportMetrics& current,
                                        GateResult& result) {
  std::vector<const RunMetrics*> partner(baseline.runs.size(), nullptr);
  std::unordered_map<std::string_view, size_t> by_label;
  for (size_t j = 0; j < current.runs.size(); ++j) by_label.emplace(current.runs[j].label, j);
  std::vector<bool> taken(current.runs.size(), false);
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (auto it = by_label.find(baseline.runs[i].label); it != by_label.end()) {
      partner[i] = &current.runs[it->second];
      taken[it->second] = true;
    }
  }
  // A trace's file name changes from run to run (memfloor.<host>.<pid>.mftrace): runs without a
  // rank that found no label pair up in order, when both sides have the same number left.
  std::vector<size_t> base_left, cur_left;
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (partner[i] == nullptr && !hasRank(baseline.runs[i])) base_left.push_back(i);
  }
  for (size_t j = 0; j < current.runs.size(); ++j) {
    if (!taken[j] && !hasRank(current.runs[j])) cur_left.push_back(j);
  }
  if (base_left.size() == cur_left.size()) {
    for (size_t k = 0; k < base_left.size(); ++k) {
      partner[base_left[k]] = &current.runs[cur_left[k]];
      taken[cur_left[k]] = true;
      result.paired_runs.push_back(
          {baseline.runs[base_left[k]].label, current.runs[cur_left[k]].label});
    }
  }
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (partner[i] == nullptr) result.missing_runs.push_back(baseline.runs[i].label);
  }
  for (size_t j = 0; j < current.runs.size(); ++j) {
    if (!taken[j]) result.added_runs.push_back(current.runs[j].label);
  }
  return partner;
}

// runs[i].process.command_line of `report`, which the typed reader has checked has that run; ""
// without a process (the gate compares none of it: it only tells programs apart).
std::string commandLineOf(const nlohmann::json& report, std::string_view path, size_t i) {
  const common::JsonFields f(path);
  const std::string run = common::JsonFields::index("runs", i);
  const nlohmann::json* process = f.optional(report.at("runs").at(i), run, "process");
  if (process == nullptr) return "";
  return f.string(*process, common::JsonFields::field(run, "process"), "command_line");
}

// The interpreters and launchers whose program is the script they are given.
bool runsAScript(std::string_view executable) {
  return executable.starts_with("python") || executable == "torchrun" ||
         executable == "deepspeed" || executable == "accelerate";
}

std::string_view fileName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The programs of the compared runs that differ, each pair once (GateResult::other_programs).
void findOtherPrograms(const ReportMetrics& baseline, const std::vector<const RunMetrics*>& partner,
                       GateResult& result) {
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (partner[i] == nullptr) continue;
    const std::string& base = baseline.runs[i].program;
    const std::string& cur = partner[i]->program;
    if (base.empty() || cur.empty() || base == cur || !seen.emplace(base, cur).second) continue;
    result.other_programs.push_back({base, cur});
  }
}

}  // namespace

std::string programOf(std::string_view command_line) {
  std::istringstream words{std::string(command_line)};
  std::string word;
  if (!(words >> word)) return "";
  const std::string executable(fileName(word));
  if (!runsAScript(executable)) return executable;
  const std::vector<std::string> args{std::istream_iterator<std::string>(words), {}};
  // The script first: `python -m torch.distributed.run train.py` runs train.py.
  for (const std::string& arg : args) {
    if (arg.ends_with(".py")) return std::string(fileName(arg));
  }
  const auto module = std::find(args.begin(), args.end(), "-m");
  if (module != args.end() && module + 1 != args.end()) return "-m " + *(module + 1);
  return executable;  // python -c, or a launcher of a program that is no script
}

std::string_view toString(Metric metric) {
  switch (metric) {
    case Metric::kIdleFloor:
      return "idle_floor";
    case Metric::kPeak:
      return "peak";
    case Metric::kFloorGrowth:
      return "floor_growth";
    case Metric::kSiteRetained:
      return "site_retained";
    case Metric::kSitePeak:
      return "site_peak";
    case Metric::kHolder:
      return "holder";
  }
  return "unknown";
}

size_t GateResult::regressions() const {
  return static_cast<size_t>(
      std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return c.regression; }));
}

int64_t allowedDelta(const Threshold& threshold, int64_t baseline) {
  long double magnitude = std::fabs(static_cast<long double>(baseline));
  long double relative = magnitude * static_cast<long double>(threshold.percent) / kPercent;
  long double allowed = std::fmax(static_cast<long double>(threshold.bytes), relative);
  if (!(allowed < static_cast<long double>(kMaxI64))) return kMaxI64;  // also NaN
  return static_cast<int64_t>(std::floor(allowed));
}

ReportMetrics extractMetrics(const nlohmann::json& report, std::string_view path) {
  const report::ReportReader reader(report, path);
  ReportMetrics out;
  out.path = std::string(path);
  std::unordered_map<std::string, int> seen;
  const size_t runs = reader.runCount();
  for (size_t i = 0; i < runs; ++i) {
    RunMetrics run = readRun(reader.run(i));
    run.program = programOf(commandLineOf(report, path, i));
    // Labels name runs across reports; a repeated label (two traces of the same file name and no
    // rank) is told apart by its position among the runs of that label.
    int n = ++seen[run.label];
    if (n > 1) run.label = fmt::format("{} #{}", run.label, n);
    out.runs.push_back(std::move(run));
  }
  for (const report::LinkedFinding& f : reader.findings()) {
    out.findings.push_back({f.fingerprint, f.rule, f.message, f.file, f.line, f.column});
  }
  return out;
}

GateResult runGate(const ReportMetrics& baseline, const ReportMetrics& current,
                   const GateThresholds& thresholds) {
  GateResult result;
  result.baseline_path = baseline.path;
  result.current_path = current.path;
  result.thresholds = thresholds;

  std::vector<const RunMetrics*> partner = pairRuns(baseline, current, result);
  findOtherPrograms(baseline, partner, result);
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (partner[i] == nullptr) continue;
    const RunMetrics& base = baseline.runs[i];
    const RunMetrics& cur = *partner[i];
    // Memories on one side only compare with zero on the other: a new one can regress, a gone
    // one is a decrease.
    std::map<SlotKey, std::pair<const SlotMetrics*, const SlotMetrics*>> slots;
    for (const SlotMetrics& s : base.slots) slots[{s.device, s.kind}].first = &s;
    for (const SlotMetrics& s : cur.slots) slots[{s.device, s.kind}].second = &s;
    std::set<uint32_t> block_devices;
    for (const auto& [key, pair] : slots) {
      if (key.second == trace::toString(trace::MemoryKind::kBlock)) block_devices.insert(key.first);
    }
    for (const auto& [key, pair] : slots) {
      SlotMetrics empty;
      empty.device = key.first;
      empty.kind = key.second;
      const size_t first = result.checks.size();
      compareSlot(cur.label, pair.first ? *pair.first : empty, pair.second ? *pair.second : empty,
                  base.peak_sites && cur.peak_sites, thresholds, result.checks);
      for (size_t c = first; c < result.checks.size(); ++c) {
        result.checks[c].device_has_blocks = block_devices.contains(key.first);
      }
    }
  }
  std::unordered_set<std::string_view> known;
  for (const FindingRef& f : baseline.findings) known.insert(f.id);
  std::unordered_set<std::string_view> reported;
  for (const FindingRef& f : current.findings) {
    if (!known.contains(f.id) && reported.insert(f.id).second) result.new_findings.push_back(f);
  }

  result.regression = result.regressions() > 0 || !result.missing_runs.empty() ||
                      (thresholds.fail_on_new_findings && !result.new_findings.empty());
  return result;
}

}  // namespace memfloor::reports

// The CI gate: reads the compared fields of two reports, matches runs and memories, applies the
// thresholds (docs/gate.md).
#include "reports/gate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"

namespace memfloor::reports {
namespace {

using nlohmann::json;

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr long double kPercent = 100.0L;
constexpr int64_t kMinI64 = std::numeric_limits<int64_t>::min();

// Field access with errors that name the file and the field ("runs[0].memory[1].peak").
class Reader {
 public:
  explicit Reader(std::string_view path) : path_(path) {}

  [[noreturn]] void fail(std::string_view field, std::string_view what) const {
    throw Error(fmt::format("{}: {}: {}", path_, field, what));
  }

  const json& member(const json& object, std::string_view context, const char* key) const {
    if (!object.is_object()) fail(context, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) fail(field(context, key), "missing");
    return *it;
  }

  const json& array(const json& object, std::string_view context, const char* key) const {
    const json& j = member(object, context, key);
    if (!j.is_array()) fail(field(context, key), "expected an array");
    return j;
  }

  const std::string& string(const json& object, std::string_view context, const char* key) const {
    const json& j = member(object, context, key);
    if (!j.is_string()) fail(field(context, key), "expected a string");
    return j.get_ref<const std::string&>();
  }

  // Unsigned, at most 2^63 − 1 (bytes beyond that are not a plausible report).
  uint64_t unsignedInt(const json& object, std::string_view context, const char* key) const {
    const json& j = member(object, context, key);
    // A parsed non-negative integer is unsigned; one built in code may be signed.
    if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<int64_t>() < 0)) {
      fail(field(context, key), "expected an unsigned integer");
    }
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(kMaxI64)) fail(field(context, key), "value out of range");
    return v;
  }

  int64_t signedInt(const json& object, std::string_view context, const char* key) const {
    const json& j = member(object, context, key);
    if (j.is_number_unsigned()) {
      if (j.get<uint64_t>() > static_cast<uint64_t>(kMaxI64)) {
        fail(field(context, key), "value out of range");
      }
      return static_cast<int64_t>(j.get<uint64_t>());
    }
    if (!j.is_number_integer()) fail(field(context, key), "expected an integer");
    return j.get<int64_t>();
  }

  uint32_t u32(const json& object, std::string_view context, const char* key) const {
    uint64_t v = unsignedInt(object, context, key);
    if (v > std::numeric_limits<uint32_t>::max()) fail(field(context, key), "value out of range");
    return static_cast<uint32_t>(v);
  }

  static std::string field(std::string_view context, const char* key) {
    return context.empty() ? std::string(key) : fmt::format("{}.{}", context, key);
  }
  static std::string index(std::string_view context, const char* key, size_t i) {
    return fmt::format("{}[{}]", field(context, key), i);
  }

 private:
  std::string_view path_;
};

using SlotKey = std::pair<uint32_t, std::string>;

SlotMetrics& slotFor(std::map<SlotKey, SlotMetrics>& slots, uint32_t device,
                     const std::string& kind) {
  SlotMetrics& slot = slots[{device, kind}];
  slot.device = device;
  slot.kind = kind;
  return slot;
}

RunMetrics readRun(const Reader& r, const json& run, const std::string& ctx) {
  RunMetrics out;
  out.label = r.string(run, ctx, "label");
  std::map<SlotKey, SlotMetrics> slots;

  const json& memory = r.array(run, ctx, "memory");
  for (size_t i = 0; i < memory.size(); ++i) {
    std::string c = Reader::index(ctx, "memory", i);
    SlotMetrics& slot =
        slotFor(slots, r.u32(memory[i], c, "device"), r.string(memory[i], c, "kind"));
    slot.peak = r.unsignedInt(memory[i], c, "peak");
  }

  // The steady window of each memory: its idle floor, and the sites its iteration lists.
  std::unordered_map<uint32_t, const json*> iterations;
  const json& rows = r.array(run, ctx, "iterations");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string c = Reader::index(ctx, "iterations", i);
    iterations[r.u32(rows[i], c, "index")] = &rows[i];
  }
  const json& steady = r.array(run, ctx, "steady_idle_floor");
  for (size_t i = 0; i < steady.size(); ++i) {
    std::string c = Reader::index(ctx, "steady_idle_floor", i);
    const json& entry = steady[i];
    SlotMetrics& slot = slotFor(slots, r.u32(entry, c, "device"), r.string(entry, c, "kind"));
    slot.idle_floor = r.unsignedInt(entry, c, "idle_floor");
    uint32_t iteration = r.u32(entry, c, "iteration");
    if (iteration == 0) continue;  // no idle window
    auto row = iterations.find(iteration);
    if (row == iterations.end()) {
      r.fail(Reader::field(c, "iteration"),
             fmt::format("iteration {} is not in the run's iterations", iteration));
    }
    std::string row_ctx = fmt::format("{}.iterations[index {}]", ctx, iteration);
    const json& sites = r.array(*row->second, row_ctx, "top_sites");
    for (size_t s = 0; s < sites.size(); ++s) {
      std::string sc = Reader::index(row_ctx, "top_sites", s);
      if (r.u32(sites[s], sc, "device") != slot.device) continue;
      if (r.string(sites[s], sc, "kind") != slot.kind) continue;
      // What the site keeps from the counted iterations; its persistent bytes (weights, state)
      // are in the idle floor, and the ranking puts sites with counted bytes first, so a site
      // with them is listed whenever it matters.
      auto tally = [&](const char* key) {
        return r.unsignedInt(r.member(sites[s], sc, key), Reader::field(sc, key), "bytes");
      };
      uint64_t counted = tally("inter_iteration") + tally("leak");  // each < 2^63: no overflow
      if (counted == 0) continue;
      uint64_t& bytes = slot.sites[r.string(sites[s], sc, "where")];
      bytes = std::min<uint64_t>(bytes + counted, kMaxI64);
    }
  }

  std::string trend_ctx = Reader::field(ctx, "trend");
  const json& trends = r.array(r.member(run, ctx, "trend"), trend_ctx, "per_memory");
  for (size_t i = 0; i < trends.size(); ++i) {
    std::string c = Reader::index(trend_ctx, "per_memory", i);
    const json& t = trends[i];
    SlotMetrics& slot = slotFor(slots, r.u32(t, c, "device"), r.string(t, c, "kind"));
    int64_t slope = r.signedInt(t, c, "slope_bytes_per_iteration");
    // "unknown": fewer than 3 windows fitted, too few for a slope to mean anything.
    if (r.string(t, c, "verdict") != "unknown") slot.slope = slope;
  }

  for (auto& [key, slot] : slots) out.slots.push_back(std::move(slot));
  return out;
}

FindingRef readFinding(const Reader& r, const json& item, const std::string& ctx) {
  FindingRef f;
  f.id = r.string(item, ctx, "id");
  f.rule = r.string(item, ctx, "rule");
  f.message = r.string(item, ctx, "message");
  if (auto loc = item.find("location"); loc != item.end() && loc->is_object()) {
    std::string c = Reader::field(ctx, "location");
    f.file = r.string(*loc, c, "file");
    f.line = r.u32(*loc, c, "line");
    if (loc->contains("column")) f.column = r.u32(*loc, c, "column");
  }
  return f;
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

void compareSlot(const std::string& run, const SlotMetrics& base, const SlotMetrics& cur,
                 const GateThresholds& t, std::vector<GateCheck>& checks) {
  const SlotMetrics& key = cur;
  auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };  // <= 2^63 − 1 (Reader)
  checks.push_back(makeCheck(Metric::kIdleFloor, run, key, i64(base.idle_floor),
                             i64(cur.idle_floor), t.idle_floor));
  checks.push_back(makeCheck(Metric::kPeak, run, key, i64(base.peak), i64(cur.peak), t.peak));
  // Growth needs a fitted slope in current; a baseline without one is taken as flat.
  if (cur.slope) {
    checks.push_back(
        makeCheck(Metric::kFloorGrowth, run, key, base.slope.value_or(0), *cur.slope, t.growth));
  }
  std::set<std::string> wheres;
  for (const auto& [where, bytes] : base.sites) wheres.insert(where);
  for (const auto& [where, bytes] : cur.sites) wheres.insert(where);
  for (const std::string& where : wheres) {
    auto b = base.sites.find(where);
    auto c = cur.sites.find(where);
    GateCheck check =
        makeCheck(Metric::kSiteRetained, run, key, b == base.sites.end() ? 0 : i64(b->second),
                  c == cur.sites.end() ? 0 : i64(c->second), t.site);
    check.site = where;
    checks.push_back(std::move(check));
  }
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

}  // namespace

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
  Reader r(path);
  ReportMetrics out;
  out.path = std::string(path);
  const json& runs = r.array(report, "", "runs");
  std::unordered_map<std::string, int> seen;
  for (size_t i = 0; i < runs.size(); ++i) {
    RunMetrics run = readRun(r, runs[i], Reader::index("", "runs", i));
    // Labels name runs across reports; a repeated label (two traces of the same file name and no
    // rank) is told apart by its position among the runs of that label.
    int n = ++seen[run.label];
    if (n > 1) run.label = fmt::format("{} #{}", run.label, n);
    out.runs.push_back(std::move(run));
  }
  const json& findings = r.member(report, "", "findings");
  const json& items = r.array(findings, "findings", "items");
  for (size_t i = 0; i < items.size(); ++i) {
    out.findings.push_back(readFinding(r, items[i], Reader::index("findings", "items", i)));
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
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    if (partner[i] == nullptr) continue;
    const RunMetrics& base = baseline.runs[i];
    const RunMetrics& cur = *partner[i];
    // Memories on one side only compare with zero on the other: a new one can regress, a gone
    // one is a decrease.
    std::map<SlotKey, std::pair<const SlotMetrics*, const SlotMetrics*>> slots;
    for (const SlotMetrics& s : base.slots) slots[{s.device, s.kind}].first = &s;
    for (const SlotMetrics& s : cur.slots) slots[{s.device, s.kind}].second = &s;
    for (const auto& [key, pair] : slots) {
      SlotMetrics empty;
      empty.device = key.first;
      empty.kind = key.second;
      compareSlot(cur.label, pair.first ? *pair.first : empty, pair.second ? *pair.second : empty,
                  thresholds, result.checks);
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

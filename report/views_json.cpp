// The report's views of a run in report.json: iteration count, the caching allocator's levels,
// the order of rows and ranges, and the headline floor and peak.
#include "report/views_json.h"

#include <algorithm>
#include <set>

#include "report/census_summary.h"
#include "report/codec.h"
#include "report/iteration_ranges.h"
#include "report/levels.h"

namespace memfloor::report {
namespace {

using nlohmann::json;

// The rows and the ranges in the order of their iterations: {"row": i} for iterations[i], or
// {"range": k, "like": i} for iteration_ranges[k] and the row it repeats (-1: not kept).
json entriesJson(const Report& r) {
  json out = json::array();
  auto rowOf = [&r](uint32_t index) {
    auto it = std::lower_bound(r.iterations.begin(), r.iterations.end(), index,
                               [](const IterationRow& row, uint32_t i) { return row.index < i; });
    return it != r.iterations.end() && it->index == index ? it - r.iterations.begin() : -1;
  };
  size_t k = 0;
  auto rangesBefore = [&](uint64_t index) {
    for (; k < r.iteration_ranges.size() && r.iteration_ranges[k].first < index; ++k) {
      out.push_back({{"range", k}, {"like", rowOf(r.iteration_ranges[k].like)}});
    }
  };
  for (size_t i = 0; i < r.iterations.size(); ++i) {
    rangesBefore(r.iterations[i].index);
    out.push_back({{"row", i}});
  }
  rangesBefore(UINT64_MAX);
  return out;
}

// The largest steady idle floor over the devices' headline memories (headlineKey), with the
// reserved floor of its device beside an allocated one; null when there is none.
json steadyHeadlineJson(const Report& r) {
  const SteadyFloor* best = nullptr;
  for (const SteadyFloor& s : r.steady) {
    if (!(s.key == headlineKey(r, s.key.device))) continue;
    if (best == nullptr || s.idle_floor > best->idle_floor) best = &s;
  }
  if (best == nullptr) return nullptr;
  json j = steadyFloorJson(*best);
  const SteadyFloor* reserved =
      best->key.kind == trace::MemoryKind::kBlock
          ? steadyFloorOf(r, {best->key.device, trace::MemoryKind::kDevice})
          : nullptr;
  j["reserved_idle_floor"] = reserved != nullptr ? json(reserved->idle_floor) : json(nullptr);
  return j;
}

json censusSummaryJson(const CensusSummary& c) {
  return {{"taken", c.taken},         {"windows", c.windows}, {"last_iteration", c.last_iteration},
          {"allocated", c.allocated}, {"held", c.held},       {"holders", c.holders}};
}

}  // namespace

json runViewsJson(const Report& r) {
  std::set<uint32_t> blocks;
  json reserved = json::array();
  std::optional<uint64_t> peak;
  for (const MemorySummary& m : r.memory) {
    if (m.key.kind == trace::MemoryKind::kBlock) blocks.insert(m.key.device);
    if (isReservedLevel(r, m.key)) {
      json k;
      putKey(k, m.key);
      reserved.push_back(std::move(k));
    }
    if (m.key == headlineKey(r, m.key.device)) peak = std::max(peak.value_or(0), m.peak);
  }
  return {{"iteration_count", iterationCount(r)},
          {"devices_with_blocks", blocks},
          {"reserved_levels", std::move(reserved)},
          {"entries", entriesJson(r)},
          {"steady_headline", steadyHeadlineJson(r)},
          {"headline_peak", peak ? json(*peak) : json(nullptr)},
          {"census_summary", censusSummaryJson(censusSummary(r))}};
}

void putViews(json& doc, const MergedReport& m) {
  json& runs = doc.at("runs");
  for (size_t i = 0; i < m.runs.size() && i < runs.size(); ++i) {
    runs[i].update(runViewsJson(m.runs[i]));
  }
}

}  // namespace memfloor::report

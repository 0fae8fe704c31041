// runs[].iteration_ranges: alike iterations and trends stored once, each part's writer beside its
// reader (docs/report-schema.md, "iteration_ranges[]").
#include "report/range_json.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "report/codec.h"
#include "report/iteration_ranges.h"

namespace memfloor::report {

using common::JsonFields;
using nlohmann::json;

// ---- Writing ----

namespace {

// A step's total: exact when it fits an i64 (conversions to a signed type wrap).
json toJson(const RetainedStep& r, bool blocks) {
  auto sum = [&r](int64_t TallyStep::*part) {
    return static_cast<int64_t>(
        static_cast<uint64_t>(r.inter_iteration.*part) + static_cast<uint64_t>(r.leak.*part) +
        static_cast<uint64_t>(r.persistent.*part) + static_cast<uint64_t>(r.cached.*part));
  };
  return retainedJson(r, TallyStep{sum(&TallyStep::bytes), sum(&TallyStep::count)}, blocks);
}

json toJson(const Spread& s) { return {{"min", s.min}, {"max", s.max}, {"mean", s.mean}}; }

json toJson(const TallySpread& t) {
  return {{"bytes", toJson(t.bytes)}, {"count", toJson(t.count)}};
}

json toJson(const RangeMemory& m) {
  json j;
  putKey(j, m.key);
  j["live_at_start"] = toJson(m.live_at_start);
  j["live_at_end"] = toJson(m.live_at_end);
  j["peak"] = toJson(m.peak);
  j["floor"] = toJson(m.floor);
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  j["idle"] = {{"peak", toJson(m.idle.peak)},
               {"live_at_end", toJson(m.idle.live_at_end)},
               {"allocated", toJson(m.idle.allocated)},
               {"freed", toJson(m.idle.freed)}};
  return j;
}

// A trend range's `step`, in the shape of its like row's idle windows and top sites.
json toJson(const WindowStep& s, bool blocks) {
  json memory = json::array();
  for (const WindowStep::Memory& m : s.memory) {
    json j;
    putKey(j, m.key);
    j["floor"] = m.floor;
    j["retained"] = toJson(m.retained, blocks);
    memory.push_back(std::move(j));
  }
  json sites = json::array();
  for (const RetainedStep& r : s.top_sites) sites.push_back(toJson(r, blocks));
  return {{"memory", std::move(memory)}, {"top_sites", std::move(sites)}};
}

}  // namespace

nlohmann::json rangeJson(const IterationRange& r, bool blocks) {
  json j = {{"first", r.first},
            {"last", r.last},
            {"count", r.count()},
            {"like", r.like},
            {"start_ns", r.start_ns},
            {"end_ns", r.end_ns},
            {"duration_ns", toJson(r.duration_ns)},
            {"idle_ns", toJson(r.idle_ns)},
            {"memory", json::array()}};
  for (const RangeMemory& m : r.memory) j["memory"].push_back(toJson(m));
  if (!r.step.empty()) j["step"] = toJson(r.step, blocks);  // only then: absent is alike
  return j;
}

// ---- Reading ----

namespace {

// A spread {"min", "max", "mean"}: of bytes (`bytes`), else of a count or a duration.
Spread spread(const JsonFields& f, const json& j, std::string_view c, const char* key, bool bytes) {
  const std::string sc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  auto at = [&](const char* k) { return bytes ? f.bytes(o, sc, k) : f.u64(o, sc, k); };
  Spread out{at("min"), at("max"), at("mean")};
  if (out.min > out.max || out.mean < out.min || out.mean > out.max) {
    f.fail(sc, "expected min <= mean <= max");
  }
  return out;
}

TallySpread tallySpread(const JsonFields& f, const json& j, std::string_view c, const char* key) {
  const std::string tc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  return {spread(f, o, tc, "bytes", true), spread(f, o, tc, "count", false)};
}

RangeMemory rangeMemory(const JsonFields& f, const json& j, const std::string& c) {
  RangeMemory m;
  m.key = readKey(f, j, c);
  m.live_at_start = spread(f, j, c, "live_at_start", true);
  m.live_at_end = spread(f, j, c, "live_at_end", true);
  m.peak = spread(f, j, c, "peak", true);
  m.floor = spread(f, j, c, "floor", true);
  m.allocated = tallySpread(f, j, c, "allocated");
  m.freed = tallySpread(f, j, c, "freed");
  const std::string ic = JsonFields::field(c, "idle");
  const json& idle = f.object(j, c, "idle");
  m.idle.peak = spread(f, idle, ic, "peak", true);
  m.idle.live_at_end = spread(f, idle, ic, "live_at_end", true);
  m.idle.allocated = tallySpread(f, idle, ic, "allocated");
  m.idle.freed = tallySpread(f, idle, ic, "freed");
  return m;
}

TallyStep tallyStep(const JsonFields& f, const json& j, std::string_view c, const char* key) {
  const std::string tc = JsonFields::field(c, key);
  const json& o = f.object(j, c, key);
  return {f.i64(o, tc, "bytes"), f.i64(o, tc, "count")};
}

// A retained object's step; `cached` as in retained objects. The totals are derived: not read.
RetainedStep retainedStep(const JsonFields& f, const json& j, const std::string& c) {
  RetainedStep r{tallyStep(f, j, c, "inter_iteration"),
                 tallyStep(f, j, c, "leak"),
                 tallyStep(f, j, c, "persistent"),
                 {}};
  if (f.optional(j, c, "cached") != nullptr) r.cached = tallyStep(f, j, c, "cached");
  return r;
}

WindowStep::Memory memoryStep(const JsonFields& f, const json& j, const std::string& c) {
  return {readKey(f, j, c), f.i64(j, c, "floor"),
          retainedStep(f, f.object(j, c, "retained"), JsonFields::field(c, "retained"))};
}

// A trend range's `step`; whether it fits its like row is checked once the rows are read
// (checkSteps).
WindowStep windowStep(const JsonFields& f, const json& j, const std::string& c) {
  WindowStep s;
  s.memory = readArray<WindowStep::Memory>(f, j, c, "memory", memoryStep);
  s.top_sites = readArray<RetainedStep>(f, j, c, "top_sites", retainedStep);
  if (s.empty()) f.fail(c, "expected a memory or a top site: an alike range has no step");
  return s;
}

}  // namespace

IterationRange readRange(const JsonFields& f, const json& j, const std::string& c) {
  IterationRange r;
  r.first = f.u32(j, c, "first");
  r.last = f.u32(j, c, "last");
  if (r.first == 0 || r.last < r.first) f.fail(c, "expected 1 <= first <= last");
  r.like = f.u32(j, c, "like");
  if (r.like == 0 || r.like >= r.first)
    f.fail(JsonFields::field(c, "like"), "expected 1 <= like < first");
  r.start_ns = f.u64(j, c, "start_ns");
  r.end_ns = f.u64(j, c, "end_ns");
  r.duration_ns = spread(f, j, c, "duration_ns", false);
  r.idle_ns = spread(f, j, c, "idle_ns", false);
  r.memory = readArray<RangeMemory>(f, j, c, "memory", rangeMemory);
  // Added within memfloor.report/3, on trend ranges only: absent, the range is alike.
  if (f.optional(j, c, "step") != nullptr)
    r.step = windowStep(f, f.object(j, c, "step"), JsonFields::field(c, "step"));
  return r;
}

// Every iteration of a trend range expands from its like row: a row kept whole, of the step's
// shape, every stepped number within 0..2^63-1 (stepFault).
void checkSteps(const JsonFields& f, const Report& r, const std::string& c) {
  for (size_t k = 0; k < r.iteration_ranges.size(); ++k) {
    const IterationRange& range = r.iteration_ranges[k];
    if (range.step.empty()) continue;
    const std::string rc = JsonFields::index(JsonFields::field(c, "iteration_ranges"), k);
    auto like = std::lower_bound(r.iterations.begin(), r.iterations.end(), range.like,
                                 [](const IterationRow& row, uint32_t i) { return row.index < i; });
    if (like == r.iterations.end() || like->index != range.like) {
      f.fail(JsonFields::field(rc, "like"),
             fmt::format("iteration {} is not kept whole: the step has nothing to start from",
                         range.like));
    }
    const std::string fault = stepFault(range, *like);
    if (!fault.empty()) f.fail(JsonFields::field(rc, "step"), fault);
  }
}

}  // namespace memfloor::report

// Alike iterations, and iterations along a trend, into ranges: which rows stay whole, when an idle
// window repeats or steps from the one before, and the spreads of what may differ between them.
#include "report/iteration_ranges.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace memfloor::report {
namespace {

using WindowExplains = std::vector<const Explained*>;  // one window's, by finding then memory

bool sameExplains(const WindowExplains& a, const WindowExplains& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k]->finding != b[k]->finding || a[k]->key != b[k]->key ||
        a[k]->retained != b[k]->retained) {
      return false;
    }
  }
  return true;
}

// The window's parts a range never steps: the memories, the sites in rank order, and the explained
// bytes (a finding's bytes step with its explains entries, which stay per window) are the same.
bool sameShape(const IterationRow& a, const IterationRow& b) {
  if (a.memory.size() != b.memory.size() || a.top_sites.size() != b.top_sites.size()) return false;
  for (size_t p = 0; p < a.memory.size(); ++p) {
    if (a.memory[p].key != b.memory[p].key ||
        a.memory[p].idle.explained != b.memory[p].idle.explained) {
      return false;
    }
  }
  for (size_t k = 0; k < a.top_sites.size(); ++k) {
    const RetainedSite& x = a.top_sites[k];
    const RetainedSite& y = b.top_sites[k];
    if (x.key != y.key || x.stack != y.stack || x.where != y.where || x.findings != y.findings)
      return false;
  }
  return true;
}

// Where a stepped number is, as the report names it under a range's `step`:
// "memory[0].retained.leak.bytes".
struct Place {
  const char* part;  // "memory" or "top_sites"
  size_t index;
  const char* field;
};

template <typename R, typename S, typename F>
void eachRetained(R& r, S& s, const char* part, size_t index, F& f) {
  f(r.inter_iteration.bytes, s.inter_iteration.bytes,
    Place{part, index, "retained.inter_iteration.bytes"});
  f(r.inter_iteration.count, s.inter_iteration.count,
    Place{part, index, "retained.inter_iteration.count"});
  f(r.leak.bytes, s.leak.bytes, Place{part, index, "retained.leak.bytes"});
  f(r.leak.count, s.leak.count, Place{part, index, "retained.leak.count"});
  f(r.persistent.bytes, s.persistent.bytes, Place{part, index, "retained.persistent.bytes"});
  f(r.persistent.count, s.persistent.count, Place{part, index, "retained.persistent.count"});
  f(r.cached.bytes, s.cached.bytes, Place{part, index, "retained.cached.bytes"});
  f(r.cached.count, s.cached.count, Place{part, index, "retained.cached.count"});
}

// Calls f(value, step, place) for every number of `row`'s idle window that a range steps, and its
// step. `step` has row's shape (stepFault).
template <typename Row, typename Step, typename F>
void eachStepped(Row& row, Step& step, F&& f) {
  for (size_t p = 0; p < step.memory.size(); ++p) {
    f(row.memory[p].idle.floor, step.memory[p].floor, Place{"memory", p, "floor"});
    eachRetained(row.memory[p].idle.retained, step.memory[p].retained, "memory", p, f);
  }
  for (size_t k = 0; k < step.top_sites.size(); ++k)
    eachRetained(row.top_sites[k].retained, step.top_sites[k], "top_sites", k, f);
}

// Wide enough for a u64 plus an i64 times a u32, and their differences.
__extension__ using Wide = __int128;

// A zero step in row's shape.
WindowStep shapeOf(const IterationRow& row) {
  WindowStep step;
  for (const IterationMemory& m : row.memory) step.memory.emplace_back().key = m.key;
  step.top_sites.resize(row.top_sites.size());
  return step;
}

bool isFlat(const WindowStep& step) {
  return std::all_of(step.memory.begin(), step.memory.end(),
                     [](const WindowStep::Memory& m) {
                       return m.floor == 0 && m.retained == RetainedStep{};
                     }) &&
         std::all_of(step.top_sites.begin(), step.top_sites.end(),
                     [](const RetainedStep& s) { return s == RetainedStep{}; });
}

std::vector<uint64_t> steppedValues(const IterationRow& row, const WindowStep& shape) {
  std::vector<uint64_t> out;
  eachStepped(row, shape, [&out](uint64_t v, int64_t, Place) { out.push_back(v); });
  return out;
}

// What `next` (the iteration after `base`, of the same shape) adds to base's window: none when a
// difference does not fit an i64.
std::optional<WindowStep> stepBetween(const IterationRow& base, const IterationRow& next) {
  WindowStep step = shapeOf(base);
  const std::vector<uint64_t> to = steppedValues(next, step);
  size_t k = 0;
  bool fits = true;
  eachStepped(base, step, [&](uint64_t v, int64_t& s, Place) {
    const Wide d = Wide{to[k++]} - Wide{v};
    fits = fits && d >= std::numeric_limits<int64_t>::min() &&
           d <= std::numeric_limits<int64_t>::max();
    s = static_cast<int64_t>(d);
  });
  if (!fits) return std::nullopt;
  return step;
}

// Whether `row`'s window is base's plus (row - base) steps, every number exactly.
bool onLine(const IterationRow& base, const WindowStep& step, const IterationRow& row) {
  const std::vector<uint64_t> got = steppedValues(row, step);
  const Wide n = Wide{row.index} - Wide{base.index};
  size_t k = 0;
  bool on = true;
  eachStepped(base, step, [&](uint64_t v, int64_t s, Place) {
    on = on && Wide{v} + Wide{s} * n == Wide{got[k]};
    ++k;
  });
  return on;
}

// Calls f(spread, value) for every spread of `range` and the value of `row` it spreads over.
template <typename F>
void eachSpread(IterationRange& range, const IterationRow& row, F&& f) {
  f(range.duration_ns, row.end_ns - row.start_ns);
  f(range.idle_ns, row.idle_end_ns - row.idle_start_ns);
  for (size_t p = 0; p < range.memory.size(); ++p) {
    RangeMemory& r = range.memory[p];
    const IterationMemory& m = row.memory[p];
    f(r.live_at_start, m.live_at_start);
    f(r.live_at_end, m.live_at_end);
    f(r.peak, m.peak);
    f(r.floor, m.floor);
    f(r.allocated.bytes, m.allocated.bytes);
    f(r.allocated.count, m.allocated.count);
    f(r.freed.bytes, m.freed.bytes);
    f(r.freed.count, m.freed.count);
    f(r.idle.peak, m.idle.peak);
    f(r.idle.live_at_end, m.idle.live_at_end);
    f(r.idle.allocated.bytes, m.idle.allocated.bytes);
    f(r.idle.allocated.count, m.idle.allocated.count);
    f(r.idle.freed.bytes, m.idle.freed.bytes);
    f(r.idle.freed.count, m.idle.freed.count);
  }
}

// Sums for the means: 2^64 values of up to 2^64 fit.
__extension__ using Sum = unsigned __int128;

// One range, row by row: min and max as they come, sums for the means.
class RangeBuilder {
 public:
  RangeBuilder(const IterationRow& row, uint32_t like, const WindowStep& step) {
    range_.first = row.index;
    range_.like = like;
    if (!isFlat(step)) range_.step = step;
    range_.start_ns = row.start_ns;
    for (const IterationMemory& m : row.memory) range_.memory.emplace_back().key = m.key;
    eachSpread(range_, row, [this](Spread& s, uint64_t v) {
      s.min = s.max = v;
      sums_.push_back(v);
    });
    last(row);
  }

  void add(const IterationRow& row) {
    size_t k = 0;
    eachSpread(range_, row, [this, &k](Spread& s, uint64_t v) {
      s.min = std::min(s.min, v);
      s.max = std::max(s.max, v);
      sums_[k++] += v;
    });
    last(row);
  }

  uint32_t like() const { return range_.like; }

  IterationRange finish() {
    const Sum n = range_.count();
    size_t k = 0;
    IterationRow shape;  // the spreads only, in eachSpread's order: its values are not read
    shape.memory.resize(range_.memory.size());
    eachSpread(range_, shape, [this, n, &k](Spread& s, uint64_t) {
      s.mean = static_cast<uint64_t>((sums_[k++] + n / 2) / n);
    });
    return std::move(range_);
  }

 private:
  void last(const IterationRow& row) {
    range_.last = row.index;
    range_.end_ns = row.idle_end_ns;
  }

  IterationRange range_;
  std::vector<Sum> sums_;  // in eachSpread's order
};

// Entries come by finding, then iteration: an entry extends the open one of its finding and
// memory when it follows it and retains the same.
void mergeExplained(std::vector<Explained>& entries) {
  std::vector<Explained> out;
  std::map<std::tuple<uint32_t, uint32_t, trace::MemoryKind>, size_t> open;
  for (const Explained& e : entries) {
    const auto key = std::make_tuple(e.finding, e.key.device, e.key.kind);
    auto it = open.find(key);
    if (it != open.end()) {
      Explained& q = out[it->second];
      if (q.last_iteration + 1 == e.iteration && q.retained == e.retained) {
        q.last_iteration = e.last_iteration;
        continue;
      }
    }
    open[key] = out.size();
    out.push_back(e);
  }
  entries = std::move(out);
}

}  // namespace

uint32_t iterationCount(const Report& report) {
  auto n = static_cast<uint32_t>(report.iterations.size());
  for (const IterationRange& range : report.iteration_ranges) n += range.count();
  return n;
}

std::optional<IterationRow> windowOf(const Report& report, uint32_t index) {
  const IterationRange* in = nullptr;
  for (const IterationRange& range : report.iteration_ranges) {
    if (index >= range.first && index <= range.last) in = &range;
  }
  const uint32_t kept = in != nullptr ? in->like : index;
  auto row = std::lower_bound(report.iterations.begin(), report.iterations.end(), kept,
                              [](const IterationRow& r, uint32_t i) { return r.index < i; });
  if (row == report.iterations.end() || row->index != kept) return std::nullopt;
  return in != nullptr ? windowIn(*in, *row, index) : *row;
}

IterationRow windowIn(const IterationRange& range, const IterationRow& like, uint32_t index) {
  assert(stepFault(range, like).empty() && "a range read from a report is checked as it is read");
  IterationRow row = like;
  const Wide n = Wide{index} - Wide{range.like};
  eachStepped(row, range.step,
              [n](uint64_t& v, int64_t s, Place) { v = static_cast<uint64_t>(Wide{v} + s * n); });
  return row;
}

std::string stepFault(const IterationRange& range, const IterationRow& like) {
  const WindowStep& step = range.step;
  if (step.empty()) return {};
  if (step.memory.size() != like.memory.size()) {
    return fmt::format("memory: {} entries, iteration {} has {}", step.memory.size(), range.like,
                       like.memory.size());
  }
  for (size_t p = 0; p < step.memory.size(); ++p) {
    if (step.memory[p].key != like.memory[p].key)
      return fmt::format("memory[{}]: not the memory of iteration {}'s memory[{}]", p, range.like,
                         p);
  }
  if (step.top_sites.size() != like.top_sites.size()) {
    return fmt::format("top_sites: {} entries, iteration {} has {}", step.top_sites.size(),
                       range.like, like.top_sites.size());
  }
  std::string fault;
  eachStepped(like, step, [&](uint64_t v, int64_t s, Place at) {
    for (const uint32_t i : {range.first, range.last}) {
      const Wide x = Wide{v} + Wide{s} * (Wide{i} - Wide{range.like});
      if (!fault.empty() || (x >= 0 && x <= std::numeric_limits<int64_t>::max())) continue;
      fault = fmt::format(
          "{}[{}].{}: {} from iteration {} by {} per iteration is {} at iteration {}", at.part,
          at.index, at.field, v, range.like, s, x < 0 ? "negative" : "past 2^63-1", i);
    }
  });
  return fault;
}

struct IterationCompactor::State {
  std::vector<bool> kept;
  std::vector<WindowExplains> explains;  // by iteration - 1
  bool enabled = true;
  std::optional<size_t> like;         // position in report.iterations of the last kept row
  WindowStep step;                    // of the open run, in like's shape; zero: alike
  std::vector<IterationRow> pending;  // rows of the run, fewer than kMinRangeIterations
  std::optional<RangeBuilder> range;  // once they are that many

  const WindowExplains& explainsOf(uint32_t index) const {
    static const WindowExplains kNone;
    return index >= 1 && index <= explains.size() ? explains[index - 1] : kNone;
  }

  // Whether `row` continues the run from the like row: its window is like's plus one step per
  // iteration, the step that the run's first row, the one after like, took.
  bool joins(const IterationRow& row, const Report& report) {
    if (!enabled || !like || (row.index >= 1 && row.index <= kept.size() && kept[row.index - 1]))
      return false;
    const IterationRow& base = report.iterations[*like];
    if (!sameShape(row, base) || !sameExplains(explainsOf(row.index), explainsOf(base.index)))
      return false;
    if (range || !pending.empty()) return onLine(base, step, row);
    if (row.index != base.index + 1) return false;
    std::optional<WindowStep> first = stepBetween(base, row);
    if (!first) return false;
    step = std::move(*first);
    return true;
  }

  // The run ends: a range when it is long enough, else its rows, kept whole; true in that case,
  // the last of them the like row now.
  bool close(Report& report) {
    if (range) {
      report.iteration_ranges.push_back(range->finish());
      range.reset();
      return false;
    }
    if (pending.empty()) return false;
    for (IterationRow& row : pending) report.iterations.push_back(std::move(row));
    pending.clear();
    like = report.iterations.size() - 1;
    return true;
  }
};

IterationCompactor::IterationCompactor(std::vector<bool> kept,
                                       const std::vector<Explained>& explained, bool enabled)
    : state_(std::make_unique<State>()) {
  state_->kept = std::move(kept);
  state_->enabled = enabled;
  state_->explains.resize(state_->kept.size());
  for (const Explained& e : explained) {
    if (e.iteration >= 1 && e.iteration <= state_->explains.size())
      state_->explains[e.iteration - 1].push_back(&e);
  }
}

IterationCompactor::~IterationCompactor() = default;

void IterationCompactor::add(IterationRow row, Report& report) {
  State& s = *state_;
  // A row that ends a run too short for a range may start the next one from that run's last row.
  if (!s.joins(row, report) && !(s.close(report) && s.joins(row, report))) {
    report.iterations.push_back(std::move(row));
    s.like = report.iterations.size() - 1;
    return;
  }
  if (s.range) {
    s.range->add(row);
    return;
  }
  s.pending.push_back(std::move(row));
  if (s.pending.size() < kMinRangeIterations) return;
  s.range.emplace(s.pending.front(), report.iterations[*s.like].index, s.step);
  for (size_t k = 1; k < s.pending.size(); ++k) s.range->add(s.pending[k]);
  s.pending.clear();
}

void IterationCompactor::finish(Report& report) {
  state_->close(report);
  mergeExplained(report.explained);
}

}  // namespace memfloor::report

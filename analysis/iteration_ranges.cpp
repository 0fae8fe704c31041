// Alike iterations into ranges: which rows stay whole, when two idle windows are the same, and the
// spreads of what may differ between them.
#include "analysis/iteration_ranges.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace memfloor::analysis {
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

// The same idle window, to the byte (docs/report-schema.md, "iteration_ranges[]").
bool sameWindow(const IterationRow& a, const IterationRow& b) {
  if (a.memory.size() != b.memory.size() || a.top_sites != b.top_sites) return false;
  for (size_t p = 0; p < a.memory.size(); ++p) {
    const IterationMemory& x = a.memory[p];
    const IterationMemory& y = b.memory[p];
    if (x.key != y.key || x.idle.floor != y.idle.floor || x.idle.retained != y.idle.retained ||
        x.idle.explained != y.idle.explained) {
      return false;
    }
  }
  return true;
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
  RangeBuilder(const IterationRow& row, uint32_t like) {
    range_.first = row.index;
    range_.like = like;
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

const IterationRow* windowOf(const Report& report, uint32_t index) {
  for (const IterationRange& range : report.iteration_ranges) {
    if (index >= range.first && index <= range.last) index = range.like;
  }
  auto row = std::lower_bound(report.iterations.begin(), report.iterations.end(), index,
                              [](const IterationRow& r, uint32_t i) { return r.index < i; });
  return row != report.iterations.end() && row->index == index ? &*row : nullptr;
}

struct IterationCompactor::State {
  std::vector<bool> kept;
  std::vector<WindowExplains> explains;  // by iteration - 1
  bool enabled = true;
  std::optional<size_t> like;         // position in report.iterations of the last kept row
  std::vector<IterationRow> pending;  // alike rows, fewer than kMinRangeIterations
  std::optional<RangeBuilder> range;  // once they are that many

  const WindowExplains& explainsOf(uint32_t index) const {
    static const WindowExplains kNone;
    return index >= 1 && index <= explains.size() ? explains[index - 1] : kNone;
  }

  bool alike(const IterationRow& row, const Report& report) const {
    if (!enabled || !like || (row.index >= 1 && row.index <= kept.size() && kept[row.index - 1]))
      return false;
    const IterationRow& kept_row = report.iterations[*like];
    return sameWindow(row, kept_row) &&
           sameExplains(explainsOf(row.index), explainsOf(kept_row.index));
  }

  // The run of alike rows ends: a range when it is long enough, else its rows.
  void close(Report& report) {
    if (range) {
      report.iteration_ranges.push_back(range->finish());
      range.reset();
    }
    for (IterationRow& row : pending) report.iterations.push_back(std::move(row));
    pending.clear();
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
  if (!s.alike(row, report)) {
    s.close(report);
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
  s.range.emplace(s.pending.front(), report.iterations[*s.like].index);
  for (size_t k = 1; k < s.pending.size(); ++k) s.range->add(s.pending[k]);
  s.pending.clear();
}

void IterationCompactor::finish(Report& report) {
  state_->close(report);
  mergeExplained(report.explained);
}

}  // namespace memfloor::analysis

// Tests of the assembled report against a naive reference replay on random traces.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>

#include "checked_analysis.h"
#include "common/error.h"
#include "invariants.h"
#include "trace_builder.h"

namespace memfloor::analysis::test {
namespace {

using trace::MemoryKind;

// The last, allocator blocks on device 0, only in some traces: there device 0's device memory is
// a reserved level (what would be its leak is cached).
constexpr std::array<At, 4> kSlots = {At{}, At{.kind = MemoryKind::kPinned}, At{.device = 1},
                                      At{.kind = MemoryKind::kBlock}};
constexpr size_t kBlockSlot = 3;

// The definitions of docs/design.md, computed the slow and obvious way: every allocation has an
// id, phases keep their min/max per slot, windows remember which ids lived through them.
class NaiveReplay {
 public:
  explicit NaiveReplay(uint32_t warmup) : warmup_(warmup) { open(); }

  struct Alloc {
    uint64_t id, size;
    size_t slot;
    trace::StackId stack;
    uint32_t first_window;
    bool persistent_born;
    uint32_t iteration;  // 1-based: the iteration it was made in, or the last one before it
    bool in_iteration;
  };
  struct Stats {
    uint64_t start = 0, end = 0, peak = 0, floor = 0;
  };
  using Row = std::array<Stats, kSlots.size()>;

  void alloc(size_t slot, uint64_t address, uint64_t size, trace::StackId stack) {
    if (auto it = live_.find({slot, address}); it != live_.end()) close(it);
    Alloc a{
        next_id_++,          size,     slot,         stack, in_iteration_ ? started_ - 1 : started_,
        started_ <= warmup_, started_, in_iteration_};
    live_.emplace(std::pair{slot, address}, a);
    all_.push_back(a);
    blocks_ |= slot == kBlockSlot;
    change(slot, static_cast<int64_t>(size));
  }
  void free(size_t slot, uint64_t address) {
    if (auto it = live_.find({slot, address}); it != live_.end()) close(it);
  }
  void begin() {
    if (started_ > 0) closeWindow();
    ++started_;
    in_iteration_ = true;
    open();
    for (size_t s = 0; s < kSlots.size(); ++s) at_peak_[s] = liveIds(s);
    peaks_.emplace_back();
  }
  void end() {
    closeIteration();
    run_end_ = snapshot_;  // the run's end so far: what is live now was not freed in the run
  }
  // An iteration the trace ended inside has no idle window after it: it retains nothing, and the
  // run ended with the iteration before.
  void finish() {
    bool cut = in_iteration_;
    if (cut) closeIteration();
    if (started_ > 0) closeWindow(cut);
  }

  const std::vector<Row>& iterations() const { return iterations_; }
  const std::vector<Row>& windows() const { return windows_; }

  // Retained bytes by class, per window and slot. Fates are those at the run's end (the end of
  // the last complete iteration): a retained allocation live then was never freed in the run,
  // whatever the teardown did after.
  std::vector<std::array<RetainedTally, kSlots.size()>> retention() const {
    const Fates fates = fatesAtEnd();
    std::vector<std::array<RetainedTally, kSlots.size()>> out(retained_.size());
    for (size_t w = 0; w < retained_.size(); ++w) {
      for (uint64_t id : retained_[w]) {
        const Alloc& a = all_[id];
        RetainedTally& t = out[w][a.slot];
        switch (classOf(fates, a)) {
          case RetentionClass::kInterIteration:
            t.inter_iteration.add(a.size);
            break;
          case RetentionClass::kLeak:
            t.leak.add(a.size);
            break;
          case RetentionClass::kPersistent:
            t.persistent.add(a.size);
            break;
          case RetentionClass::kCached:
            t.cached.add(a.size);
            break;
        }
      }
    }
    return out;
  }

  // What is live at each iteration's peak (first reached) by class: the whole, and by stack.
  struct Peak {
    PeakTally whole;
    std::map<trace::StackId, PeakTally> sites;
  };
  std::vector<std::array<Peak, kSlots.size()>> peaks() const {
    const Fates fates = fatesAtEnd();
    std::vector<std::array<Peak, kSlots.size()>> out(peaks_.size());
    for (size_t i = 0; i < peaks_.size(); ++i) {
      for (size_t slot = 0; slot < kSlots.size(); ++slot) {
        Peak& peak = out[i][slot];
        for (uint64_t id : peaks_[i][slot]) {
          const Alloc& a = all_[id];
          peakClass(fates, i, a, peak.whole).add(a.size);
          peakClass(fates, i, a, peak.sites[a.stack]).add(a.size);
        }
      }
    }
    return out;
  }

 private:
  void closeIteration() {
    peaks_.back() = at_peak_;
    finishPhase(iterations_);
    snapshot_.clear();
    for (const auto& [key, a] : live_) snapshot_.insert(a.id);
    in_iteration_ = false;
  }
  // Who left what alive at the run's end, for the classes (docs/design.md, "Retention").
  struct Fates {
    std::set<uint64_t> alive;
    std::map<std::pair<size_t, trace::StackId>, std::set<uint32_t>> births;
    std::set<std::pair<size_t, trace::StackId>> freed_after_retained;
  };
  Fates fatesAtEnd() const {
    Fates f;
    f.alive = run_end_;
    for (const auto& ids : retained_) {
      for (uint64_t id : ids) {
        const Alloc& a = all_[id];
        if (a.persistent_born) continue;
        if (f.alive.contains(id)) {
          f.births[{a.slot, a.stack}].insert(a.first_window);
        } else {
          f.freed_after_retained.insert({a.slot, a.stack});
        }
      }
    }
    return f;
  }
  RetentionClass classOf(const Fates& f, const Alloc& a) const {
    std::pair site{a.slot, a.stack};
    if (a.persistent_born) return RetentionClass::kPersistent;
    if (!f.alive.contains(a.id)) return RetentionClass::kInterIteration;
    if (f.births.contains(site) && f.births.at(site).size() >= 2) {
      // On device 0's reserved level, what accumulates is the allocator's cache.
      return blocks_ && a.slot == 0 ? RetentionClass::kCached : RetentionClass::kLeak;
    }
    if (f.freed_after_retained.contains(site)) return RetentionClass::kInterIteration;
    return RetentionClass::kPersistent;
  }
  // Where an allocation live at iteration i's peak (0-based) counts.
  Tally& peakClass(const Fates& f, size_t i, const Alloc& a, PeakTally& t) const {
    if (a.persistent_born) return t.persistent;
    if (a.in_iteration && a.iteration == i + 1) return t.iteration;
    const bool retained = i > 0 && std::find(retained_[i - 1].begin(), retained_[i - 1].end(),
                                             a.id) != retained_[i - 1].end();
    if (!retained) return t.earlier_iteration;
    switch (classOf(f, a)) {
      case RetentionClass::kInterIteration:
        return t.inter_iteration;
      case RetentionClass::kLeak:
        return t.leak;
      case RetentionClass::kCached:
        return t.cached;
      case RetentionClass::kPersistent:
        break;
    }
    return t.persistent;
  }
  std::vector<uint64_t> liveIds(size_t slot) const {
    std::vector<uint64_t> ids;
    for (const auto& [key, a] : live_) {
      if (a.slot == slot) ids.push_back(a.id);
    }
    return ids;
  }

  void close(std::map<std::pair<size_t, uint64_t>, Alloc>::iterator it) {
    size_t slot = it->second.slot;
    uint64_t size = it->second.size;
    live_.erase(it);
    change(slot, -static_cast<int64_t>(size));
  }
  void change(size_t slot, int64_t delta) {
    bytes_[slot] = static_cast<uint64_t>(static_cast<int64_t>(bytes_[slot]) + delta);
    if (in_iteration_ && bytes_[slot] > current_[slot].peak) at_peak_[slot] = liveIds(slot);
    current_[slot].peak = std::max(current_[slot].peak, bytes_[slot]);
    current_[slot].floor = std::min(current_[slot].floor, bytes_[slot]);
  }
  void open() {
    for (size_t s = 0; s < kSlots.size(); ++s) current_[s] = {bytes_[s], 0, bytes_[s], bytes_[s]};
  }
  void finishPhase(std::vector<Row>& into) {
    for (size_t s = 0; s < kSlots.size(); ++s) current_[s].end = bytes_[s];
    into.push_back(current_);
    open();
  }
  void closeWindow(bool cut = false) {
    finishPhase(windows_);
    std::vector<uint64_t> kept;
    for (const auto& [key, a] : live_) {
      if (snapshot_.contains(a.id) && !cut) kept.push_back(a.id);
    }
    retained_.push_back(std::move(kept));
  }

  uint32_t warmup_;
  std::map<std::pair<size_t, uint64_t>, Alloc> live_;
  std::vector<Alloc> all_;
  uint64_t next_id_ = 0;
  std::array<uint64_t, kSlots.size()> bytes_{};
  Row current_{};
  std::vector<Row> iterations_, windows_;
  std::set<uint64_t> snapshot_;  // live at the last iteration's end
  std::set<uint64_t> run_end_;   // the same at the last complete iteration's end
  std::vector<std::vector<uint64_t>> retained_;
  std::array<std::vector<uint64_t>, kSlots.size()> at_peak_;  // the open iteration's, so far
  std::vector<std::array<std::vector<uint64_t>, kSlots.size()>> peaks_;  // by iteration
  uint32_t started_ = 0;
  bool in_iteration_ = false;
  bool blocks_ = false;  // a block was allocated: slot 0 is a reserved level
};

// A random loop: few addresses (reuse, double allocations, unmatched frees), three slots, four
// stacks, iterations marked in varied ways, sometimes cut off inside the last iteration.
struct Coverage {
  size_t inter = 0, leak = 0, persistent = 0, cached = 0, doubles = 0, unmatched = 0, cut = 0;
  size_t peak_iteration = 0, peak_earlier = 0, peak_inter = 0, peak_leak = 0, peak_cached = 0;
};

// The peak's classes, and its listed sites: the largest ones, each with its bytes by class.
void comparePeak(const PeakSnapshot& at_peak, const NaiveReplay::Peak& naive, Coverage& seen) {
  CHECK(at_peak.live == naive.whole);
  std::vector<uint64_t> largest;
  for (const auto& [stack, tally] : naive.sites) {
    if (tally.total().count > 0) largest.push_back(tally.total().bytes);
  }
  std::sort(largest.rbegin(), largest.rend());
  largest.resize(std::min(largest.size(), at_peak.sites.size()));
  std::vector<uint64_t> listed;
  for (const PeakSite& site : at_peak.sites) {
    INFO("stack " << site.stack);
    REQUIRE(naive.sites.contains(site.stack));
    CHECK(site.live == naive.sites.at(site.stack));
    listed.push_back(site.live.total().bytes);
  }
  CHECK(listed == largest);
  seen.peak_iteration += at_peak.live.iteration.count > 0;
  seen.peak_earlier += at_peak.live.earlier_iteration.count > 0;
  seen.peak_inter += at_peak.live.inter_iteration.count > 0;
  seen.peak_leak += at_peak.live.leak.count > 0;
  seen.peak_cached += at_peak.live.cached.count > 0;
}

void runRandomTrace(uint32_t seed, Coverage& seen) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return rng() % n; };
  uint32_t warmup = static_cast<uint32_t>(pick(3));
  const size_t slots = pick(2) == 0 ? kSlots.size() : kBlockSlot;  // half of them with blocks
  TraceBuilder t;
  NaiveReplay naive(warmup);
  uint64_t ts = 0;
  auto ops = [&](int n) {
    for (int i = 0; i < n; ++i) {
      size_t slot = pick(slots);
      uint64_t address = 0x1000 * (1 + pick(24));
      At at = kSlots[slot];
      ts += 1 + pick(5);
      if (pick(10) < 6) {
        at.stack = static_cast<trace::StackId>(1 + pick(4));
        uint64_t size = 1 + pick(1000);
        t.alloc(ts, address, size, at);
        naive.alloc(slot, address, size, at.stack);
      } else {
        t.free(ts, address, at);
        naive.free(slot, address);
      }
    }
  };
  ops(static_cast<int>(pick(20)));
  uint64_t iterations = 2 + pick(8);
  bool cut = pick(4) == 0;
  for (uint64_t i = 0; i < iterations; ++i) {
    std::string name = "step " + std::to_string(i + 1);
    bool start_end = pick(2) == 0;
    ts += 1;
    start_end ? t.start(ts, 1000 + i, name, 1) : t.push(ts, name, 1);
    naive.begin();
    ops(static_cast<int>(pick(30)));
    ts += 1;
    t.push(ts, "forward", 2).start(ts, 5000 + i, "iteration", 3);  // nested, other threads
    ops(static_cast<int>(pick(10)));
    ts += 1;
    t.pop(ts, 2).end(ts, 5000 + i, 2);
    ops(static_cast<int>(pick(10)));
    if (cut && i + 1 == iterations) break;
    ts += 1;
    start_end ? t.end(ts, 1000 + i, 2) : t.pop(ts, 1);
    naive.end();
    ops(static_cast<int>(pick(15)));
  }
  naive.finish();

  Report r = analyze(t, {.warmup_iterations = warmup, .top_sites = 3});
  REQUIRE(r.iterations.size() == iterations);
  CHECK(r.iterations.back().complete == !cut);
  auto retention = naive.retention();
  auto peaks = naive.peaks();
  REQUIRE(peaks.size() == iterations);
  seen.doubles += r.anomalies.double_allocations.count > 0;
  seen.unmatched += r.anomalies.unmatched_frees.count > 0;
  seen.cut += cut;
  for (size_t i = 0; i < iterations; ++i) {
    INFO("iteration " << i + 1);
    const IterationRow& row = r.iterations[i];
    for (const IterationMemory& m : row.memory) {
      size_t slot = 0;
      while (!(MemoryKey{kSlots[slot].device, kSlots[slot].kind} == m.key)) ++slot;
      INFO("slot " << slot);
      const NaiveReplay::Stats& it = naive.iterations()[i][slot];
      const NaiveReplay::Stats& w = naive.windows()[i][slot];
      CHECK(m.live_at_start == it.start);
      CHECK(m.live_at_end == it.end);
      CHECK(m.peak == it.peak);
      CHECK(m.floor == it.floor);
      CHECK(m.idle.floor == w.floor);
      CHECK(m.idle.peak == w.peak);
      CHECK(m.idle.live_at_end == w.end);
      CHECK(m.idle.retained == retention[i][slot]);
      seen.inter += m.idle.retained.inter_iteration.count > 0;
      seen.leak += m.idle.retained.leak.count > 0;
      seen.persistent += m.idle.retained.persistent.count > 0;
      seen.cached += m.idle.retained.cached.count > 0;
      REQUIRE(m.peak_composition.has_value());
      comparePeak(*m.peak_composition, peaks[i][slot], seen);
    }
  }
}

// Top sites at the peaks too: three listed of four stacks, so the ranking matters.
TEST_CASE("The report agrees with a naive replay on random traces", "[analysis_report]") {
  Coverage seen;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    runRandomTrace(seed, seen);
  }
  // The traces do reach every case the comparison is meant to cover.
  CHECK(seen.inter > 100);
  CHECK(seen.leak > 100);
  CHECK(seen.persistent > 100);
  CHECK(seen.doubles > 100);
  CHECK(seen.unmatched > 100);
  CHECK(seen.cut > 30);
  CHECK(seen.peak_iteration > 100);
  CHECK(seen.peak_earlier > 100);
  CHECK(seen.peak_inter > 100);
  CHECK(seen.peak_leak > 100);
  CHECK(seen.cached > 100);
  CHECK(seen.peak_cached > 100);
}

TEST_CASE("Retaining sites are named by their Python frame and the user's, as the patterns say",
          "[analysis_report]") {
  using trace::FrameKind;
  TraceBuilder t;
  const std::string torch = "/venv/lib/python3.11/site-packages/torch/";
  trace::StackId kept =
      t.stack({{"", "", 0, "/usr/local/cuda/lib64/libcudart.so.13", 0x1589d},
               {"", "", 0, torch + "lib/libc10_cuda.so", 0x40},
               {"forward", torch + "nn/modules/linear.py", 116, "", 0, FrameKind::kPython},
               {"Block.forward", "model.py", 42, "", 0, FrameKind::kPython},
               {"<module>", "train.py", 9, "", 0, FrameKind::kPython},
               {"main", "", 0, "/usr/bin/python3.11", 0x200}});
  t.push(100, "iteration 1").alloc(110, 0x1000, 4096, {.stack = kept}).pop(200);
  t.push(300, "iteration 2").free(310, 0x1000).pop(400);
  auto where = [&t](const AnalysisOptions& options) {
    Report report = analyze(t, options);
    REQUIRE(report.iterations.size() == 2);
    REQUIRE(report.iterations[0].top_sites.size() == 1);
    CHECK(report.stacks.at(0).frames.size() == 6);  // the whole stack stays in the report
    return report.iterations[0].top_sites[0].where;
  };
  AnalysisOptions options;
  CHECK(where(options) ==
        "torch/nn/modules/linear.py:116 in forward <- model.py:42 in Block.forward");
  options.site_patterns.exclude = {"model.py"};
  CHECK(where(options) == "torch/nn/modules/linear.py:116 in forward <- train.py:9 in <module>");
  // The user's code, by an include: named alone (written from its package root all the same).
  options.site_patterns.include = {"*/torch/nn/*"};
  CHECK(where(options) == "torch/nn/modules/linear.py:116 in forward");
  options.site_patterns = {.include = {""}};
  CHECK_THROWS_WITH(analyze(t, options), Catch::Contains("empty site include pattern"));
}

TEST_CASE("A peak's bytes are grouped by the module that made them, which names no site",
          "[analysis_report]") {
  using trace::FrameKind;
  TraceBuilder t;
  auto under = [&t](const char* module) {
    std::vector<FrameSpec> frames = {{"Block.forward", "model.py", 42, "", 0, FrameKind::kPython},
                                     {"<module>", "train.py", 9, "", 0, FrameKind::kPython},
                                     {"main", "", 0, "/usr/bin/python3.11", 0x200}};
    if (module != nullptr) frames.push_back({module, "<nn.Module>", 0, "", 0, FrameKind::kPython});
    return t.stack(frames);
  };
  const trace::StackId h0 = under("Net.h.0"), h1 = under("Net.h.1"), none = under(nullptr);
  t.push(100, "iteration 1")
      .alloc(110, 0x1000, 4096, {.stack = h0})
      .alloc(111, 0x2000, 1024, {.stack = h0})
      .alloc(112, 0x3000, 8192, {.stack = h1})
      .alloc(113, 0x4000, 512, {.stack = none})
      .free(120, 0x1000)
      .free(121, 0x2000)
      .free(122, 0x3000)
      .pop(200);
  t.push(300, "iteration 2").pop(400);
  Report report = analyze(t, {});
  REQUIRE(report.iterations.size() == 2);
  const std::optional<PeakSnapshot>& peak = report.iterations[0].memory.at(0).peak_composition;
  REQUIRE(peak);
  CHECK(peak->live.total().bytes == 4096 + 1024 + 8192 + 512);
  CHECK(peak->modules == std::vector<PeakModule>{{"Net.h.1", {8192, 1}},
                                                 {"Net.h.0", {4096 + 1024, 2}},
                                                 {"(no module)", {512, 1}}});
  REQUIRE(peak->sites.size() == 3);
  for (const PeakSite& site : peak->sites) CHECK(site.where == "model.py:42 in Block.forward");
  // Under `--top 1` one module is listed, as one site is.
  AnalysisOptions top1;
  top1.top_sites = 1;
  Report one = analyze(t, top1);
  CHECK(one.iterations[0].memory.at(0).peak_composition->modules ==
        std::vector<PeakModule>{{"Net.h.1", {8192, 1}}});
}

TEST_CASE("A trace without modules has none at its peaks", "[analysis_report]") {
  TraceBuilder t;
  t.push(100, "iteration 1").alloc(110, 0x1000, 4096).pop(200);
  Report report = analyze(t, {});
  REQUIRE(report.iterations.at(0).memory.at(0).peak_composition);
  CHECK(report.iterations[0].memory[0].peak_composition->modules.empty());
}

}  // namespace
}  // namespace memfloor::analysis::test

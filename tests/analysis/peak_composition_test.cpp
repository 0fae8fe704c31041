// Tests of PeakComposition through whole replays: what is live at each iteration's peak, by class
// and by site.
#include "analysis/peak_composition.h"

#include <catch2/catch.hpp>
#include <string>

#include "checked_analysis.h"
#include "invariants.h"
#include "scenarios.h"

namespace memfloor::analysis::test {
namespace {

const PeakSnapshot& peakOf(const IterationRow& row, uint32_t device = 0,
                           MemoryKind kind = MemoryKind::kDevice) {
  const IterationMemory& m = memoryOf(row, device, kind);
  REQUIRE(m.peak_composition.has_value());
  return *m.peak_composition;
}

const PeakSite* peakSiteOf(const PeakSnapshot& at_peak, trace::StackId stack) {
  for (const PeakSite& s : at_peak.sites) {
    if (s.stack == stack) return &s;
  }
  return nullptr;
}

TEST_CASE("Seed 003: an input kept to the end of the iteration raises the peak and is named there",
          "[peak_composition]") {
  GIVEN("the combined backward with the loss node keeping its input, and fixed") {
    CombinedBackward bug = combinedBackward(true);
    Report with_bug = analyze(bug.trace);
    Report fixed = analyze(combinedBackward(false).trace);
    REQUIRE(with_bug.iterations.size() == 4);
    THEN("the peak rises by the input, and the idle window does not see it") {
      for (size_t i = 0; i < 4; ++i) {
        INFO("iteration " << i + 1);
        CHECK(memoryOf(with_bug.iterations[i]).peak == 116 * kMiB);
        CHECK(memoryOf(fixed.iterations[i]).peak == 112 * kMiB);
        CHECK(memoryOf(with_bug.iterations[i]).idle.floor == 64 * kMiB);
        CHECK(memoryOf(with_bug.iterations[i]).idle.floor ==
              memoryOf(fixed.iterations[i]).idle.floor);
        for (const RetainedSite& site : with_bug.iterations[i].top_sites) {
          CHECK(site.stack != bug.loss_input);
        }
      }
    }
    THEN("at the peak the input is listed by its frame, as made in the iteration") {
      for (const IterationRow& row : with_bug.iterations) {
        INFO("iteration " << row.index);
        const PeakSnapshot& at_peak = peakOf(row);
        CHECK(at_peak.at_ns == 1000 * (row.index - 1) + 400);  // the gradients' allocation
        CHECK(at_peak.live.persistent == Tally{64 * kMiB, 1});
        CHECK(at_peak.live.iteration == Tally{52 * kMiB, 3});
        REQUIRE(at_peak.sites.size() == 4);
        CHECK(at_peak.sites[0].stack == bug.weights);
        CHECK(at_peak.sites[1].stack == bug.activations);
        CHECK(at_peak.sites[2].stack == bug.gradients);
        CHECK(at_peak.sites[3].stack == bug.loss_input);
        CHECK(at_peak.sites[3].where == "combined_1f1b.cpp:88 in LossNode::forward");
        CHECK(at_peak.sites[3].live.iteration == Tally{4 * kMiB, 1});
        CHECK(at_peak.sites[3].live.dominant() == PeakClass::kIteration);
      }
    }
    THEN("fixed, the input is gone by the peak") {
      for (const IterationRow& row : fixed.iterations) {
        CHECK(peakSiteOf(peakOf(row), bug.loss_input) == nullptr);
      }
    }
  }
}

// Per iteration k: activations (freed in it), a buffer kept until the next iteration frees it
// after its own peak, a leaked buffer; after it, in the idle window, a prefetched batch that the
// next iteration frees.
struct Classes {
  TraceBuilder trace;
  trace::StackId weights = 0, activations = 0, kept = 0, leak = 0, prefetch = 0;
};

Classes everyClass() {
  Classes c;
  TraceBuilder& t = c.trace;
  c.weights = t.stack({{"Model::Model", "model.cpp", 10}});
  c.activations = t.stack({{"Layer::forward", "layer.cpp", 40}});
  c.kept = t.stack({{"Layer::forwardPostMlp", "layer.cpp", 2305}});
  c.leak = t.stack({{"History::append", "history.cpp", 7}});
  c.prefetch = t.stack({{"Loader::next", "loader.cpp", 3}});
  t.alloc(10, 0x10000000, 64 * kMiB, {.stack = c.weights});
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t base = 1000 * k;
    t.push(base + 100, "iteration " + std::to_string(k + 1));
    t.alloc(base + 200, 0x20000000, 32 * kMiB, {.stack = c.activations});
    t.alloc(base + 300, 0x30000000 + k * 0x1000000, 8 * kMiB, {.stack = c.kept});
    t.alloc(base + 350, 0x40000000 + k * 0x1000000, 1 * kMiB, {.stack = c.leak});
    t.free(base + 700, 0x20000000);
    if (k > 0) {
      t.free(base + 750, 0x50000000 + (k - 1) * 0x1000000);
      t.free(base + 800, 0x30000000 + (k - 1) * 0x1000000);
    }
    t.pop(base + 900);
    t.alloc(base + 950, 0x50000000 + k * 0x1000000, 2 * kMiB, {.stack = c.prefetch});
  }
  return c;
}

TEST_CASE("Bytes at the peak made before the iteration take the classes of the window before",
          "[peak_composition]") {
  Classes c = everyClass();
  Report r = analyze(c.trace);
  REQUIRE(r.iterations.size() == 4);
  SECTION("the first iteration holds the weights and its own bytes") {
    const PeakSnapshot& at_peak = peakOf(r.iterations[0]);
    CHECK(at_peak.at_ns == 350);
    CHECK(at_peak.live.persistent == Tally{64 * kMiB, 1});
    CHECK(at_peak.live.iteration == Tally{41 * kMiB, 3});
    CHECK(at_peak.live.total().bytes == 105 * kMiB);
  }
  SECTION("later ones: kept buffer inter-iteration, leaks, the prefetched batch earlier") {
    for (size_t k = 1; k < 4; ++k) {
      INFO("iteration " << k + 1);
      const PeakSnapshot& at_peak = peakOf(r.iterations[k]);
      CHECK(at_peak.at_ns == 1000 * k + 350);
      CHECK(at_peak.live.persistent == Tally{64 * kMiB, 1});
      CHECK(at_peak.live.iteration == Tally{41 * kMiB, 3});
      CHECK(at_peak.live.inter_iteration == Tally{8 * kMiB, 1});
      CHECK(at_peak.live.leak == Tally{k * kMiB, k});
      CHECK(at_peak.live.earlier_iteration == Tally{2 * kMiB, 1});
      const PeakSite* kept = peakSiteOf(at_peak, c.kept);
      REQUIRE(kept != nullptr);
      CHECK(kept->live.iteration == Tally{8 * kMiB, 1});
      CHECK(kept->live.inter_iteration == Tally{8 * kMiB, 1});
      const PeakSite* leak = peakSiteOf(at_peak, c.leak);
      REQUIRE(leak != nullptr);
      CHECK(leak->live.leak == Tally{k * kMiB, k});
      CHECK(leak->live.iteration == Tally{kMiB, 1});
      const PeakSite* prefetch = peakSiteOf(at_peak, c.prefetch);
      REQUIRE(prefetch != nullptr);
      CHECK(prefetch->live.earlier_iteration == Tally{2 * kMiB, 1});
      CHECK(prefetch->live.dominant() == PeakClass::kEarlierIteration);
    }
  }
  SECTION("sites are ranked by their bytes at the peak, at most top_sites of them") {
    Report top3 = analyze(c.trace, {.top_sites = 3});
    const PeakSnapshot& at_peak = peakOf(top3.iterations[3]);
    REQUIRE(at_peak.sites.size() == 3);
    CHECK(at_peak.sites[0].stack == c.weights);
    CHECK(at_peak.sites[1].stack == c.activations);
    CHECK(at_peak.sites[2].stack == c.kept);
    CHECK(at_peak.sites[2].where == "layer.cpp:2305 in Layer::forwardPostMlp");
    CHECK(at_peak.sites[2].live.total() == Tally{16 * kMiB, 2});
  }
}

TEST_CASE("The peak is taken the first time it is reached, or at the start", "[peak_composition]") {
  TraceBuilder t;
  const trace::StackId a = t.stack({{"A::make", "a.cpp", 1}});
  const trace::StackId b = t.stack({{"B::make", "b.cpp", 2}});
  t.alloc(10, 0x1000, 100, {.stack = a});
  t.push(100, "iteration 1");
  t.alloc(110, 0x2000, 50, {.stack = a}).free(120, 0x2000);
  t.alloc(130, 0x3000, 50, {.stack = b}).free(140, 0x3000);  // as high again: not the peak
  t.pop(200);
  t.push(300, "iteration 2").free(310, 0x1000).pop(400);  // only falls: the peak is the start
  Report r = analyze(t);
  REQUIRE(r.iterations.size() == 2);
  const PeakSnapshot& first = peakOf(r.iterations[0]);
  CHECK(first.at_ns == 110);
  CHECK(first.live.total() == Tally{150, 2});
  REQUIRE(first.sites.size() == 1);
  CHECK(first.sites[0].stack == a);
  const PeakSnapshot& second = peakOf(r.iterations[1]);
  CHECK(second.at_ns == 300);
  CHECK(second.live.persistent == Tally{100, 1});
  CHECK(second.live.total().bytes == memoryOf(r.iterations[1]).peak);
}

TEST_CASE("Each device and memory kind has its own peak", "[peak_composition]") {
  TraceBuilder t;
  const At pinned{.kind = MemoryKind::kPinned, .stack = t.stack({{"Offload::stage", "o.cpp", 4}})};
  const At device{.stack = t.stack({{"Layer::forward", "layer.cpp", 40}})};
  t.push(100, "iteration 1");
  t.alloc(110, 0x1000, 10 * kMiB, device);
  t.alloc(120, 0x8000, 4 * kMiB, pinned);  // the pinned peak
  t.free(130, 0x8000, pinned);
  t.alloc(140, 0x2000, 10 * kMiB, device);  // the device peak
  t.free(150, 0x1000, device).free(160, 0x2000, device);
  t.pop(200);
  Report r = analyze(t);
  const PeakSnapshot& on_device = peakOf(r.iterations[0]);
  CHECK(on_device.at_ns == 140);
  CHECK(on_device.live.iteration == Tally{20 * kMiB, 2});
  const PeakSnapshot& on_host = peakOf(r.iterations[0], 0, MemoryKind::kPinned);
  CHECK(on_host.at_ns == 120);
  CHECK(on_host.live.iteration == Tally{4 * kMiB, 1});
  REQUIRE(on_host.sites.size() == 1);
  CHECK(on_host.sites[0].stack == pinned.stack);
}

TEST_CASE("What warm-up makes is persistent at later peaks", "[peak_composition]") {
  Classes c = everyClass();
  Report r = analyze(c.trace, {.warmup_iterations = 1});
  // Iteration 2: iteration 1's kept buffer and leak, and the batch prefetched after it, were made
  // in warm-up.
  const PeakSnapshot& at_peak = peakOf(r.iterations[1]);
  CHECK(at_peak.live.persistent == Tally{75 * kMiB, 4});
  CHECK(at_peak.live.inter_iteration == Tally{});
  CHECK(at_peak.live.earlier_iteration == Tally{});
  CHECK(at_peak.live.iteration == Tally{41 * kMiB, 3});
}

TEST_CASE("An iteration cut off by the end of the trace has its peak too", "[peak_composition]") {
  TraceBuilder t;
  t.alloc(10, 0x1000, 100);
  t.push(100, "iteration 1").alloc(110, 0x2000, 30).free(120, 0x2000).pop(200);
  t.push(300, "iteration 2").alloc(310, 0x3000, 70);  // no end
  Report r = analyze(t);
  REQUIRE(r.iterations.size() == 2);
  CHECK_FALSE(r.iterations[1].complete);
  const PeakSnapshot& at_peak = peakOf(r.iterations[1]);
  CHECK(at_peak.at_ns == 310);
  CHECK(at_peak.live.iteration == Tally{70, 1});
  CHECK(at_peak.live.persistent == Tally{100, 1});
  REQUIRE(at_peak.sites.size() == 1);
  CHECK(at_peak.sites[0].where == "(no stack)");
}

}  // namespace
}  // namespace memfloor::analysis::test

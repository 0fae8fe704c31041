// Training runs on the GPU: idle-window retention with and without each seed bug, loss,
// determinism.
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>

#include "context.h"
#include "gpu_test_support.h"
#include "trainer.h"

namespace refmodel {
namespace {

struct RunResult {
  std::vector<IterationStats> stats;
  std::int64_t persistent = 0;
};

RunResult train(const Config& config) {
  Context ctx;
  Trainer trainer(ctx, config);
  std::ostringstream log;
  RunResult r;
  r.stats = trainer.run(log);
  r.persistent = trainer.persistentBytes();
  return r;
}

TEST_CASE("fixed code: nothing of the iteration is alive in the idle window", "[gpu][training]") {
  if (!testing::gpuAvailable("idle window, fixed")) return;
  for (const LayerKind kind : {LayerKind::kBase, LayerKind::kHyperConnection}) {
    for (const Recompute recompute : {Recompute::kNone, Recompute::kFull}) {
      Config c = testing::smallConfig();
      c.model.layer_kind = kind;
      c.model.recompute = recompute;
      const RunResult r = train(c);
      for (const auto& s : r.stats) {
        CHECK(s.idle_floor == r.persistent);
        CHECK(s.layers_holding_manager == 0);
      }
    }
  }
}

TEST_CASE("hc-mlp-norm-manager bug pins several [s, b, n*h] buffers per layer", "[gpu][training]") {
  if (!testing::gpuAvailable("idle window, hc bug")) return;
  Config c = testing::smallConfig();
  c.bugs.hc_mlp_norm_manager = true;
  const RunResult bug = train(c);
  const std::int64_t stream_buffer =
      c.model.tokens() * c.model.streams * c.model.hidden * 2;  // bf16
  for (const auto& s : bug.stats) {
    const std::int64_t retained = s.idle_floor - bug.persistent;
    std::printf(
        "hc bug retained %lld bytes = %.2f [s,b,n*h] buffers per layer\n",
        static_cast<long long>(retained),
        static_cast<double>(retained) / static_cast<double>(stream_buffer * c.model.layers));
    CHECK(s.layers_holding_manager == c.model.layers);
    CHECK(retained >= 3 * stream_buffer * c.model.layers);
  }
  SECTION("the base layer clears its member, so the same flag changes nothing there") {
    c.model.layer_kind = LayerKind::kBase;
    const RunResult base = train(c);
    for (const auto& s : base.stats) CHECK(s.idle_floor == base.persistent);
  }
}

TEST_CASE("loss-node-inputs bug keeps O(seq) bytes through the combined backward",
          "[gpu][training]") {
  if (!testing::gpuAvailable("combined 1F1B loss node")) return;
  Config c = testing::smallConfig();
  c.schedule = Schedule::kCombinedOneFOneB;
  c.micro_batches = 3;
  const RunResult fixed = train(c);
  c.bugs.loss_node_inputs = true;
  const RunResult bug = train(c);
  const std::int64_t per_token_loss = c.model.tokens() * 4;  // fp32 [s*b]
  for (std::size_t i = 0; i < bug.stats.size(); ++i) {
    CHECK(fixed.stats[i].loss_node_held_max == 0);
    CHECK(bug.stats[i].loss_node_held_max == 2 * per_token_loss);  // input storage + its grad
    CHECK(bug.stats[i].idle_floor == bug.persistent);              // gone by the idle window
    CHECK(bug.stats[i].loss == fixed.stats[i].loss);
  }
}

TEST_CASE("same seed gives the same loss and schedules and offload agree", "[gpu][training]") {
  if (!testing::gpuAvailable("determinism")) return;
  Config c = testing::smallConfig();
  const RunResult a = train(c);
  const RunResult b = train(c);
  Config pipelined = c;
  pipelined.pipeline_stages = 2;
  const RunResult p2 = train(pipelined);
  Config combined = c;
  combined.schedule = Schedule::kCombinedOneFOneB;
  const RunResult comb = train(combined);
  Config offload = c;
  offload.model.offload = true;
  offload.model.recompute = Recompute::kNone;
  Config no_offload = offload;
  no_offload.model.offload = false;
  const RunResult off = train(offload);
  const RunResult no_off = train(no_offload);
  for (std::size_t i = 0; i < a.stats.size(); ++i) {
    CHECK(a.stats[i].loss == b.stats[i].loss);
    CHECK(p2.stats[i].loss == Approx(a.stats[i].loss).epsilon(1e-4));
    CHECK(comb.stats[i].loss == Approx(a.stats[i].loss).epsilon(1e-4));
    CHECK(off.stats[i].loss == no_off.stats[i].loss);
    CHECK(off.stats[i].idle_floor == off.persistent);
  }
}

TEST_CASE("the loss falls over 50 iterations", "[gpu][training]") {
  if (!testing::gpuAvailable("loss curve")) return;
  Config c = testing::smallConfig();
  c.iterations = 50;
  c.lr = 3e-3f;
  const RunResult r = train(c);
  for (const auto& s : r.stats) {
    if (s.iteration % 10 == 0 || s.iteration == 1) {
      std::printf("loss curve iteration %d loss %.4f\n", s.iteration, static_cast<double>(s.loss));
    }
  }
  CHECK(r.stats.back().loss < 0.7f * r.stats.front().loss);
}

}  // namespace
}  // namespace refmodel

// One rank per pipeline stage on one GPU (threads of this process, host-staged link): the same
// losses, gradients and idle floors as the stages run in one process.
#include <catch2/catch.hpp>
#include <future>
#include <sstream>

#include "context.h"
#include "gpu_test_support.h"
#include "rank_rendezvous.h"
#include "stage_link.h"
#include "trainer.h"

namespace refmodel {
namespace {

struct RankRun {
  std::vector<IterationStats> stats;
  std::int64_t persistent = 0;
};

RankRun trainRank(const Config& config, RankEnv env) {
  auto link = makeStageLink(LinkKind::kHost, env, rendezvous(env, {}, std::chrono::seconds(30)));
  Context ctx;
  Trainer trainer(ctx, config, RankPlace{env.rank, env.world_size, link.get()});
  std::ostringstream log;
  RankRun run;
  run.stats = trainer.run(log);
  run.persistent = trainer.persistentBytes();
  return run;
}

std::vector<RankRun> trainRanks(const Config& config) {
  const int port = freeLoopbackPort();
  std::vector<std::future<RankRun>> ranks;
  for (int r = 0; r < config.pipeline_stages; ++r) {
    RankEnv env{r, config.pipeline_stages, r, "127.0.0.1", port};
    ranks.push_back(std::async(std::launch::async, trainRank, config, env));
  }
  std::vector<RankRun> runs;
  for (auto& r : ranks) runs.push_back(r.get());
  return runs;
}

TEST_CASE("ranks give the one-process pipeline's losses and gradients, bit for bit",
          "[gpu][training][ranks]") {
  if (!testing::gpuAvailable("ranks vs one process")) return;
  for (const int stages : {2, 4}) {
    Config c = testing::smallConfig();
    c.model.layers = 4;
    c.micro_batches = 5;
    c.pipeline_stages = stages;
    c.grad_norm = true;
    Context ctx;
    Trainer one(ctx, c);
    std::ostringstream log;
    const std::vector<IterationStats> whole = one.run(log);
    const std::vector<RankRun> ranks = trainRanks(c);
    REQUIRE(ranks.size() == static_cast<std::size_t>(stages));
    for (std::size_t i = 0; i < whole.size(); ++i) {
      INFO("stages " << stages << " iteration " << whole[i].iteration);
      CHECK(ranks.back().stats[i].loss == whole[i].loss);
      for (int r = 0; r < stages; ++r) {
        const IterationStats& s = ranks[static_cast<std::size_t>(r)].stats[i];
        REQUIRE(s.grad_sq.size() == 1);
        CHECK(s.grad_sq.front() == whole[i].grad_sq[static_cast<std::size_t>(r)]);
        // the fixed code keeps nothing of the iteration on any rank
        CHECK(s.idle_floor == ranks[static_cast<std::size_t>(r)].persistent);
      }
    }
  }
}

TEST_CASE("the seed-000 bug retains on every rank that holds a layer", "[gpu][training][ranks]") {
  if (!testing::gpuAvailable("ranks with the bug")) return;
  Config c = testing::smallConfig();
  c.pipeline_stages = 2;
  c.bugs.hc_mlp_norm_manager = true;
  const std::vector<RankRun> ranks = trainRanks(c);
  for (const RankRun& r : ranks) {
    for (const IterationStats& s : r.stats) {
      CHECK(s.layers_holding_manager == 1);
      CHECK(s.idle_floor > r.persistent);
    }
  }
}

TEST_CASE("rank options that cannot work are refused", "[ranks]") {
  Config c = testing::smallConfig();
  c.pipeline_stages = 2;
  CHECK_THROWS_WITH(validateRanks(c, 3), Catch::Contains("must equal the job's world size 3"));
  c.schedule = Schedule::kCombinedOneFOneB;
  CHECK_THROWS_WITH(validateRanks(c, 2), Catch::Contains("1f1b"));
  c.schedule = Schedule::kOneFOneB;
  c.eval = true;
  CHECK_THROWS_WITH(validateRanks(c, 2), Catch::Contains("--eval"));
}

}  // namespace
}  // namespace refmodel

// The training loop: NVTX `iteration N` ranges, the schedule, Adam, and a synchronised idle window.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <vector>

#include "combined_1f1b.h"
#include "config.h"
#include "gpt_model.h"
#include "optimizer.h"
#include "pipeline_executor.h"
#include "rank_executor.h"

namespace refmodel {

class Context;

struct IterationStats {
  int iteration = 0;
  float loss = 0.f;
  float eval_loss = 0.f;                 // with --eval: mean loss of the evaluation forward
  std::int64_t live_at_end = 0;          // live bytes right after the iteration (synchronised)
  std::int64_t idle_floor = 0;           // min live bytes over the idle window (own counter)
  std::int64_t peak = 0;                 // peak live bytes during the iteration
  int layers_holding_manager = 0;        // layers whose mlp_norm_manager_ is set in the window
  std::int64_t loss_node_held_max = 0;   // combined schedule: max loss-node bytes at backward end
  std::int64_t backward_end_live_max = 0;  // combined schedule: max live bytes at backward end
  double step_ms = 0.0;
  double gemm_ms = 0.0;  // with --time-gemm: time inside cuBLAS products
  std::vector<double> grad_sq;  // with --grad-norm: per stage held here, sum of squared gradients
};

class Trainer {
 public:
  // With `place`, this process holds only stage place->rank and runs it with RankExecutor.
  Trainer(Context& ctx, const Config& config, std::optional<RankPlace> place = std::nullopt);
  IterationStats runIteration(int iteration);
  // Runs all iterations, printing one line per iteration (and the config first) to `out`.
  std::vector<IterationStats> run(std::ostream& out);
  std::int64_t persistentBytes() const { return persistent_bytes_; }

 private:
  std::vector<MicroBatchData> makeData(int iteration);
  float evaluate();
  std::vector<double> gradSquares();
  bool holdsLoss() const { return !place_ || place_->rank == place_->world_size - 1; }

  Context& ctx_;
  Config config_;
  std::vector<std::unique_ptr<GptModel>> stages_;
  std::vector<std::unique_ptr<AdamOptimizer>> optimizers_;
  std::unique_ptr<CombinedOneFOneB> combined_;
  std::optional<RankPlace> place_;
  std::int64_t persistent_bytes_ = 0;
};

}  // namespace refmodel

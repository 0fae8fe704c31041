// The training loop: NVTX `iteration N` ranges, the schedule, Adam, and a synchronised idle window.
#include "trainer.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>
#include <thread>

#include "context.h"
#include "cuda_check.h"
#include "kernels.h"

namespace refmodel {

namespace {
constexpr std::uint64_t kEvalSeed = 0xe7a1;
}

Trainer::Trainer(Context& ctx, const Config& config, std::optional<RankPlace> place)
    : ctx_(ctx), config_(config), place_(place) {
  if (config.time_gemm) ctx.enableGemmTiming();
  if (place) validateRanks(config, place->world_size);
  const int p = config.pipeline_stages;
  const int per_stage = config.model.layers / p;
  for (int r = place ? place->rank : 0; r < (place ? place->rank + 1 : p); ++r) {
    StageSpec spec{r * per_stage, (r + 1) * per_stage, r == 0, r == p - 1};
    stages_.push_back(std::make_unique<GptModel>(ctx, config.model, config.bugs, config.seed, spec));
    optimizers_.push_back(std::make_unique<AdamOptimizer>(ctx, stages_.back()->parameters(),
                                                          AdamOptions{config.lr}));
  }
  if (config.schedule == Schedule::kCombinedOneFOneB) {
    combined_ = std::make_unique<CombinedOneFOneB>(*stages_.front(), config.bugs);
  }
  ctx.synchronize();
  persistent_bytes_ = ctx.allocator().liveBytes();
}

std::vector<MicroBatchData> Trainer::makeData(int iteration) {
  std::vector<MicroBatchData> data;
  const ModelConfig& m = config_.model;
  for (int k = 0; k < config_.micro_batches; ++k) {
    MicroBatchData mb{Tensor::empty(ctx_, {m.tokens()}, DType::kInt32),
                      Tensor::empty(ctx_, {m.tokens()}, DType::kInt32)};
    const std::uint64_t seed = config_.seed * 1000003ull + static_cast<std::uint64_t>(iteration) * 4099ull +
                               static_cast<std::uint64_t>(k);
    kernels::makeBatch(mb.tokens.dataAs<std::int32_t>(), mb.labels.dataAs<std::int32_t>(), m.seq,
                       m.micro_batch_size, m.vocab, seed, ctx_.stream());
    data.push_back(std::move(mb));
  }
  return data;
}

float Trainer::evaluate() {
  NvtxRange range("evaluation");
  GradModeGuard no_grad(ctx_, false);
  const ModelConfig& m = config_.model;
  MicroBatchData mb{Tensor::empty(ctx_, {m.tokens()}, DType::kInt32),
                    Tensor::empty(ctx_, {m.tokens()}, DType::kInt32)};
  kernels::makeBatch(mb.tokens.dataAs<std::int32_t>(), mb.labels.dataAs<std::int32_t>(), m.seq,
                     m.micro_batch_size, m.vocab, kEvalSeed, ctx_.stream());
  Tensor x = mb.tokens;
  for (auto& stage : stages_) x = stage->forward(ctx_, x, mb.labels);
  std::vector<float> losses = x.toHost(ctx_);
  double sum = 0;
  for (float v : losses) sum += v;
  return static_cast<float>(sum / static_cast<double>(losses.size()));
}

std::vector<double> Trainer::gradSquares() {
  std::vector<double> squares;
  for (auto& stage : stages_) {
    double sum = 0;
    for (const NamedParameter& p : stage->parameters().parameters()) {
      for (float g : p.tensor.grad().toHost(ctx_)) sum += static_cast<double>(g) * g;
    }
    squares.push_back(sum);
  }
  return squares;
}

IterationStats Trainer::runIteration(int iteration) {
  IterationStats stats;
  stats.iteration = iteration;
  ctx_.allocator().resetPeak();
  const auto start = std::chrono::steady_clock::now();
  Tensor loss;
  {
    NvtxRange range("iteration " + std::to_string(iteration));
    for (auto& stage : stages_) stage->parameters().zeroGrad();
    std::vector<MicroBatchData> data = makeData(iteration);
    if (combined_) {
      combined_->clearProbes();
      loss = combined_->run(ctx_, data);
    } else if (place_) {
      loss = RankExecutor(*stages_.front(), *place_).run(ctx_, data);
    } else {
      std::vector<GptModel*> stages;
      for (auto& s : stages_) stages.push_back(s.get());
      loss = PipelineExecutor(stages).run(ctx_, data);
    }
    if (config_.grad_norm) stats.grad_sq = gradSquares();
    NvtxRange optimizer_range("optimizer");
    for (auto& opt : optimizers_) opt->step(ctx_);
  }
  // Idle window: everything of the iteration should be gone once the stream is drained.
  stats.loss = loss.toHost(ctx_).front();
  loss = Tensor();
  ctx_.synchronize();
  stats.step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (ctx_.gemmTimer() != nullptr) stats.gemm_ms = ctx_.gemmTimer()->collectMs();
  stats.peak = ctx_.allocator().peakBytes();
  ctx_.allocator().beginWindow();
  stats.live_at_end = ctx_.allocator().liveBytes();
  for (auto& s : stages_) stats.layers_holding_manager += s->layersHoldingMlpNormManager();
  if (combined_) {
    for (const auto& probe : combined_->probes()) {
      stats.loss_node_held_max = std::max(stats.loss_node_held_max, probe.loss_node_held_bytes);
      stats.backward_end_live_max = std::max(stats.backward_end_live_max, probe.live_bytes);
    }
  }
  if (config_.eval) stats.eval_loss = evaluate();
  if (config_.idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(config_.idle_ms));
  ctx_.synchronize();
  stats.idle_floor = ctx_.allocator().windowMinBytes();
  return stats;
}

std::vector<IterationStats> Trainer::run(std::ostream& out) {
  out << "config " << describe(config_) << "\n";
  if (place_) {
    out << "rank " << place_->rank << " world_size " << place_->world_size << " p2p "
        << place_->link->describe() << "\n";
  }
  out << "persistent_bytes " << persistent_bytes_ << "\n";
  std::vector<IterationStats> history;
  for (int it = 1; it <= config_.iterations; ++it) {
    IterationStats s = runIteration(it);
    out << std::fixed << "iteration " << s.iteration;
    if (place_) out << " rank " << place_->rank;
    // Only the last stage computes the loss.
    if (holdsLoss()) out << " loss " << std::setprecision(6) << s.loss;
    out << " idle_live_bytes " << s.live_at_end << " idle_floor_bytes " << s.idle_floor
        << " peak_bytes " << s.peak << " retained_bytes " << s.idle_floor - persistent_bytes_
        << " layers_holding_mlp_norm_manager " << s.layers_holding_manager;
    if (combined_) {
      out << " loss_node_held_bytes " << s.loss_node_held_max << " backward_end_live_bytes "
          << s.backward_end_live_max;
    }
    if (config_.eval) out << " eval_loss " << s.eval_loss;
    for (std::size_t i = 0; i < s.grad_sq.size(); ++i) {
      const int stage = place_ ? place_->rank : static_cast<int>(i);
      out << " grad_sq_stage" << stage << " " << std::scientific << std::setprecision(9)
          << s.grad_sq[i] << std::fixed;
    }
    out << " step_ms " << std::setprecision(2) << s.step_ms;
    if (config_.time_gemm) out << " gemm_ms " << s.gemm_ms;
    out << " tokens_per_s " << std::setprecision(0)
        << static_cast<double>(config_.model.tokens() * config_.micro_batches) / (s.step_ms / 1000.0)
        << "\n" << std::flush;
    history.push_back(s);
  }
  return history;
}

}  // namespace refmodel

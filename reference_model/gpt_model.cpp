// A GPT model or one pipeline stage of it: embedding, transformer layers, final norm, head, loss.
#include "gpt_model.h"

#include "context.h"
#include "hyper_connection_layer.h"
#include "ops_hyper_connection.h"
#include "ops_linear.h"
#include "ops_loss.h"
#include "ops_norm.h"
#include "recompute.h"

namespace refmodel {

GptModel::GptModel(Context& ctx, const ModelConfig& config, BugFlags bugs, std::uint64_t seed,
                   StageSpec stage)
    : config_(config), stage_(stage), params_(ctx, seed), offload_manager_(ctx, config.offload) {
  const DType dt = config.dtype;
  if (stage.pre_process) {
    embedding_ = params_.normal("embedding.weight", {config.vocab, config.hidden}, dt, 0.02f);
  }
  for (int i = stage.first_layer; i < stage.last_layer; ++i) {
    if (config.layer_kind == LayerKind::kHyperConnection) {
      layers_.push_back(std::make_unique<HyperConnectionTransformerLayer>(params_, config, i,
                                                                          offload_manager_, bugs));
    } else {
      layers_.push_back(
          std::make_unique<TransformerLayer>(params_, config, i, offload_manager_, bugs));
    }
  }
  if (stage.post_process) {
    final_norm_weight_ = params_.constant("final_norm.weight", {config.hidden}, dt, 1.f);
    output_weight_ = params_.normal("output.weight", {config.vocab, config.hidden}, dt, 0.02f);
  }
}

Tensor GptModel::embed(Context& ctx, const Tensor& tokens) {
  Tensor hidden = embedding(ctx, tokens, embedding_);
  if (config_.layer_kind == LayerKind::kHyperConnection) {
    hidden = hcExpand(ctx, hidden, config_.streams);
  }
  return hidden;
}

Tensor GptModel::forwardLayers(Context& ctx, const Tensor& hidden) {
  Tensor x = hidden;
  for (auto& layer : layers_) {
    x = config_.recompute == Recompute::kFull ? checkpointedForward(ctx, *layer, x)
                                              : layer->forward(ctx, x);
  }
  return x;
}

Tensor GptModel::perTokenLoss(Context& ctx, const Tensor& hidden, const Tensor& labels) {
  Tensor x = hidden;
  if (config_.layer_kind == LayerKind::kHyperConnection) x = hcContract(ctx, x, config_.streams);
  Tensor normed = rmsNorm(ctx, x, final_norm_weight_);
  Tensor logits = linear(ctx, normed, output_weight_, Tensor());
  return crossEntropy(ctx, logits, labels);
}

Tensor GptModel::forward(Context& ctx, const Tensor& input, const Tensor& labels) {
  Tensor hidden = stage_.pre_process ? embed(ctx, input) : input;
  hidden = forwardLayers(ctx, hidden);
  return stage_.post_process ? perTokenLoss(ctx, hidden, labels) : hidden;
}

int GptModel::layersHoldingMlpNormManager() const {
  int count = 0;
  for (const auto& layer : layers_) count += layer->holdsMlpNormManager() ? 1 : 0;
  return count;
}

}  // namespace refmodel

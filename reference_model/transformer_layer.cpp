// The base GPT transformer layer: attention and MLP sublayers, with the layer-level MLP-norm manager.
#include "transformer_layer.h"

#include <cmath>

#include "context.h"
#include "ops_elementwise.h"
#include "ops_linear.h"
#include "ops_norm.h"
#include "parameter_store.h"

namespace refmodel {

TransformerLayer::TransformerLayer(ParameterStore& params, const ModelConfig& config,
                                   int layer_number, OffloadManager& offload_manager,
                                   BugFlags bugs)
    : config_(config), bugs_(bugs), layer_number_(layer_number),
      offload_manager_(offload_manager) {
  const std::int64_t h = config.hidden;
  const DType dt = config.dtype;
  const float stddev = 0.02f;
  const float out_stddev = stddev / std::sqrt(2.f * static_cast<float>(config.layers));
  input_norm_weight_ = params.constant(prefix("input_norm.weight"), {h}, dt, 1.f);
  qkv_weight_ = params.normal(prefix("qkv.weight"), {3 * h, h}, dt, stddev);
  qkv_bias_ = params.constant(prefix("qkv.bias"), {3 * h}, dt, 0.f);
  proj_weight_ = params.normal(prefix("proj.weight"), {h, h}, dt, out_stddev);
  proj_bias_ = params.constant(prefix("proj.bias"), {h}, dt, 0.f);
  mlp_norm_weight_ = params.constant(prefix("mlp_norm.weight"), {h}, dt, 1.f);
  fc1_weight_ = params.normal(prefix("fc1.weight"), {config.ffn(), h}, dt, stddev);
  fc1_bias_ = params.constant(prefix("fc1.bias"), {config.ffn()}, dt, 0.f);
  fc2_weight_ = params.normal(prefix("fc2.weight"), {h, config.ffn()}, dt, out_stddev);
  fc2_bias_ = params.constant(prefix("fc2.bias"), {h}, dt, 0.f);
}

std::string TransformerLayer::prefix(const std::string& name) const {
  return "layers." + std::to_string(layer_number_) + "." + name;
}

Tensor TransformerLayer::forward(Context& ctx, const Tensor& hidden) {
  Tensor residual = hidden;
  Tensor attention = forwardAttention(ctx, hidden);
  Tensor after_attention = biasDropoutAdd(ctx, attention, proj_bias_, residual);
  Tensor normed = forwardPreMlpLayernorm(ctx, after_attention);
  Tensor mlp_output = forwardMlp(ctx, normed);
  return forwardPostMlp(ctx, mlp_output, after_attention);
}

Tensor TransformerLayer::forwardAttention(Context& ctx, const Tensor& x) {
  Tensor normed = rmsNorm(ctx, x, input_norm_weight_);
  Tensor qkv = linear(ctx, normed, qkv_weight_, qkv_bias_);
  Tensor context = causalAttention(ctx, qkv, {config_.seq, config_.micro_batch_size, config_.heads});
  return linear(ctx, context, proj_weight_, Tensor());
}

Tensor TransformerLayer::forwardPreMlpLayernorm(Context& ctx, const Tensor& hidden) {
  // Only the pass that builds a graph saves the norm input, so only that one offloads it.
  const bool offload = offload_manager_.enabled() && ctx.gradEnabled();
  mlp_norm_manager_ = std::make_shared<FineGrainedActivationOffloadingInterface>(
      offload, hidden, prefix("mlp_norm"), offload_manager_);
  Tensor input = mlp_norm_manager_->enter();
  Tensor normed = rmsNorm(ctx, input, mlp_norm_weight_);
  mlp_norm_manager_->exit();
  return normed;
}

Tensor TransformerLayer::forwardMlp(Context& ctx, const Tensor& normed) {
  Tensor fc1 = linear(ctx, normed, fc1_weight_, fc1_bias_);
  Tensor activated = gelu(ctx, fc1);
  return linear(ctx, activated, fc2_weight_, Tensor());
}

Tensor TransformerLayer::forwardPostMlp(Context& ctx, const Tensor& mlp_output,
                                        const Tensor& residual) {
  Tensor output = biasDropoutAdd(ctx, mlp_output, fc2_bias_, residual);
  if (mlp_norm_manager_ != nullptr) {
    output = mlp_norm_manager_->groupOffload(output, {residual});
    mlp_norm_manager_ = nullptr;
  }
  return output;
}

}  // namespace refmodel

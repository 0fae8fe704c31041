// The transformer layer with hyper connections (n residual streams, [s, b, n*h] residual).
#include "hyper_connection_layer.h"

#include "context.h"
#include "parameter_store.h"

namespace refmodel {

namespace {
constexpr float kGainInit = 0.01f;
}

HyperConnectionTransformerLayer::HyperConnectionTransformerLayer(ParameterStore& params,
                                                                 const ModelConfig& config,
                                                                 int layer_number,
                                                                 OffloadManager& offload_manager,
                                                                 BugFlags bugs)
    : TransformerLayer(params, config, layer_number, offload_manager, bugs),
      streams_(config.streams) {
  attention_hc_ = makeHcParams(params, "attention_hc");
  mlp_hc_ = makeHcParams(params, "mlp_hc");
}

HcParams HyperConnectionTransformerLayer::makeHcParams(ParameterStore& params,
                                                       const std::string& name) {
  const std::int64_t n = streams_;
  const std::int64_t m = n * n + 2 * n;
  HcParams hc;
  hc.weight = params.normal(prefix(name + ".weight"), {m, n * config_.hidden}, config_.dtype, 0.02f);
  hc.alpha = params.constant(prefix(name + ".alpha"), {3}, DType::kFloat32, kGainInit);
  hc.beta = params.constant(prefix(name + ".beta"), {m}, DType::kFloat32, 0.f);
  return hc;
}

Tensor HyperConnectionTransformerLayer::forward(Context& ctx, const Tensor& hidden) {
  // attention sublayer
  Tensor attention_mapping = hcMapping(ctx, hidden, attention_hc_, streams_);
  Tensor attention_input = hcAggregate(ctx, hidden, attention_mapping, streams_);
  Tensor attention = forwardAttention(ctx, attention_input);
  Tensor residual = hcUpdate(ctx, hidden, attention_mapping, attention, proj_bias_, streams_);
  // MLP sublayer: u = sum_i H_pre[i] X[i] is what the MLP-norm manager wraps
  Tensor mlp_mapping = hcMapping(ctx, residual, mlp_hc_, streams_);
  Tensor u = hcAggregate(ctx, residual, mlp_mapping, streams_);
  Tensor normed = forwardPreMlpLayernorm(ctx, u);
  Tensor mlp_output = forwardMlp(ctx, normed);
  return forwardPostMlpWithFusedHyperConnection(ctx, residual, mlp_mapping, mlp_output);
}

Tensor HyperConnectionTransformerLayer::forwardPostMlpWithFusedHyperConnection(
    Context& ctx, const Tensor& residual, const Tensor& mapping, const Tensor& mlp_output) {
  Tensor output = hcUpdate(ctx, residual, mapping, mlp_output, fc2_bias_, streams_);
  if (mlp_norm_manager_ != nullptr) {
    output = mlp_norm_manager_->groupOffload(output);
    if (!bugs_.hc_mlp_norm_manager) mlp_norm_manager_ = nullptr;
  }
  return output;
}

}  // namespace refmodel

// The transformer layer with hyper connections (n residual streams, [s, b, n*h] residual).
#pragma once

#include "ops_hyper_connection.h"
#include "transformer_layer.h"

namespace refmodel {

// Each sublayer owns a hyper-connection module (H_pre / H_post / H_res from the stream-expanded
// residual). The post-MLP step is the fused override of the framework's
// _forward_post_mlp_with_fused_hyper_connection; with --bug hc-mlp-norm-manager it keeps
// mlp_norm_manager_ (seed 000): the member then pins the aggregated input u and its graph.
class HyperConnectionTransformerLayer : public TransformerLayer {
 public:
  HyperConnectionTransformerLayer(ParameterStore& params, const ModelConfig& config,
                                  int layer_number, OffloadManager& offload_manager,
                                  BugFlags bugs);

  // hidden: [tokens, n*h]
  Tensor forward(Context& ctx, const Tensor& hidden) override;

 private:
  HcParams makeHcParams(ParameterStore& params, const std::string& name);
  Tensor forwardPostMlpWithFusedHyperConnection(Context& ctx, const Tensor& residual,
                                                const Tensor& mapping, const Tensor& mlp_output);

  int streams_;
  HcParams attention_hc_;
  HcParams mlp_hc_;
};

}  // namespace refmodel

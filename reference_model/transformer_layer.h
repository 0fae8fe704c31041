// The base GPT transformer layer: attention and MLP sublayers, with the layer-level MLP-norm manager.
#pragma once

#include <memory>
#include <string>

#include "config.h"
#include "offload.h"
#include "ops_attention.h"
#include "tensor.h"

namespace refmodel {

class Context;
class ParameterStore;

class TransformerLayer {
 public:
  TransformerLayer(ParameterStore& params, const ModelConfig& config, int layer_number,
                   OffloadManager& offload_manager, BugFlags bugs);
  virtual ~TransformerLayer() = default;
  TransformerLayer(const TransformerLayer&) = delete;
  TransformerLayer& operator=(const TransformerLayer&) = delete;

  // hidden: [tokens, h] for the base layer, [tokens, n*h] for the hyper-connection layer.
  virtual Tensor forward(Context& ctx, const Tensor& hidden);

  // What the layer still holds between calls (for the model's own retention report).
  bool holdsMlpNormManager() const { return mlp_norm_manager_ != nullptr; }
  int layerNumber() const { return layer_number_; }

 protected:
  // norm -> QKV -> causal attention -> output projection (its bias is applied by the caller).
  Tensor forwardAttention(Context& ctx, const Tensor& x);
  // Creates mlp_norm_manager_ around `hidden` and returns the normalised tensor.
  Tensor forwardPreMlpLayernorm(Context& ctx, const Tensor& hidden);
  // fc1 -> GELU -> fc2 (fc2's bias is applied by the caller).
  Tensor forwardMlp(Context& ctx, const Tensor& normed);
  // bias-dropout-add, then the terminal group_offload; clears the member after use.
  virtual Tensor forwardPostMlp(Context& ctx, const Tensor& mlp_output, const Tensor& residual);

  std::string prefix(const std::string& name) const;

  ModelConfig config_;
  BugFlags bugs_;
  int layer_number_;
  OffloadManager& offload_manager_;
  std::shared_ptr<FineGrainedActivationOffloadingInterface> mlp_norm_manager_;

  Tensor input_norm_weight_;
  Tensor qkv_weight_;
  Tensor qkv_bias_;
  Tensor proj_weight_;
  Tensor proj_bias_;
  Tensor mlp_norm_weight_;
  Tensor fc1_weight_;
  Tensor fc1_bias_;
  Tensor fc2_weight_;
  Tensor fc2_bias_;
};

}  // namespace refmodel

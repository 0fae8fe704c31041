// A GPT model or one pipeline stage of it: embedding, transformer layers, final norm, head, loss.
#pragma once

#include <memory>
#include <vector>

#include "config.h"
#include "offload.h"
#include "parameter_store.h"
#include "tensor.h"
#include "transformer_layer.h"

namespace refmodel {

class Context;

struct StageSpec {
  int first_layer = 0;
  int last_layer = 0;  // exclusive
  bool pre_process = true;   // owns the embedding (first stage)
  bool post_process = true;  // owns final norm, output projection and loss (last stage)
};

class GptModel {
 public:
  GptModel(Context& ctx, const ModelConfig& config, BugFlags bugs, std::uint64_t seed,
           StageSpec stage);

  // First stage: int32 tokens [tokens] -> hidden; others: hidden in. The hidden state between
  // stages is [tokens, n*h] (the stream-expanded residual) for hyper-connection layers.
  Tensor embed(Context& ctx, const Tensor& tokens);
  Tensor forwardLayers(Context& ctx, const Tensor& hidden);
  // Last stage: per-token cross-entropy, fp32 [tokens].
  Tensor perTokenLoss(Context& ctx, const Tensor& hidden, const Tensor& labels);
  // The stage's whole forward: per-token loss on the last stage, hidden otherwise.
  Tensor forward(Context& ctx, const Tensor& input, const Tensor& labels);

  ParameterStore& parameters() { return params_; }
  OffloadManager& offloadManager() { return offload_manager_; }
  const StageSpec& stage() const { return stage_; }
  const ModelConfig& config() const { return config_; }
  const std::vector<std::unique_ptr<TransformerLayer>>& layers() const { return layers_; }
  int layersHoldingMlpNormManager() const;

 private:
  ModelConfig config_;
  StageSpec stage_;
  ParameterStore params_;
  OffloadManager offload_manager_;
  std::vector<std::unique_ptr<TransformerLayer>> layers_;
  Tensor embedding_;
  Tensor final_norm_weight_;
  Tensor output_weight_;
};

}  // namespace refmodel

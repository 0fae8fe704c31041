// Gradients of every op and of whole layers (base, hyper-connection, recomputed) against finite
// differences.
#include <catch2/catch.hpp>

#include "context.h"
#include "gpu_test_support.h"
#include "hyper_connection_layer.h"
#include "ops_attention.h"
#include "ops_elementwise.h"
#include "ops_hyper_connection.h"
#include "ops_linear.h"
#include "ops_loss.h"
#include "ops_norm.h"
#include "parameter_store.h"
#include "recompute.h"
#include "transformer_layer.h"

namespace refmodel {
namespace {

using testing::gradCheck;
using testing::leaf;

constexpr std::int64_t kTokens = 6;

void expectPasses(const testing::GradCheckResult& r) {
  CHECK(r.checked > 0);
  CHECK(r.failures == 0);
}

TEST_CASE("op gradients match finite differences (fp32)", "[gpu][gradcheck]") {
  if (!testing::gpuAvailable("op gradcheck")) return;
  Context ctx;
  SECTION("linear") {
    expectPasses(gradCheck(
        ctx, "linear",
        [](Context& c, const std::vector<Tensor>& in) { return linear(c, in[0], in[1], in[2]); },
        {leaf(ctx, {kTokens, 8}, 1.f, 1), leaf(ctx, {5, 8}, 0.5f, 2), leaf(ctx, {5}, 0.5f, 3)}));
  }
  SECTION("rms norm") {
    expectPasses(gradCheck(
        ctx, "rms_norm",
        [](Context& c, const std::vector<Tensor>& in) { return rmsNorm(c, in[0], in[1]); },
        {leaf(ctx, {kTokens, 16}, 1.f, 4), leaf(ctx, {16}, 1.f, 5)}));
  }
  SECTION("causal attention") {
    const AttentionShape shape{4, 2, 2};  // seq 4, batch 2, heads 2; hidden 8
    expectPasses(gradCheck(ctx, "causal_attention",
                           [shape](Context& c, const std::vector<Tensor>& in) {
                             return causalAttention(c, in[0], shape);
                           },
                           {leaf(ctx, {8, 24}, 1.f, 6)}));
  }
  SECTION("gelu") {
    expectPasses(gradCheck(ctx, "gelu",
                           [](Context& c, const std::vector<Tensor>& in) { return gelu(c, in[0]); },
                           {leaf(ctx, {kTokens, 8}, 1.5f, 7)}));
  }
  SECTION("bias dropout add") {
    expectPasses(gradCheck(ctx, "bias_dropout_add",
                           [](Context& c, const std::vector<Tensor>& in) {
                             return biasDropoutAdd(c, in[0], in[1], in[2]);
                           },
                           {leaf(ctx, {kTokens, 8}, 1.f, 8), leaf(ctx, {8}, 1.f, 9),
                            leaf(ctx, {kTokens, 8}, 1.f, 10)}));
  }
  SECTION("hyper-connection mapping with Sinkhorn") {
    const int n = 4;
    const std::int64_t h = 4;
    const std::int64_t m = n * n + 2 * n;
    Tensor gains = Tensor::fromHost(ctx, {0.7f, 0.9f, 1.3f}, {3}, DType::kFloat32);
    gains.setRequiresGrad(true);
    // larger gains than the 0.01 init so that every mapping, Sinkhorn included, matters
    expectPasses(gradCheck(
        ctx, "hc_mapping",
        [n](Context& c, const std::vector<Tensor>& in) {
          return hcMapping(c, in[0], HcParams{in[1], in[2], in[3]}, n);
        },
        {leaf(ctx, {kTokens, n * h}, 1.f, 11), leaf(ctx, {m, n * h}, 0.5f, 12), gains,
         leaf(ctx, {m}, 0.5f, 13)},
        32));
  }
  SECTION("hyper-connection aggregate, update, expand, contract") {
    const int n = 4;
    const std::int64_t h = 8;
    const std::int64_t m = n * n + 2 * n;
    expectPasses(gradCheck(
        ctx, "hc_aggregate",
        [n](Context& c, const std::vector<Tensor>& in) { return hcAggregate(c, in[0], in[1], n); },
        {leaf(ctx, {kTokens, n * h}, 1.f, 14), leaf(ctx, {kTokens, m}, 1.f, 15)}));
    expectPasses(gradCheck(ctx, "hc_update",
                           [n](Context& c, const std::vector<Tensor>& in) {
                             return hcUpdate(c, in[0], in[1], in[2], in[3], n);
                           },
                           {leaf(ctx, {kTokens, n * h}, 1.f, 16), leaf(ctx, {kTokens, m}, 1.f, 17),
                            leaf(ctx, {kTokens, h}, 1.f, 18), leaf(ctx, {h}, 1.f, 19)}));
    expectPasses(
        gradCheck(ctx, "hc_expand",
                  [n](Context& c, const std::vector<Tensor>& in) { return hcExpand(c, in[0], n); },
                  {leaf(ctx, {kTokens, h}, 1.f, 20)}));
    expectPasses(gradCheck(
        ctx, "hc_contract",
        [n](Context& c, const std::vector<Tensor>& in) { return hcContract(c, in[0], n); },
        {leaf(ctx, {kTokens, n * h}, 1.f, 21)}));
  }
  SECTION("embedding, cross entropy, scaled sum") {
    std::vector<float> ids = {3, 1, 4, 1, 5, 2};
    Tensor tokens = Tensor::fromHost(ctx, ids, {kTokens}, DType::kFloat32);
    Tensor tokens_i32 = Tensor::empty(ctx, {kTokens}, DType::kInt32);
    // fp32 -> int32 on the host: tiny, test-only
    std::vector<std::int32_t> ids_i32(ids.begin(), ids.end());
    cudaMemcpy(tokens_i32.data(), ids_i32.data(), ids_i32.size() * sizeof(std::int32_t),
               cudaMemcpyHostToDevice);
    expectPasses(gradCheck(ctx, "embedding",
                           [tokens_i32](Context& c, const std::vector<Tensor>& in) {
                             return embedding(c, tokens_i32, in[0]);
                           },
                           {leaf(ctx, {7, 4}, 1.f, 22)}));
    expectPasses(gradCheck(ctx, "cross_entropy",
                           [tokens_i32](Context& c, const std::vector<Tensor>& in) {
                             return crossEntropy(c, in[0], tokens_i32);
                           },
                           {leaf(ctx, {kTokens, 7}, 1.f, 23)}));
    expectPasses(gradCheck(
        ctx, "scaled_sum",
        [](Context& c, const std::vector<Tensor>& in) { return scaledSum(c, in[0], 0.25f); },
        {leaf(ctx, {kTokens}, 1.f, 24)}));
  }
}

ModelConfig tinyLayerConfig(LayerKind kind) {
  ModelConfig m;
  m.layers = 1;
  m.hidden = 8;
  m.heads = 2;
  m.ffn_hidden = 16;
  m.seq = 4;
  m.micro_batch_size = 2;
  m.streams = 4;
  m.layer_kind = kind;
  m.dtype = DType::kFloat32;
  return m;
}

std::vector<Tensor> layerInputs(Context& ctx, const ModelConfig& m, const ParameterStore& store) {
  std::vector<Tensor> inputs{leaf(ctx, {m.tokens(), m.residualStreams() * m.hidden}, 1.f, 99)};
  for (const auto& p : store.parameters()) inputs.push_back(p.tensor);
  return inputs;
}

TEST_CASE("whole-layer gradients match finite differences (fp32)", "[gpu][gradcheck]") {
  if (!testing::gpuAvailable("layer gradcheck")) return;
  Context ctx;
  for (const bool recompute : {false, true}) {
    for (const LayerKind kind : {LayerKind::kBase, LayerKind::kHyperConnection}) {
      const ModelConfig m = tinyLayerConfig(kind);
      ParameterStore store(ctx, 5);
      OffloadManager offload(ctx, false);
      std::unique_ptr<TransformerLayer> layer;
      if (kind == LayerKind::kBase) {
        layer = std::make_unique<TransformerLayer>(store, m, 0, offload, BugFlags{});
      } else {
        layer = std::make_unique<HyperConnectionTransformerLayer>(store, m, 0, offload, BugFlags{});
      }
      const std::string name = std::string(kind == LayerKind::kBase ? "base_layer" : "hc_layer") +
                               (recompute ? "_recompute" : "");
      TransformerLayer* l = layer.get();
      expectPasses(gradCheck(
          ctx, name,
          [l, recompute](Context& c, const std::vector<Tensor>& in) {
            return recompute ? checkpointedForward(c, *l, in[0]) : l->forward(c, in[0]);
          },
          layerInputs(ctx, m, store), 6));
    }
  }
}

}  // namespace
}  // namespace refmodel

// Embedding lookup, per-token cross-entropy (fp32) and the mean loss, with autograd nodes.
#include "ops_loss.h"

#include "autograd.h"
#include "context.h"
#include "cuda_check.h"
#include "kernels.h"

namespace refmodel {

namespace {

class EmbeddingNode : public Node {
 public:
  EmbeddingNode(Tensor tokens, Shape table_shape, DType dtype)
      : Node("EmbeddingBackward"), tokens_(std::move(tokens)),
        table_shape_(std::move(table_shape)), dtype_(dtype) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& dy_in) override {
    Tensor dy = dy_in.dtype() == dtype_ ? dy_in : dy_in.to(ctx, dtype_);
    Tensor dtable = Tensor::zeros(ctx, table_shape_, DType::kFloat32);
    kernels::embeddingBackward(tokens_.dataAs<std::int32_t>(), dy.data(), dtable.dataAs<float>(),
                               dtype_, tokens_.numel(), table_shape_[1], ctx.stream());
    return {dtable};
  }
  void releaseSavedTensors() override { tokens_ = Tensor(); }

 private:
  Tensor tokens_;
  Shape table_shape_;
  DType dtype_;
};

class CrossEntropyNode : public Node {
 public:
  CrossEntropyNode(Tensor logits, Tensor labels, Tensor lse)
      : Node("CrossEntropyBackward"), logits_(std::move(logits)), labels_(std::move(labels)),
        lse_(std::move(lse)) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& dloss_in) override {
    Tensor dloss = dloss_in.dtype() == DType::kFloat32 ? dloss_in : dloss_in.to(ctx, DType::kFloat32);
    Tensor dlogits = Tensor::empty(ctx, logits_.shape(), logits_.dtype());
    kernels::crossEntropyBackward(logits_.data(), logits_.dtype(), labels_.dataAs<std::int32_t>(),
                                  lse_.dataAs<float>(), dloss.dataAs<float>(), dlogits.data(),
                                  logits_.size(0), logits_.size(1), ctx.stream());
    return {dlogits};
  }
  void releaseSavedTensors() override {
    logits_ = Tensor();
    labels_ = Tensor();
    lse_ = Tensor();
  }

 private:
  Tensor logits_;
  Tensor labels_;
  Tensor lse_;
};

class ScaledSumNode : public Node {
 public:
  ScaledSumNode(std::int64_t count, float scale)
      : Node("ScaledSumBackward"), count_(count), scale_(scale) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& dy_in) override {
    Tensor dy = dy_in.dtype() == DType::kFloat32 ? dy_in : dy_in.to(ctx, DType::kFloat32);
    Tensor dx = Tensor::empty(ctx, {count_}, DType::kFloat32);
    kernels::broadcastScalar(dy.dataAs<float>(), dx.dataAs<float>(), count_, scale_, ctx.stream());
    return {dx};
  }

 private:
  std::int64_t count_;
  float scale_;
};

}  // namespace

Tensor embedding(Context& ctx, const Tensor& tokens, const Tensor& table) {
  const std::int64_t hidden = table.size(1);
  Tensor out = Tensor::empty(ctx, {tokens.numel(), hidden}, table.dtype());
  kernels::embeddingForward(tokens.dataAs<std::int32_t>(), table.data(), out.data(), table.dtype(),
                            tokens.numel(), hidden, ctx.stream());
  if (needsGrad(ctx, {table})) {
    connect(out, std::make_shared<EmbeddingNode>(tokens, table.shape(), table.dtype()), {table});
  }
  return out;
}

Tensor crossEntropy(Context& ctx, const Tensor& logits, const Tensor& labels) {
  const std::int64_t count = logits.size(0);
  Tensor loss = Tensor::empty(ctx, {count}, DType::kFloat32);
  Tensor lse = Tensor::empty(ctx, {count}, DType::kFloat32);
  kernels::crossEntropyForward(logits.data(), logits.dtype(), labels.dataAs<std::int32_t>(),
                               loss.dataAs<float>(), lse.dataAs<float>(), count, logits.size(1),
                               ctx.stream());
  if (needsGrad(ctx, {logits})) {
    connect(loss, std::make_shared<CrossEntropyNode>(logits, labels, lse), {logits});
  }
  return loss;
}

Tensor scaledSum(Context& ctx, const Tensor& x, float scale) {
  Tensor out = Tensor::empty(ctx, {1}, DType::kFloat32);
  kernels::sumAll(x.dataAs<float>(), out.dataAs<float>(), x.numel(), scale, ctx.stream());
  if (needsGrad(ctx, {x})) {
    connect(out, std::make_shared<ScaledSumNode>(x.numel(), scale), {x});
  }
  return out;
}

}  // namespace refmodel

// Elementwise ops with autograd nodes: GELU and bias-dropout-add (dropout probability 0).
#include "ops_elementwise.h"

#include "autograd.h"
#include "context.h"
#include "kernels.h"

namespace refmodel {

namespace {

class GeluNode : public Node {
 public:
  explicit GeluNode(Tensor x) : Node("GeluBackward"), x_(std::move(x)) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& dy_in) override {
    Tensor dy = dy_in.dtype() == x_.dtype() ? dy_in : dy_in.to(ctx, x_.dtype());
    Tensor dx = Tensor::empty(ctx, x_.shape(), x_.dtype());
    kernels::geluBackward(x_.data(), dy.data(), dx.data(), x_.dtype(), x_.numel(), ctx.stream());
    return {dx};
  }
  void releaseSavedTensors() override { x_ = Tensor(); }

 private:
  Tensor x_;
};

class BiasDropoutAddNode : public Node {
 public:
  BiasDropoutAddNode(std::int64_t rows, std::int64_t cols)
      : Node("BiasDropoutAddBackward"), rows_(rows), cols_(cols) {}
  std::vector<Tensor> apply(Context& ctx, const Tensor& dy) override {
    Tensor dbias = Tensor::empty(ctx, {cols_}, DType::kFloat32);
    kernels::columnSum(dy.data(), dy.dtype(), dbias.dataAs<float>(), rows_, cols_, ctx.stream());
    return {dy, dbias, dy};
  }

 private:
  std::int64_t rows_;
  std::int64_t cols_;
};

}  // namespace

Tensor gelu(Context& ctx, const Tensor& x) {
  Tensor y = Tensor::empty(ctx, x.shape(), x.dtype());
  kernels::geluForward(x.data(), y.data(), x.dtype(), x.numel(), ctx.stream());
  if (needsGrad(ctx, {x})) connect(y, std::make_shared<GeluNode>(x), {x});
  return y;
}

Tensor biasDropoutAdd(Context& ctx, const Tensor& x, const Tensor& bias, const Tensor& residual) {
  const std::int64_t cols = x.shape().back();
  const std::int64_t rows = x.numel() / cols;
  Tensor out = Tensor::empty(ctx, x.shape(), x.dtype());
  kernels::biasResidualAdd(x.data(), bias.defined() ? bias.data() : nullptr, residual.data(),
                           out.data(), x.dtype(), rows, cols, ctx.stream());
  if (needsGrad(ctx, {x, bias, residual})) {
    connect(out, std::make_shared<BiasDropoutAddNode>(rows, cols), {x, bias, residual});
  }
  return out;
}

}  // namespace refmodel

// Linear layer op (y = x W^T + b) on cuBLAS, with its autograd node.
#include "ops_linear.h"

#include <cassert>

#include "autograd.h"
#include "context.h"
#include "gemm.h"
#include "kernels.h"

namespace refmodel {

namespace {

class LinearNode : public Node {
 public:
  LinearNode(Tensor x, Tensor weight, bool has_bias)
      : Node("LinearBackward"), x_(std::move(x)), weight_(std::move(weight)), has_bias_(has_bias) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dy_in) override {
    const std::int64_t rows = x_.numel() / x_.shape().back();
    const std::int64_t in = weight_.size(1);
    const std::int64_t out = weight_.size(0);
    // The GEMM operands must share a type: bring dy to the weight's dtype.
    Tensor dy = dy_in.dtype() == weight_.dtype() ? dy_in : dy_in.to(ctx, weight_.dtype());
    Tensor dx = Tensor::empty(ctx, x_.shape(), x_.dtype());
    gemm(ctx, rows, in, out, 1.f, {dy.data(), dy.dtype(), out}, {weight_.data(), weight_.dtype(), in},
         0.f, {dx.data(), dx.dtype(), in});
    Tensor dw = Tensor::empty(ctx, weight_.shape(), DType::kFloat32);
    gemm(ctx, out, in, rows, 1.f, {dy.data(), dy.dtype(), out, 0, true},
         {x_.data(), x_.dtype(), in}, 0.f, {dw.data(), DType::kFloat32, in});
    Tensor db;
    if (has_bias_) {
      db = Tensor::empty(ctx, {out}, DType::kFloat32);
      kernels::columnSum(dy.data(), dy.dtype(), db.dataAs<float>(), rows, out, ctx.stream());
    }
    return {dx, dw, db};
  }

  void releaseSavedTensors() override {
    x_ = Tensor();
    weight_ = Tensor();
  }

 private:
  Tensor x_;
  Tensor weight_;
  bool has_bias_;
};

}  // namespace

Tensor linear(Context& ctx, const Tensor& x, const Tensor& weight, const Tensor& bias,
              bool fp32_output) {
  const std::int64_t in = weight.size(1);
  const std::int64_t out = weight.size(0);
  const std::int64_t rows = x.numel() / in;
  Shape shape = x.shape();
  shape.back() = out;
  Tensor y = Tensor::empty(ctx, shape, fp32_output ? DType::kFloat32 : x.dtype());
  gemm(ctx, rows, out, in, 1.f, {x.data(), x.dtype(), in},
       {weight.data(), weight.dtype(), in, 0, true}, 0.f, {y.data(), y.dtype(), out});
  assert((!bias.defined() || !fp32_output || x.dtype() == DType::kFloat32) && "bias dtype");
  if (bias.defined()) kernels::addBiasRows(y.data(), bias.data(), y.dtype(), rows, out, ctx.stream());
  if (needsGrad(ctx, {x, weight, bias})) {
    connect(y, std::make_shared<LinearNode>(x, weight, bias.defined()), {x, weight, bias});
  }
  return y;
}

}  // namespace refmodel

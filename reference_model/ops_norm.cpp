// RMSNorm op with a learnable weight, and its autograd node.
#include "ops_norm.h"

#include "autograd.h"
#include "context.h"
#include "kernels.h"

namespace refmodel {

namespace {

class RmsNormNode : public Node {
 public:
  RmsNormNode(Tensor x, Tensor weight, Tensor rstd)
      : Node("RmsNormBackward"), x_(std::move(x)), weight_(std::move(weight)), rstd_(std::move(rstd)) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dy_in) override {
    const std::int64_t cols = weight_.numel();
    const std::int64_t rows = x_.numel() / cols;
    Tensor dy = dy_in.dtype() == x_.dtype() ? dy_in : dy_in.to(ctx, x_.dtype());
    Tensor dx = Tensor::empty(ctx, x_.shape(), x_.dtype());
    Tensor dw_rows = Tensor::empty(ctx, {rows, cols}, DType::kFloat32);
    // x_.data() reloads an offloaded input here (the offload path's reload in backward).
    kernels::rmsNormBackward(x_.data(), weight_.data(), rstd_.dataAs<float>(), dy.data(), dx.data(),
                             dw_rows.dataAs<float>(), x_.dtype(), rows, cols, ctx.stream());
    Tensor dw = Tensor::empty(ctx, {cols}, DType::kFloat32);
    kernels::columnSum(dw_rows.data(), DType::kFloat32, dw.dataAs<float>(), rows, cols,
                       ctx.stream());
    return {dx, dw};
  }

  void releaseSavedTensors() override {
    x_ = Tensor();
    weight_ = Tensor();
    rstd_ = Tensor();
  }

 private:
  Tensor x_;
  Tensor weight_;
  Tensor rstd_;
};

}  // namespace

Tensor rmsNorm(Context& ctx, const Tensor& x, const Tensor& weight, float eps) {
  const std::int64_t cols = weight.numel();
  const std::int64_t rows = x.numel() / cols;
  Tensor y = Tensor::empty(ctx, x.shape(), x.dtype());
  Tensor rstd = Tensor::empty(ctx, {rows}, DType::kFloat32);
  kernels::rmsNormForward(x.data(), weight.data(), y.data(), rstd.dataAs<float>(), x.dtype(), rows,
                          cols, eps, ctx.stream());
  if (needsGrad(ctx, {x, weight})) {
    connect(y, std::make_shared<RmsNormNode>(x, weight, rstd), {x, weight});
  }
  return y;
}

}  // namespace refmodel

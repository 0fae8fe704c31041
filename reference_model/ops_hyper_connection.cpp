// Hyper-connection ops (mHC): stream mappings with Sinkhorn, aggregate, fused update, expand, contract.
#include "ops_hyper_connection.h"

#include "autograd.h"
#include "context.h"
#include "gemm.h"
#include "kernels.h"

namespace refmodel {

namespace {

Tensor asDtype(Context& ctx, const Tensor& t, DType dtype) {
  return t.dtype() == dtype ? t : t.to(ctx, dtype);
}

// The three hyper-connection functions below are custom fused functions: like a Python
// autograd.Function that stores `ctx.x = x`, they keep their context after backward, until the node
// itself dies. That is what lets one stale activation pin the stream-expanded buffers behind it.
class HcMappingNode : public Node {
 public:
  HcMappingNode(Tensor x, HcParams params, Tensor proj, Tensor r, int n, int iterations)
      : Node("HcMappingBackward"), x_(std::move(x)), params_(std::move(params)),
        proj_(std::move(proj)), r_(std::move(r)), n_(n), iterations_(iterations) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dh_in) override {
    const std::int64_t tokens = r_.numel();
    const std::int64_t width = x_.size(1);
    const std::int64_t m = proj_.size(1);
    Tensor dh = asDtype(ctx, dh_in, DType::kFloat32);
    Tensor dproj = Tensor::empty(ctx, {tokens, m}, DType::kFloat32);
    Tensor dr = Tensor::empty(ctx, {tokens}, DType::kFloat32);
    Tensor dalpha_rows = Tensor::empty(ctx, {tokens, 3}, DType::kFloat32);
    Tensor dlogits = Tensor::empty(ctx, {tokens, m}, DType::kFloat32);
    kernels::hcMappingBackward(proj_.dataAs<float>(), r_.dataAs<float>(),
                               params_.alpha.dataAs<float>(), params_.beta.dataAs<float>(),
                               dh.dataAs<float>(), dproj.dataAs<float>(), dr.dataAs<float>(),
                               dalpha_rows.dataAs<float>(), dlogits.dataAs<float>(), tokens, n_,
                               iterations_, ctx.stream());
    Tensor dalpha = Tensor::empty(ctx, {3}, DType::kFloat32);
    kernels::columnSum(dalpha_rows.data(), DType::kFloat32, dalpha.dataAs<float>(), tokens, 3,
                       ctx.stream());
    Tensor dbeta = Tensor::empty(ctx, {m}, DType::kFloat32);
    kernels::columnSum(dlogits.data(), DType::kFloat32, dbeta.dataAs<float>(), tokens, m,
                       ctx.stream());
    const DType dt = x_.dtype();
    Tensor dproj_dt = asDtype(ctx, dproj, dt);
    Tensor dw = Tensor::empty(ctx, params_.weight.shape(), DType::kFloat32);
    gemm(ctx, m, width, tokens, 1.f, {dproj_dt.data(), dt, m, 0, true}, {x_.data(), dt, width}, 0.f,
         {dw.data(), DType::kFloat32, width});
    Tensor dx_proj = Tensor::empty(ctx, x_.shape(), DType::kFloat32);
    gemm(ctx, tokens, width, m, 1.f, {dproj_dt.data(), dt, m}, {params_.weight.data(), dt, width},
         0.f, {dx_proj.data(), DType::kFloat32, width});
    Tensor dx = Tensor::empty(ctx, x_.shape(), dt);
    kernels::hcRmsBackward(x_.data(), dt, r_.dataAs<float>(), dr.dataAs<float>(),
                           dx_proj.dataAs<float>(), dx.data(), tokens, width, kHcEps, ctx.stream());
    return {dx, dw, dalpha, dbeta};
  }

 private:
  Tensor x_;
  HcParams params_;
  Tensor proj_;
  Tensor r_;
  int n_;
  int iterations_;
};

class HcAggregateNode : public Node {
 public:
  HcAggregateNode(Tensor x, Tensor h, int n)
      : Node("HcAggregateBackward"), x_(std::move(x)), h_(std::move(h)), n_(n) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& du_in) override {
    const std::int64_t tokens = h_.size(0);
    const std::int64_t hidden = x_.size(1) / n_;
    Tensor du = asDtype(ctx, du_in, x_.dtype());
    Tensor dx = Tensor::empty(ctx, x_.shape(), x_.dtype());
    Tensor dh = Tensor::empty(ctx, h_.shape(), DType::kFloat32);
    kernels::hcAggregateBackward(x_.data(), h_.dataAs<float>(), du.data(), dx.data(),
                                 dh.dataAs<float>(), x_.dtype(), tokens, n_, hidden, ctx.stream());
    return {dx, dh};
  }

 private:
  Tensor x_;
  Tensor h_;
  int n_;
};

class HcUpdateNode : public Node {
 public:
  HcUpdateNode(Tensor x, Tensor h, Tensor y, Tensor bias, int n)
      : Node("HcUpdateBackward"), x_(std::move(x)), h_(std::move(h)), y_(std::move(y)),
        bias_(std::move(bias)), n_(n) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dout_in) override {
    const std::int64_t tokens = h_.size(0);
    const std::int64_t hidden = y_.size(1);
    Tensor dout = asDtype(ctx, dout_in, x_.dtype());
    Tensor dx = Tensor::empty(ctx, x_.shape(), x_.dtype());
    Tensor dy = Tensor::empty(ctx, y_.shape(), y_.dtype());
    Tensor dh = Tensor::empty(ctx, h_.shape(), DType::kFloat32);
    kernels::hcUpdateBackward(x_.data(), h_.dataAs<float>(), y_.data(),
                              bias_.defined() ? bias_.data() : nullptr, dout.data(), dx.data(),
                              dy.data(), dh.dataAs<float>(), x_.dtype(), tokens, n_, hidden,
                              ctx.stream());
    Tensor dbias;
    if (bias_.defined()) {
      dbias = Tensor::empty(ctx, {hidden}, DType::kFloat32);
      kernels::columnSum(dy.data(), dy.dtype(), dbias.dataAs<float>(), tokens, hidden,
                         ctx.stream());
    }
    return {dx, dh, dy, dbias};
  }

 private:
  Tensor x_;
  Tensor h_;
  Tensor y_;
  Tensor bias_;
  int n_;
};

class HcStreamsNode : public Node {
 public:
  HcStreamsNode(bool expand, int n, std::int64_t tokens, std::int64_t hidden)
      : Node(expand ? "HcExpandBackward" : "HcContractBackward"), expand_(expand), n_(n),
        tokens_(tokens), hidden_(hidden) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dy) override {
    if (expand_) {
      Tensor dx = Tensor::empty(ctx, {tokens_, hidden_}, dy.dtype());
      kernels::hcReduceStreams(dy.data(), dx.data(), dy.dtype(), tokens_, n_, hidden_, 1.f,
                               ctx.stream());
      return {dx};
    }
    Tensor dx = Tensor::empty(ctx, {tokens_, n_ * hidden_}, dy.dtype());
    kernels::hcBroadcastStreams(dy.data(), dx.data(), dy.dtype(), tokens_, n_, hidden_,
                                1.f / static_cast<float>(n_), ctx.stream());
    return {dx};
  }

 private:
  bool expand_;
  int n_;
  std::int64_t tokens_;
  std::int64_t hidden_;
};

}  // namespace

Tensor hcMapping(Context& ctx, const Tensor& x, const HcParams& params, int n, int iterations) {
  const std::int64_t tokens = x.size(0);
  const std::int64_t width = x.size(1);
  const std::int64_t m = params.weight.size(0);
  Tensor r = Tensor::empty(ctx, {tokens}, DType::kFloat32);
  kernels::hcRmsReciprocal(x.data(), x.dtype(), r.dataAs<float>(), tokens, width, kHcEps,
                           ctx.stream());
  Tensor proj = Tensor::empty(ctx, {tokens, m}, DType::kFloat32);
  gemm(ctx, tokens, m, width, 1.f, {x.data(), x.dtype(), width},
       {params.weight.data(), params.weight.dtype(), width, 0, true}, 0.f,
       {proj.data(), DType::kFloat32, m});
  Tensor h = Tensor::empty(ctx, {tokens, m}, DType::kFloat32);
  kernels::hcMappingForward(proj.dataAs<float>(), r.dataAs<float>(), params.alpha.dataAs<float>(),
                            params.beta.dataAs<float>(), h.dataAs<float>(), tokens, n, iterations,
                            ctx.stream());
  if (needsGrad(ctx, {x, params.weight, params.alpha, params.beta})) {
    connect(h, std::make_shared<HcMappingNode>(x, params, proj, r, n, iterations),
            {x, params.weight, params.alpha, params.beta});
  }
  return h;
}

Tensor hcAggregate(Context& ctx, const Tensor& x, const Tensor& h, int n) {
  const std::int64_t tokens = x.size(0);
  const std::int64_t hidden = x.size(1) / n;
  Tensor u = Tensor::empty(ctx, {tokens, hidden}, x.dtype());
  kernels::hcAggregateForward(x.data(), h.dataAs<float>(), u.data(), x.dtype(), tokens, n, hidden,
                              ctx.stream());
  if (needsGrad(ctx, {x, h})) connect(u, std::make_shared<HcAggregateNode>(x, h, n), {x, h});
  return u;
}

Tensor hcUpdate(Context& ctx, const Tensor& x, const Tensor& h, const Tensor& y,
                const Tensor& bias, int n) {
  const std::int64_t tokens = x.size(0);
  const std::int64_t hidden = y.size(1);
  Tensor out = Tensor::empty(ctx, x.shape(), x.dtype());
  kernels::hcUpdateForward(x.data(), h.dataAs<float>(), y.data(),
                           bias.defined() ? bias.data() : nullptr, out.data(), x.dtype(), tokens,
                           n, hidden, ctx.stream());
  if (needsGrad(ctx, {x, h, y, bias})) {
    connect(out, std::make_shared<HcUpdateNode>(x, h, y, bias, n), {x, h, y, bias});
  }
  return out;
}

Tensor hcExpand(Context& ctx, const Tensor& x, int n) {
  const std::int64_t tokens = x.size(0);
  const std::int64_t hidden = x.size(1);
  Tensor out = Tensor::empty(ctx, {tokens, n * hidden}, x.dtype());
  kernels::hcBroadcastStreams(x.data(), out.data(), x.dtype(), tokens, n, hidden, 1.f,
                              ctx.stream());
  if (needsGrad(ctx, {x})) connect(out, std::make_shared<HcStreamsNode>(true, n, tokens, hidden), {x});
  return out;
}

Tensor hcContract(Context& ctx, const Tensor& x, int n) {
  const std::int64_t tokens = x.size(0);
  const std::int64_t hidden = x.size(1) / n;
  Tensor out = Tensor::empty(ctx, {tokens, hidden}, x.dtype());
  kernels::hcReduceStreams(x.data(), out.data(), x.dtype(), tokens, n, hidden,
                           1.f / static_cast<float>(n), ctx.stream());
  if (needsGrad(ctx, {x})) {
    connect(out, std::make_shared<HcStreamsNode>(false, n, tokens, hidden), {x});
  }
  return out;
}

}  // namespace refmodel

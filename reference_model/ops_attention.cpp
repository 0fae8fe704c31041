// Causal multi-head self-attention op on a fused QKV tensor (cuBLAS products + own softmax).
#include "ops_attention.h"

#include <cmath>

#include "autograd.h"
#include "context.h"
#include "gemm.h"
#include "kernels.h"

namespace refmodel {

namespace {

// Per micro-batch entry bi: Q, K, V are [s, dh] slices with row stride batch*3h and one head every
// dh columns, so each product is one strided-batched GEMM over the heads.
struct Layout {
  std::int64_t s, b, heads, hidden, dh, qkv_ld, out_ld;
  float scale;
  Layout(const AttentionShape& shape, std::int64_t hidden_)
      : s(shape.seq), b(shape.batch), heads(shape.heads), hidden(hidden_), dh(hidden_ / shape.heads),
        qkv_ld(shape.batch * 3 * hidden_), out_ld(shape.batch * hidden_),
        scale(1.f / std::sqrt(static_cast<float>(hidden_ / shape.heads))) {}
  std::int64_t qkvOffset(std::int64_t bi, int part) const { return bi * 3 * hidden + part * hidden; }
  std::int64_t outOffset(std::int64_t bi) const { return bi * hidden; }
  std::int64_t probsOffset(std::int64_t bi) const { return bi * heads * s * s; }
};

const char* at(const Tensor& t, std::int64_t offset) {
  return static_cast<const char*>(t.data()) + offset * static_cast<std::int64_t>(elementSize(t.dtype()));
}
char* at(Tensor& t, std::int64_t offset) {
  return static_cast<char*>(t.data()) + offset * static_cast<std::int64_t>(elementSize(t.dtype()));
}

class AttentionNode : public Node {
 public:
  AttentionNode(Tensor qkv, Tensor probs, AttentionShape shape)
      : Node("AttentionBackward"), qkv_(std::move(qkv)), probs_(std::move(probs)), shape_(shape) {}

  std::vector<Tensor> apply(Context& ctx, const Tensor& dout_in) override {
    const DType dt = qkv_.dtype();
    const Layout l(shape_, qkv_.size(1) / 3);
    Tensor dout = dout_in.dtype() == dt ? dout_in : dout_in.to(ctx, dt);
    Tensor dqkv = Tensor::empty(ctx, qkv_.shape(), dt);
    Tensor dprobs = Tensor::empty(ctx, {l.heads, l.s, l.s}, DType::kFloat32);
    Tensor dscores = Tensor::empty(ctx, {l.heads, l.s, l.s}, dt);
    const std::int64_t ss = l.s * l.s;
    for (std::int64_t bi = 0; bi < l.b; ++bi) {
      const void* q = at(qkv_, l.qkvOffset(bi, 0));
      const void* k = at(qkv_, l.qkvOffset(bi, 1));
      const void* v = at(qkv_, l.qkvOffset(bi, 2));
      const void* p = at(probs_, l.probsOffset(bi));
      const void* go = at(dout, l.outOffset(bi));
      // dP = dO V^T
      gemm(ctx, l.s, l.s, l.dh, 1.f, {go, dt, l.out_ld, l.dh}, {v, dt, l.qkv_ld, l.dh, true}, 0.f,
           {dprobs.data(), DType::kFloat32, l.s, ss}, l.heads);
      kernels::causalSoftmaxBackward(p, dprobs.dataAs<float>(), dscores.data(), dt, l.heads * l.s,
                                     l.s, ctx.stream());
      // dQ = scale dS K, dK = scale dS^T Q, dV = P^T dO
      gemm(ctx, l.s, l.dh, l.s, l.scale, {dscores.data(), dt, l.s, ss}, {k, dt, l.qkv_ld, l.dh},
           0.f, {at(dqkv, l.qkvOffset(bi, 0)), dt, l.qkv_ld, l.dh}, l.heads);
      gemm(ctx, l.s, l.dh, l.s, l.scale, {dscores.data(), dt, l.s, ss, true},
           {q, dt, l.qkv_ld, l.dh}, 0.f, {at(dqkv, l.qkvOffset(bi, 1)), dt, l.qkv_ld, l.dh},
           l.heads);
      gemm(ctx, l.s, l.dh, l.s, 1.f, {p, dt, l.s, ss, true}, {go, dt, l.out_ld, l.dh}, 0.f,
           {at(dqkv, l.qkvOffset(bi, 2)), dt, l.qkv_ld, l.dh}, l.heads);
    }
    return {dqkv};
  }

  void releaseSavedTensors() override {
    qkv_ = Tensor();
    probs_ = Tensor();
  }

 private:
  Tensor qkv_;
  Tensor probs_;
  AttentionShape shape_;
};

}  // namespace

Tensor causalAttention(Context& ctx, const Tensor& qkv, const AttentionShape& shape) {
  const DType dt = qkv.dtype();
  const Layout l(shape, qkv.size(1) / 3);
  Tensor out = Tensor::empty(ctx, {l.s * l.b, l.hidden}, dt);
  Tensor probs = Tensor::empty(ctx, {l.b, l.heads, l.s, l.s}, dt);
  Tensor scores = Tensor::empty(ctx, {l.heads, l.s, l.s}, DType::kFloat32);
  const std::int64_t ss = l.s * l.s;
  for (std::int64_t bi = 0; bi < l.b; ++bi) {
    const void* q = at(qkv, l.qkvOffset(bi, 0));
    const void* k = at(qkv, l.qkvOffset(bi, 1));
    const void* v = at(qkv, l.qkvOffset(bi, 2));
    void* p = at(probs, l.probsOffset(bi));
    gemm(ctx, l.s, l.s, l.dh, l.scale, {q, dt, l.qkv_ld, l.dh}, {k, dt, l.qkv_ld, l.dh, true}, 0.f,
         {scores.data(), DType::kFloat32, l.s, ss}, l.heads);
    kernels::causalSoftmaxForward(scores.dataAs<float>(), p, dt, l.heads * l.s, l.s, ctx.stream());
    gemm(ctx, l.s, l.dh, l.s, 1.f, {p, dt, l.s, ss}, {v, dt, l.qkv_ld, l.dh}, 0.f,
         {at(out, l.outOffset(bi)), dt, l.out_ld, l.dh}, l.heads);
  }
  if (needsGrad(ctx, {qkv})) {
    connect(out, std::make_shared<AttentionNode>(qkv, probs, shape), {qkv});
  }
  return out;
}

}  // namespace refmodel

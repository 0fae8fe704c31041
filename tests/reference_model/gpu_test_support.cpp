// Test helpers for the reference model: GPU skip, small configs and a finite-difference checker.
#include "gpu_test_support.h"

#include <cmath>
#include <cstdio>

#include "autograd.h"
#include "context.h"
#include "cuda_check.h"

namespace refmodel::testing {

bool gpuAvailable(const std::string& test_name) {
  if (cudaDevicePresent()) return true;
  std::printf("SKIPPED: %s needs a CUDA device (none present)\n", test_name.c_str());
  return false;
}

Tensor leaf(Context& ctx, Shape shape, float stddev, std::uint64_t seed) {
  Tensor t = Tensor::normal(ctx, std::move(shape), DType::kFloat32, stddev, seed);
  t.setRequiresGrad(true);
  return t;
}

namespace {

double weightedSum(Context& ctx, const Tensor& out, const std::vector<float>& weights) {
  std::vector<float> values = out.toHost(ctx);
  double sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    sum += static_cast<double>(values[i]) * weights[i];
  return sum;
}

void upload(Context& ctx, const Tensor& t, const std::vector<float>& values) {
  REFMODEL_CUDA(cudaMemcpyAsync(t.data(), values.data(), values.size() * sizeof(float),
                                cudaMemcpyHostToDevice, ctx.stream()));
  REFMODEL_CUDA(cudaStreamSynchronize(ctx.stream()));
}

}  // namespace

GradCheckResult gradCheck(Context& ctx, const std::string& name, const OpFn& fn,
                          const std::vector<Tensor>& inputs, int samples, float eps, double atol,
                          double rtol) {
  GradCheckResult result;
  for (const Tensor& t : inputs) {
    if (t.requiresGrad() && t.grad().defined()) {
      REFMODEL_CUDA(cudaMemsetAsync(t.grad().data(), 0, t.grad().nbytes(), ctx.stream()));
    }
  }
  Tensor out = fn(ctx, inputs);
  std::vector<float> weights(static_cast<std::size_t>(out.numel()));
  for (std::size_t i = 0; i < weights.size(); ++i) {
    weights[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + 0.1));
  }
  runBackward(ctx, out, Tensor::fromHost(ctx, weights, out.shape(), DType::kFloat32));
  out = Tensor();
  GradModeGuard no_grad(ctx, false);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& input = inputs[k];
    if (!input.requiresGrad() || input.dtype() != DType::kFloat32) continue;
    std::vector<float> analytic = input.grad().defined()
                                      ? input.grad().toHost(ctx)
                                      : std::vector<float>(static_cast<std::size_t>(input.numel()));
    std::vector<float> values = input.toHost(ctx);
    const auto n = static_cast<std::int64_t>(values.size());
    const std::int64_t step = std::max<std::int64_t>(1, n / samples);
    for (std::int64_t i = (static_cast<std::int64_t>(k) * 7) % step; i < n; i += step) {
      const auto idx = static_cast<std::size_t>(i);
      const float original = values[idx];
      values[idx] = original + eps;
      upload(ctx, input, values);
      const double plus = weightedSum(ctx, fn(ctx, inputs), weights);
      values[idx] = original - eps;
      upload(ctx, input, values);
      const double minus = weightedSum(ctx, fn(ctx, inputs), weights);
      values[idx] = original;
      upload(ctx, input, values);
      const double numeric = (plus - minus) / (2.0 * static_cast<double>(eps));
      const double error = std::abs(numeric - static_cast<double>(analytic[idx]));
      result.max_abs_error = std::max(result.max_abs_error, error);
      result.max_rel_error =
          std::max(result.max_rel_error, error / std::max(std::abs(numeric), 1e-3));
      ++result.checked;
      if (error > atol + rtol * std::abs(numeric)) {
        ++result.failures;
        std::printf("gradcheck %s input %zu element %lld: analytic %.6g numeric %.6g\n",
                    name.c_str(), k, static_cast<long long>(i), static_cast<double>(analytic[idx]),
                    numeric);
      }
    }
  }
  std::printf("gradcheck %-28s checked %4d max_abs_err %.3e max_rel_err %.3e failures %d\n",
              name.c_str(), result.checked, result.max_abs_error, result.max_rel_error,
              result.failures);
  return result;
}

Config smallConfig() {
  Config c;
  c.model.layers = 2;
  c.model.hidden = 64;
  c.model.heads = 4;
  c.model.vocab = 128;
  c.model.seq = 64;
  c.model.micro_batch_size = 2;
  c.model.streams = 4;
  c.micro_batches = 2;
  c.iterations = 3;
  c.idle_ms = 0;
  c.eval = false;
  return c;
}

}  // namespace refmodel::testing

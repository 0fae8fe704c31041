// Test helpers for the reference model: GPU skip, small configs and a finite-difference checker.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config.h"
#include "tensor.h"

namespace refmodel::testing {

// True when a CUDA device is present; otherwise prints a visible SKIPPED line (CTest's skip
// pattern) and the test returns early.
bool gpuAvailable(const std::string& test_name);

struct GradCheckResult {
  double max_abs_error = 0;
  double max_rel_error = 0;  // |analytic - numeric| / max(|numeric|, 1e-3)
  int failures = 0;
  int checked = 0;
};

using OpFn = std::function<Tensor(Context&, const std::vector<Tensor>&)>;

// Compares d/dx sum(fn(inputs) * R) from autograd with central differences (fp32, host-side
// perturbation) for up to `samples` elements of every input that requires grad.
GradCheckResult gradCheck(Context& ctx, const std::string& name, const OpFn& fn,
                          const std::vector<Tensor>& inputs, int samples = 24, float eps = 5e-3f,
                          double atol = 3e-3, double rtol = 3e-2);

Tensor leaf(Context& ctx, Shape shape, float stddev, std::uint64_t seed);

// A small configuration for training tests (runs in well under a second per iteration).
Config smallConfig();

}  // namespace refmodel::testing

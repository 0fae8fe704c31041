// Small training-loop traces shared by the reports tests: the patterns users hunt (seeds/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace_builder.h"

namespace memfloor::analysis::test {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;

// A loop in the shape of seed 000: weights allocated before the first iteration; each iteration
// makes transient activations (freed inside it) and one buffer that a layer keeps until the next
// iteration's forward overwrites it (inter-iteration); optionally one buffer per iteration that
// the run never frees (a leak), and state the first iteration makes and the run keeps (optimizer
// moments). Iteration i runs over [1000 i + 100, 1000 i + 900]. With teardown, the process frees
// all that is still live after the last iteration, as an interpreter does at exit.
struct LoopOptions {
  uint32_t iterations = 5;
  uint64_t weights = 64 * kMiB;
  uint64_t activations = 32 * kMiB;
  uint64_t retained = 8 * kMiB;  // the inter-iteration buffer, 0 for none
  uint64_t leak = 0;             // leaked per iteration, 0 for none
  uint64_t state = 0;            // made in the first iteration and kept, 0 for none
  bool teardown = false;         // everything freed at 1000 n + 200 onwards
};

struct Loop {
  TraceBuilder trace;
  trace::StackId weights_site = 0, activation_site = 0, retained_site = 0, leak_site = 0;
  trace::StackId state_site = 0;  // with LoopOptions::state
};

inline Loop trainingLoop(const LoopOptions& o = {}) {
  Loop loop;
  TraceBuilder& t = loop.trace;
  loop.weights_site = t.stack({{"Model::Model", "model.cpp", 10}, {"main", "train.cpp", 5}});
  loop.activation_site = t.stack({{"Layer::forward", "layer.cpp", 40}});
  loop.retained_site = t.stack({{"Layer::forwardPostMlp", "layer.cpp", 2305}});
  loop.leak_site = t.stack({{"History::append", "history.cpp", 7}});
  if (o.state > 0) loop.state_site = t.stack({{"AdamW::initState", "optim.cpp", 3}});
  t.alloc(10, 0x10000000, o.weights, {.stack = loop.weights_site});
  for (uint64_t i = 0; i < o.iterations; ++i) {
    uint64_t base = 1000 * i;
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    t.push(base + 110, "forward");
    if (o.retained > 0 && i > 0) t.free(base + 120, 0x30000000 + (i - 1) * 0x1000000);
    t.alloc(base + 200, 0x20000000, o.activations, {.stack = loop.activation_site});
    if (o.retained > 0) {
      t.alloc(base + 300, 0x30000000 + i * 0x1000000, o.retained, {.stack = loop.retained_site});
    }
    if (o.leak > 0)
      t.alloc(base + 400, 0x40000000 + i * 0x1000000, o.leak, {.stack = loop.leak_site});
    t.pop(base + 500);
    if (o.state > 0 && i == 0) t.alloc(base + 600, 0x50000000, o.state, {.stack = loop.state_site});
    t.free(base + 800, 0x20000000);
    t.pop(base + 900);
  }
  if (o.teardown) {
    uint64_t ts = 1000 * o.iterations + 200;
    t.free(ts, 0x10000000);
    if (o.retained > 0) t.free(ts += 10, 0x30000000 + (o.iterations - 1) * 0x1000000);
    for (uint64_t i = 0; o.leak > 0 && i < o.iterations; ++i) {
      t.free(ts += 10, 0x40000000 + i * 0x1000000);
    }
    if (o.state > 0) t.free(ts + 10, 0x50000000);
  }
  return loop;
}

// A loop in the shape of seed 003: weights; per iteration the forward's activations (32 MiB),
// then the loss node's input (made after the forward), then the combined backward's gradients
// (16 MiB): the peak. With the bug the loss input lives on to the end of the iteration; fixed, it
// goes right after the loss backward, before the gradients. It is gone by the idle window either
// way. Iteration i runs over [1000 i + 100, 1000 i + 900].
struct CombinedBackward {
  TraceBuilder trace;
  trace::StackId weights = 0, activations = 0, loss_input = 0, gradients = 0;
};

inline CombinedBackward combinedBackward(bool bug, uint64_t loss_input = 4 * kMiB) {
  CombinedBackward s;
  TraceBuilder& t = s.trace;
  s.weights = t.stack({{"Model::Model", "model.cpp", 10}});
  s.activations = t.stack({{"Layer::forward", "layer.cpp", 40}});
  s.loss_input = t.stack({{"LossNode::forward", "combined_1f1b.cpp", 88}});
  s.gradients = t.stack({{"Layer::backward", "layer.cpp", 90}});
  t.alloc(10, 0x10000000, 64 * kMiB, {.stack = s.weights});
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t base = 1000 * i;
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    t.alloc(base + 200, 0x20000000, 32 * kMiB, {.stack = s.activations});
    t.alloc(base + 300, 0x30000000, loss_input, {.stack = s.loss_input});
    if (!bug) t.free(base + 350, 0x30000000);
    t.alloc(base + 400, 0x40000000, 16 * kMiB, {.stack = s.gradients});
    t.free(base + 600, 0x40000000).free(base + 650, 0x20000000);
    if (bug) t.free(base + 850, 0x30000000);
    t.pop(base + 900);
  }
  return s;
}

// PyTorch's caching allocator warming up: one segment reserved before the first iteration holds
// the weights' blocks; in each of the first `growing` iterations the allocator reserves one more
// segment (from one of `segment_sites` stacks of its own, in turn) and never frees it: its cache
// grows, then stays. Every iteration makes blocks for its activations, freed inside it, and
// optionally one block a list keeps to the end (a leak of the program's, at the allocated level).
// Without blocks: the same segments and nothing else, as a C++ program's cudaMalloc calls that
// keep growing. Iteration i runs over [1000 i + 100, 1000 i + 900].
struct WarmUpOptions {
  uint32_t iterations = 6;
  uint32_t growing = 3;
  uint64_t segment = 256 * kMiB;  // reserved per growing iteration
  uint32_t segment_sites = 1;
  uint64_t leak = 0;  // kept per iteration by the list, 0 for none
  bool blocks = true;
};

inline constexpr uint64_t kWarmUpFirstSegment = 64 * kMiB;  // before the first iteration
inline constexpr uint64_t kWarmUpWeights = 32 * kMiB;       // blocks in the first segment

struct WarmUp {
  TraceBuilder trace;
  std::vector<trace::StackId> segment_sites;
  trace::StackId weights = 0, activations = 0, history = 0;
};

inline WarmUp cacheWarmUp(const WarmUpOptions& o = {}) {
  constexpr uint64_t kFirst = 0x7f0000000000, kGrown = 0x7f1000000000;
  WarmUp w;
  TraceBuilder& t = w.trace;
  for (uint32_t k = 0; k < o.segment_sites; ++k) {
    w.segment_sites.push_back(
        t.stack({{"c10::cuda::CUDACachingAllocator::malloc", "c10/cuda/CUDACachingAllocator.cpp",
                  1020 + k, "libc10_cuda.so", 0x3a10 + k}}));
  }
  auto python = [&t](const char* function, const char* file, uint32_t line) {
    return t.stack({{function, file, line, "", 0, trace::FrameKind::kPython}});
  };
  w.weights = python("Model.__init__", "model.py", 12);
  w.activations = python("Model.forward", "model.py", 40);
  w.history = python("train_step", "train.py", 30);
  const At block{.kind = MemoryKind::kBlock};
  auto blockAt = [](trace::StackId stack) {
    return At{.kind = MemoryKind::kBlock, .stack = stack};
  };
  t.alloc(10, kFirst, kWarmUpFirstSegment, {.stack = w.segment_sites[0]});
  if (o.blocks) t.alloc(20, kFirst, kWarmUpWeights, blockAt(w.weights));
  for (uint64_t i = 0; i < o.iterations; ++i) {
    const uint64_t base = 1000 * i;
    t.push(base + 100, "iteration " + std::to_string(i + 1));
    if (i < o.growing) {
      t.alloc(base + 200, kGrown + i * o.segment, o.segment,
              {.stack = w.segment_sites[i % o.segment_sites]});
    }
    if (o.blocks) {
      t.alloc(base + 300, kFirst + kWarmUpWeights, 16 * kMiB, blockAt(w.activations));
      if (o.leak > 0) t.alloc(base + 400, kGrown + i * o.leak, o.leak, blockAt(w.history));
      t.free(base + 800, kFirst + kWarmUpWeights, block);
    }
    t.pop(base + 900);
  }
  return w;
}

}  // namespace memfloor::analysis::test

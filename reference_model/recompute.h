// Full activation recompute: forward without a graph, the layer re-run with a graph in backward.
#pragma once

#include "tensor.h"

namespace refmodel {

class Context;
class TransformerLayer;

// Runs `layer` without building a graph and returns its output with a checkpoint node as grad_fn.
// The node keeps only the layer input; its backward detaches the input (an alias requiring grad),
// re-runs the layer forward with the graph on, back-propagates through it and returns the input's
// gradient (Megatron's CheckpointFunction with recompute_granularity='full').
Tensor checkpointedForward(Context& ctx, TransformerLayer& layer, const Tensor& input);

}  // namespace refmodel

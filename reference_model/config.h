// Command-line configuration of the reference model: shapes, schedule, recompute, offload, bug flags.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dtype.h"

namespace refmodel {

enum class LayerKind { kBase, kHyperConnection };
enum class Recompute { kNone, kFull };
enum class Schedule { kOneFOneB, kCombinedOneFOneB };
enum class LinkKind { kHost, kNccl };  // how ranks move boundary tensors (stage_link.h)

// Each flag re-introduces one seed bug; the default (all false) is the fixed code.
struct BugFlags {
  bool hc_mlp_norm_manager = false;  // HC post-MLP step does not clear mlp_norm_manager_
  bool loss_node_inputs = false;     // combined 1F1B keeps the loss node's state and inputs
};

struct ModelConfig {
  int layers = 2;
  std::int64_t hidden = 1024;
  std::int64_t heads = 8;
  std::int64_t ffn_hidden = 0;  // 0: 4 * hidden
  std::int64_t vocab = 4096;
  std::int64_t seq = 1024;
  std::int64_t micro_batch_size = 1;
  int streams = 4;  // hyper-connection residual streams
  LayerKind layer_kind = LayerKind::kHyperConnection;
  Recompute recompute = Recompute::kFull;
  bool offload = false;
  DType dtype = DType::kBFloat16;

  std::int64_t tokens() const { return seq * micro_batch_size; }
  std::int64_t ffn() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  int residualStreams() const { return layer_kind == LayerKind::kHyperConnection ? streams : 1; }
};

struct Config {
  ModelConfig model;
  BugFlags bugs;
  int micro_batches = 1;
  int pipeline_stages = 1;
  Schedule schedule = Schedule::kOneFOneB;
  int iterations = 10;
  std::uint64_t seed = 1234;
  float lr = 1e-3f;
  int idle_ms = 20;     // pause inside each idle window, after the evaluation forward
  // Evaluation forward (no graph) inside each idle window. Off by default: like the framework's
  // evaluation, it re-runs every layer's forward and so overwrites the layers' MLP-norm managers.
  bool eval = false;
  bool time_gemm = false;  // time every cuBLAS product with CUDA events
  bool grad_norm = false;  // print each stage's squared gradient norm (before the optimizer step)
  int ranks = 0;           // > 0: start this many rank processes of this program (launcher.h)
  LinkKind p2p = LinkKind::kHost;
};

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv; throws ConfigError (with a message for the user) on bad input. `help` is set when
// --help was asked for (then the returned text is the usage).
Config parseArgs(int argc, const char* const* argv, bool& help, std::string& help_text);
// Checks a config for consistency (divisibility, ranges); throws ConfigError.
void validate(const Config& config);
std::string describe(const Config& config);

}  // namespace refmodel

// Command-line configuration of the reference model: shapes, schedule, recompute, offload, bug flags.
#include "config.h"

// GCC 12 reports a false -Wnull-dereference inside CLI11's inlined string handling.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <map>
#include <sstream>

#include "kernels.h"

namespace refmodel {

Config parseArgs(int argc, const char* const* argv, bool& help, std::string& help_text) {
  Config c;
  ModelConfig& m = c.model;
  CLI::App app{"reference_model: a GPT training workload with the two seed bugs behind flags"};
  app.add_option("--layers", m.layers, "transformer layers")->check(CLI::Range(1, 1024));
  app.add_option("--hidden", m.hidden, "hidden size h")->check(CLI::Range(8, 65536));
  app.add_option("--heads", m.heads, "attention heads")->check(CLI::Range(1, 1024));
  app.add_option("--ffn-hidden", m.ffn_hidden, "MLP hidden size (0: 4h)");
  app.add_option("--vocab", m.vocab, "vocabulary size")->check(CLI::Range(16, 1 << 20));
  app.add_option("--seq", m.seq, "sequence length")->check(CLI::Range(1, 1 << 20));
  app.add_option("--micro-batch-size", m.micro_batch_size, "micro-batch size")
      ->check(CLI::Range(1, 1024));
  app.add_option("--micro-batches", c.micro_batches, "micro-batches per iteration")
      ->check(CLI::Range(1, 4096));
  app.add_option("--pipeline-stages", c.pipeline_stages,
                 "pipeline stages (in this process, or one per rank)")
      ->check(CLI::Range(1, 64));
  app.add_option("--streams", m.streams, "hyper-connection residual streams n")
      ->check(CLI::Range(1, kernels::kMaxStreams));
  app.add_option("--layer", m.layer_kind, "layer type")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, LayerKind>{{"base", LayerKind::kBase},
                                           {"hc", LayerKind::kHyperConnection}},
          CLI::ignore_case));
  app.add_option("--recompute", m.recompute, "activation recompute")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Recompute>{{"none", Recompute::kNone}, {"full", Recompute::kFull}},
          CLI::ignore_case));
  app.add_flag("--offload", m.offload, "offload the MLP-norm input to pinned host memory");
  app.add_option("--dtype", m.dtype, "activation and parameter dtype")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, DType>{{"bf16", DType::kBFloat16}, {"fp32", DType::kFloat32}},
          CLI::ignore_case));
  app.add_option("--schedule", c.schedule, "pipeline schedule")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Schedule>{{"1f1b", Schedule::kOneFOneB},
                                          {"combined-1f1b", Schedule::kCombinedOneFOneB}},
          CLI::ignore_case));
  app.add_option("--iterations", c.iterations, "training iterations")->check(CLI::Range(1, 1000000));
  app.add_option("--seed", c.seed, "seed for parameters and data");
  app.add_option("--lr", c.lr, "Adam learning rate");
  app.add_option("--idle-ms", c.idle_ms, "pause in each idle window (ms)")->check(CLI::Range(0, 60000));
  app.add_flag("--eval", c.eval, "run an evaluation forward (no graph) in each idle window");
  app.add_flag("--time-gemm", c.time_gemm, "time every cuBLAS product (share of step time)");
  app.add_flag("--grad-norm", c.grad_norm, "print each stage's squared gradient norm");
  app.add_option("--ranks", c.ranks,
                 "start one process per rank and stage (RANK, WORLD_SIZE, MASTER_ADDR/PORT set)")
      ->check(CLI::Range(1, 64));
  app.add_option("--p2p", c.p2p, "how ranks exchange boundary tensors")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, LinkKind>{{"host", LinkKind::kHost}, {"nccl", LinkKind::kNccl}},
          CLI::ignore_case));
  std::vector<std::string> bugs;
  app.add_option("--bug", bugs, "re-introduce a seed bug (repeatable)")
      ->check(CLI::IsMember({"hc-mlp-norm-manager", "loss-node-inputs"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    help = true;
    help_text = app.help();
    return c;
  } catch (const CLI::ParseError& e) {
    throw ConfigError(e.what());
  }
  help = false;
  for (const auto& b : bugs) {
    if (b == "hc-mlp-norm-manager") c.bugs.hc_mlp_norm_manager = true;
    if (b == "loss-node-inputs") c.bugs.loss_node_inputs = true;
  }
  validate(c);
  return c;
}

void validate(const Config& c) {
  const ModelConfig& m = c.model;
  if (m.hidden % m.heads != 0) throw ConfigError("--hidden must be a multiple of --heads");
  if (c.pipeline_stages > m.layers) {
    throw ConfigError("--pipeline-stages must not exceed --layers");
  }
  if (m.layers % c.pipeline_stages != 0) {
    throw ConfigError("--layers must be a multiple of --pipeline-stages");
  }
  if (c.ranks > 0 && c.ranks != c.pipeline_stages) {
    throw ConfigError("--ranks must equal --pipeline-stages (one stage per rank)");
  }
  if (c.schedule == Schedule::kCombinedOneFOneB && c.pipeline_stages != 1) {
    throw ConfigError("--schedule combined-1f1b runs one stage (--pipeline-stages 1)");
  }
}

std::string describe(const Config& c) {
  const ModelConfig& m = c.model;
  std::ostringstream out;
  out << "layers=" << m.layers << " hidden=" << m.hidden << " heads=" << m.heads
      << " ffn=" << m.ffn() << " vocab=" << m.vocab << " seq=" << m.seq
      << " mbs=" << m.micro_batch_size << " micro_batches=" << c.micro_batches
      << " stages=" << c.pipeline_stages
      << " layer=" << (m.layer_kind == LayerKind::kBase ? "base" : "hc")
      << " streams=" << m.residualStreams()
      << " recompute=" << (m.recompute == Recompute::kFull ? "full" : "none")
      << " offload=" << (m.offload ? "on" : "off") << " dtype=" << dtypeName(m.dtype)
      << " schedule=" << (c.schedule == Schedule::kOneFOneB ? "1f1b" : "combined-1f1b")
      << " bugs=" << (c.bugs.hc_mlp_norm_manager ? "hc-mlp-norm-manager," : "")
      << (c.bugs.loss_node_inputs ? "loss-node-inputs," : "") << " seed=" << c.seed;
  if (c.ranks > 0) out << " ranks=" << c.ranks << " p2p=" << (c.p2p == LinkKind::kNccl ? "nccl" : "host");
  return out.str();
}

}  // namespace refmodel

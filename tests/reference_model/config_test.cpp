// Command-line parsing of the reference model (runs without a GPU).
#include "config.h"

#include <catch2/catch.hpp>

namespace refmodel {
namespace {

Config parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"reference_model"};
  for (const char* a : args) argv.push_back(a);
  bool help = false;
  std::string text;
  return parseArgs(static_cast<int>(argv.size()), argv.data(), help, text);
}

TEST_CASE("defaults are the fixed code in the seed's configuration shape") {
  const Config c = parse({});
  CHECK_FALSE(c.bugs.hc_mlp_norm_manager);
  CHECK_FALSE(c.bugs.loss_node_inputs);
  CHECK(c.model.layers == 2);
  CHECK(c.model.streams == 4);
  CHECK(c.model.layer_kind == LayerKind::kHyperConnection);
  CHECK(c.model.recompute == Recompute::kFull);
  CHECK(c.model.dtype == DType::kBFloat16);
  CHECK(c.model.micro_batch_size == 1);
  CHECK(c.schedule == Schedule::kOneFOneB);
  CHECK_FALSE(c.eval);
}

TEST_CASE("bug flags and config flags are parsed") {
  const Config c = parse({"--bug",
                          "hc-mlp-norm-manager",
                          "--bug",
                          "loss-node-inputs",
                          "--seq",
                          "8192",
                          "--layer",
                          "base",
                          "--recompute",
                          "none",
                          "--dtype",
                          "fp32",
                          "--pipeline-stages",
                          "2",
                          "--micro-batches",
                          "4",
                          "--offload",
                          "--schedule",
                          "1f1b",
                          "--iterations",
                          "7",
                          "--seed",
                          "9",
                          "--eval"});
  CHECK(c.bugs.hc_mlp_norm_manager);
  CHECK(c.bugs.loss_node_inputs);
  CHECK(c.model.seq == 8192);
  CHECK(c.model.layer_kind == LayerKind::kBase);
  CHECK(c.model.residualStreams() == 1);
  CHECK(c.model.recompute == Recompute::kNone);
  CHECK(c.model.dtype == DType::kFloat32);
  CHECK(c.pipeline_stages == 2);
  CHECK(c.micro_batches == 4);
  CHECK(c.model.offload);
  CHECK(c.iterations == 7);
  CHECK(c.seed == 9);
  CHECK(c.eval);
}

TEST_CASE("bad input is a ConfigError with a message") {
  CHECK_THROWS_AS(parse({"--bug", "no-such-bug"}), ConfigError);
  CHECK_THROWS_AS(parse({"--hidden", "100", "--heads", "8"}), ConfigError);
  CHECK_THROWS_AS(parse({"--layers", "3", "--pipeline-stages", "2"}), ConfigError);
  CHECK_THROWS_AS(parse({"--streams", "9"}), ConfigError);
  CHECK_THROWS_AS(parse({"--schedule", "combined-1f1b", "--pipeline-stages", "2"}), ConfigError);
  CHECK_THROWS_AS(parse({"--no-such-flag"}), ConfigError);
}

TEST_CASE("--help returns the usage text") {
  const char* args[] = {"reference_model", "--help"};
  bool help = false;
  std::string text;
  parseArgs(2, args, help, text);
  CHECK(help);
  CHECK(text.find("--bug") != std::string::npos);
}

}  // namespace
}  // namespace refmodel

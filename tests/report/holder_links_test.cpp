// Tests of report/holder_links.cpp: a finding's field name against census holders' paths.
#include "report/holder_links.h"

#include <catch2/catch.hpp>

namespace memfloor::report {
namespace {

Holder holder(std::string path, uint64_t bytes) {
  Holder h;
  h.path = std::move(path);
  h.bytes = bytes;
  h.count = 1;
  return h;
}

TEST_CASE("a finding's field links by its last name, without trailing underscores",
          "[analysis][holder_links]") {
  CHECK(linkName("mlp_norm_manager_") == "mlp_norm_manager");
  CHECK(linkName("self.mlp_norm_manager") == "mlp_norm_manager");
  CHECK(linkName("chain.loss_node") == "loss_node");
  CHECK(linkName("layer->cache_") == "cache");
  CHECK(linkName("Layer::buffer") == "buffer");
  CHECK(linkName("__") == "");
  CHECK(linkName("") == "");
}

TEST_CASE("only a finding in Python source names a holder: a C++ member is another object",
          "[analysis][holder_links]") {
  LinkedFinding python;
  python.file = "megatron/core/transformer/transformer_layer.py";
  python.field = "self.mlp_norm_manager";
  CHECK(holderLinkName(python) == "mlp_norm_manager");
  python.file = "stubs/layer.pyi";
  CHECK(holderLinkName(python) == "mlp_norm_manager");
  LinkedFinding native = python;
  native.file = "reference_model/hyper_connection_layer.cpp";
  native.field = "mlp_norm_manager_";
  CHECK(holderLinkName(native).empty());
  std::vector<Report> runs(1);
  runs[0].iterations.resize(1);
  runs[0].iterations[0].index = 2;
  runs[0].iterations[0].held_by.resize(1);
  runs[0].iterations[0].held_by[0].holders = {
      holder("train.py:main.model.layers[0].mlp_norm_manager.tensor", 64)};
  CHECK(linkHolders(runs, holderLinkName(native)).empty());
  CHECK(linkHolders(runs, holderLinkName(python)).size() == 1);
}

TEST_CASE("a path names what one of its components is called, subscripts and root aside",
          "[analysis][holder_links]") {
  const std::string path = "train.py:main.model.layers[1].mlp_norm_manager.tensor";
  CHECK(pathNames(path, "mlp_norm_manager"));
  CHECK(pathNames(path, "mlp_norm_manager_"));  // a C++ member's name
  CHECK(pathNames(path, "layers"));
  CHECK(pathNames(path, "tensor"));
  CHECK_FALSE(pathNames(path, "mlp_norm"));  // whole components only
  CHECK_FALSE(pathNames(path, "main"));      // the root is a frame, not a holder
  CHECK_FALSE(pathNames(path, ""));
  // A subscript's own dots do not split: the key names a parameter, not this holder.
  CHECK_FALSE(pathNames("train.py:main.opt.state[model.lin.weight]['exp_avg']", "weight"));
  CHECK(pathNames("train.py:main.opt.state[model.lin.weight]['exp_avg']", "state"));
  CHECK(pathNames("mypkg.CACHE['k']", "CACHE"));
  CHECK_FALSE(pathNames("mypkg", "mypkg"));
}

TEST_CASE("links sum the named holders per census window and keep the largest",
          "[analysis][holder_links]") {
  std::vector<Report> runs(2);
  IterationRow early;
  early.index = 2;
  HeldBy first;
  first.device = 0;
  first.holders = {holder("t.py:main.model.layers[0].mlp_norm_manager.tensor", 64),
                   holder("t.py:main.model.layers[1].mlp_norm_manager.tensor", 64),
                   holder("t.py:main.model.layers[0].up.weight", 1000)};
  early.held_by = {first};
  IterationRow late;
  late.index = 4;
  HeldBy second = first;
  second.holders.resize(1);
  late.held_by = {second};
  runs[0].iterations = {early, late};
  IterationRow other;
  other.index = 1;
  other.held_by = {HeldBy{}};
  runs[1].iterations = {other};

  const std::vector<HolderLink> links = linkHolders(runs, "mlp_norm_manager_");
  REQUIRE(links.size() == 2);
  CHECK(links[0].run == 0);
  CHECK(links[0].iteration == 2);
  CHECK(links[0].bytes == 128);
  CHECK(links[0].count == 2);
  CHECK(links[0].paths.size() == 2);
  CHECK(links[1].iteration == 4);
  CHECK(links[1].bytes == 64);
  CHECK(maxHeldBytes(links) == 128);
  CHECK(linkHolders(runs, "").empty());
  CHECK(linkHolders(runs, "absent").empty());
  CHECK(maxHeldBytes({}) == 0);
}

}  // namespace
}  // namespace memfloor::report

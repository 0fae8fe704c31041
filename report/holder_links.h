// Holder links: which census holders a checker finding names (docs/design.md, "Linking findings
// to holders"). A finding on a field or attribute (`mlp_norm_manager_`, `self.mlp_norm_manager`,
// `chain.loss_node`) links exactly to the holders whose path has a component of that name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/findings.h"
#include "report/model.h"

namespace memfloor::report {

// The name a finding's field is matched by: its last component (after `.`, `->` or `::`), without
// trailing underscores (C++ members' `_`); "" when nothing is left.
std::string linkName(std::string_view field);

// The name `finding` links holders by: its field's linkName where the finding is in Python source
// (holders are the objects a Python process's census names; a C++ member of the same name is
// another object), else "" (it names no holder).
std::string holderLinkName(const LinkedFinding& finding);

// Whether a component of the holder's path (split at `.`, each without its `[...]` subscripts;
// the root, `file.py:function` or a module's name, is not one) has the name, compared as
// linkName compares: `model.layers[1].mlp_norm_manager.tensor` names `mlp_norm_manager`.
bool pathNames(std::string_view path, std::string_view name);

// The bytes that the holders named by `name` keep in one census.
struct HolderLink {
  uint32_t run = 0;
  uint32_t iteration = 0;  // 1-based: the idle window after it
  uint32_t device = 0;
  uint64_t bytes = 0;
  uint64_t count = 0;              // blocks
  std::vector<std::string> paths;  // the linked holders, by bytes as listed
  bool operator==(const HolderLink&) const = default;
};

// Every census window of every run where a listed holder's path names `name`, in run, iteration
// and device order; empty for an empty name.
std::vector<HolderLink> linkHolders(const std::vector<Report>& runs, std::string_view name);

// The most bytes of one link (0 when there is none).
uint64_t maxHeldBytes(const std::vector<HolderLink>& links);

}  // namespace memfloor::report

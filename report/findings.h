// The checker's findings as the report keeps them: each finding, its source snippet and the
// functions that link allocating stacks to it (docs/report-schema.md, "findings").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memfloor::report {

// The functions whose presence in an allocating stack links the stack to one finding. A pattern is
// a qualified name matched against a frame's function by trailing name components, parameters
// dropped (symbols::functionName): "Layer::forward" matches "ns::Layer::forward(Context&) const";
// "Layer::*" matches any method of Layer. Python qualified names match whole ("Layer.forward"),
// and "Layer.*" matches any method of Layer. `file`, for a finding in Python source: a Python
// frame links only from that file (the same path, or one ending in it).
struct LinkRule {
  std::vector<std::string> functions;
  std::string file;
};

struct SourceSnippet {
  uint32_t first_line = 0;
  std::vector<std::string> lines;
};

// One finding as the report keeps it: the checker's fields, linked to the bytes it explains by
// `link` (checker::Finding is the checker's own record, with related sites and fix-its).
struct LinkedFinding {
  nlohmann::json raw;  // the finding as the checker wrote it (copied into the report)
  std::string rule, message, file, function, field, fingerprint;
  uint32_t line = 0, column = 0;
  LinkRule link;  // docs/design.md, "Linking findings to bytes"
  std::optional<SourceSnippet> snippet;
};

struct FindingsFile {
  std::string path;
  std::vector<LinkedFinding> items;
  std::vector<std::string> errors;
  // One line per finding whose source was not read (outside the source root, not a regular
  // file), for the command to print; not part of the report.
  std::vector<std::string> warnings;
};

}  // namespace memfloor::report

// Findings: the checker's findings document (docs/findings-schema.md), read for merging into the
// report (report/findings.h holds what the report keeps of it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/site_links.h"
#include "report/findings.h"

namespace memfloor::analysis {

// The largest source file a snippet is read from: 64 MiB (source files are far smaller; a larger
// file is not read to its end, and what is past the limit is not shown).
inline constexpr uint64_t kMaxSourceBytes = uint64_t{64} << 20;

// Parses a findings document (common/json_input.h checks it is one of common::kFindingsSchema's
// major); `name` names it in errors. Throws memfloor::Error on anything that is not a
// memfloor.findings/1 document with well-formed findings.
FindingsFile parseFindings(std::string_view text, const std::string& name);

// Reads `path` through the common loader (common/json_input.h) and parses it, then reads each
// finding's snippet from its file, resolved under source_root ("": the current directory) by
// resolveUnderRoot. A finding outside the root, or whose file is not a regular file, has no
// snippet and a line in `warnings`; so has a root that does not exist. Throws memfloor::Error
// naming the findings file when it cannot be read.
FindingsFile loadFindings(const std::string& path, const std::string& source_root);

// `file` (a relative name is taken from `root`, which must be canonical) with its links and `..`
// resolved, when that lies under `root`; nullopt when it leaves it (an absolute path elsewhere,
// `..` past the root, a link pointing out).
std::optional<std::filesystem::path> resolveUnderRoot(const std::filesystem::path& root,
                                                      const std::string& file);

// The functions that link allocating stacks to a finding: the function it was found in, and any
// method of that function's class (the object that holds the member). A finding in a .py file
// links Python frames of that file only (`file`).
LinkRule linkRuleFor(std::string_view function, std::string_view file = {});

// Up to `context` lines either side of `line` (1-based); nullopt when the file does not exist or
// is shorter than `line`. Throws memfloor::Error when it is not a regular file (a pipe is never
// waited on) or cannot be read; reads at most kMaxSourceBytes.
std::optional<SourceSnippet> readSnippet(const std::string& path, uint32_t line, uint32_t context);

}  // namespace memfloor::analysis

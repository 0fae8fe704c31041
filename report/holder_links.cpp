// Holder links: a finding's field name against the components of census holders' paths.
#include "report/holder_links.h"

#include <algorithm>

#include "common/source_language.h"

namespace memfloor::report {

namespace {

std::string_view withoutTrailingUnderscores(std::string_view name) {
  while (!name.empty() && name.back() == '_') name.remove_suffix(1);
  return name;
}

// The component without its subscripts: `layers[1]` -> `layers`, `state[model.w]['m']` -> `state`.
std::string_view bare(std::string_view component) {
  return component.substr(0, component.find('['));
}

// The path's components after its root, split at the dots outside subscripts.
std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    const char c = i < path.size() ? path[i] : '.';
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c != '.' || depth > 0) continue;
    out.push_back(path.substr(start, i - start));
    start = i + 1;
  }
  if (!out.empty()) out.erase(out.begin());  // the root: a frame or a module
  return out;
}

}  // namespace

std::string linkName(std::string_view field) {
  for (std::string_view separator : {".", "->", "::"}) {
    const size_t at = field.rfind(separator);
    if (at != std::string_view::npos) field.remove_prefix(at + separator.size());
  }
  return std::string(withoutTrailingUnderscores(field));
}

std::string holderLinkName(const LinkedFinding& finding) {
  return common::isPythonSource(finding.file) ? linkName(finding.field) : std::string();
}

bool pathNames(std::string_view path, std::string_view name) {
  name = withoutTrailingUnderscores(name);
  if (name.empty()) return false;
  const std::vector<std::string_view> parts = components(path);
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) {
    return withoutTrailingUnderscores(bare(part)) == name;
  });
}

std::vector<HolderLink> linkHolders(const std::vector<Report>& runs, std::string_view name) {
  std::vector<HolderLink> links;
  if (withoutTrailingUnderscores(name).empty()) return links;
  for (uint32_t run = 0; run < runs.size(); ++run) {
    for (const IterationRow& row : runs[run].iterations) {
      for (const HeldBy& census : row.held_by) {
        HolderLink link{run, row.index, census.device, 0, 0, {}};
        for (const Holder& holder : census.holders) {
          if (!pathNames(holder.path, name)) continue;
          link.bytes += holder.bytes;
          link.count += holder.count;
          link.paths.push_back(holder.path);
        }
        if (!link.paths.empty()) links.push_back(std::move(link));
      }
    }
  }
  return links;
}

uint64_t maxHeldBytes(const std::vector<HolderLink>& links) {
  uint64_t most = 0;
  for (const HolderLink& link : links) most = std::max(most, link.bytes);
  return most;
}

}  // namespace memfloor::report

// Findings: validation of the checker's document, links and snippets.
#include "analysis/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <istream>

#include "common/error.h"
#include "common/findings_schema.h"
#include "common/input_file.h"
#include "common/json_fields.h"
#include "common/json_input.h"

namespace memfloor::analysis {
namespace {

using nlohmann::json;

// The findings of a document whose schema common::checkSchema accepted; errors name the field
// ("findings.json: findings[3].location.line: expected an unsigned integer").
FindingsFile readFindings(const json& doc, const std::string& name) {
  FindingsFile out;
  out.path = name;
  const common::JsonFields f(name);
  f.each(doc, "", "findings", [&](const json& item, const std::string& c) {
    LinkedFinding finding;
    finding.raw = f.object(item, c);
    finding.rule = f.string(item, c, "rule");
    finding.message = f.string(item, c, "message");
    finding.function = f.string(item, c, "function");
    finding.field = f.string(item, c, "field");
    finding.fingerprint = f.string(item, c, "fingerprint");
    const json& loc = f.object(item, c, "location");
    const std::string lc = common::JsonFields::field(c, "location");
    finding.file = f.string(loc, lc, "file");
    finding.line = f.u32(loc, lc, "line");
    if (loc.contains("column")) finding.column = f.u32(loc, lc, "column");
    finding.link = linkRuleFor(finding.function, finding.file);
    out.items.push_back(std::move(finding));
  });
  // The checker's own errors are notes for the report: what is not a list of strings is left out.
  if (auto errors = doc.find("errors"); errors != doc.end() && errors->is_array()) {
    for (const json& e : *errors) {
      if (e.is_string()) out.errors.push_back(e.get<std::string>());
    }
  }
  return out;
}

}  // namespace

FindingsFile parseFindings(std::string_view text, const std::string& name) {
  return readFindings(common::parseJsonDocument(text, common::kFindingsDocument, name), name);
}

std::optional<std::filesystem::path> resolveUnderRoot(const std::filesystem::path& root,
                                                      const std::string& file) {
  // weakly_canonical resolves every link of the part that exists and `..` in the rest: a name
  // that leaves the root by either is outside, whether or not the file is there.
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(root / file, ec);
  if (ec) return std::nullopt;
  auto [in_root, in_resolved] =
      std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (in_root != root.end()) return std::nullopt;
  return resolved;
}

FindingsFile loadFindings(const std::string& path, const std::string& source_root) {
  FindingsFile file = readFindings(
      common::loadJsonDocument(path, common::kFindingsDocument, "findings file"), path);
  if (file.items.empty()) return file;
  const std::string root_name = source_root.empty() ? "." : source_root;
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::canonical(root_name, ec);
  if (ec) {
    file.warnings.push_back(fmt::format("{}: the source root '{}': {}: no finding shows its source",
                                        path, root_name, ec.message()));
    return file;
  }
  size_t index = 0;
  for (LinkedFinding& f : file.items) {
    ++index;
    // A findings file is input like any other: a name outside the root (an absolute path, `..`,
    // a link out of it) would copy any file this user can read into the report and the page.
    const std::optional<std::filesystem::path> source = resolveUnderRoot(root, f.file);
    if (!source) {
      file.warnings.push_back(
          fmt::format("{}: finding {}: {}: not under the source root '{}': shown without its "
                      "source",
                      path, index, f.file, root_name));
      continue;
    }
    try {
      f.snippet = readSnippet(source->string(), f.line, 3);
    } catch (const Error& e) {
      file.warnings.push_back(fmt::format("{}: finding {}: {}", path, index, e.what()));
    }
  }
  return file;
}

LinkRule linkRuleFor(std::string_view function, std::string_view file) {
  LinkRule rule;
  if (function.empty()) return rule;
  rule.functions.emplace_back(function);
  if (file.ends_with(".py")) {
    rule.file = file;
    if (size_t at = function.rfind('.'); at != std::string_view::npos && at > 0) {
      rule.functions.push_back(std::string(function.substr(0, at)) + ".*");
    }
  } else if (size_t at = function.rfind("::"); at != std::string_view::npos && at > 0) {
    rule.functions.push_back(std::string(function.substr(0, at)) + "::*");
  }
  return rule;
}

std::optional<SourceSnippet> readSnippet(const std::string& path, uint32_t line, uint32_t context) {
  if (line == 0) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;  // a finding in a file not here
  common::InputFile file(path, "source file");
  std::istream& in = file.stream(kMaxSourceBytes);
  SourceSnippet snippet;
  snippet.first_line = line > context ? line - context : 1;
  uint32_t last = line + context;
  std::string text;
  for (uint32_t n = 1; n <= last && std::getline(in, text); ++n) {
    if (n >= snippet.first_line) snippet.lines.push_back(text);
  }
  if (snippet.first_line + snippet.lines.size() <= line) return std::nullopt;
  return snippet;
}

}  // namespace memfloor::analysis

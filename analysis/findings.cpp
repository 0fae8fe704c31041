// Findings: validation of the checker's document, links and snippets.
#include "analysis/findings.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace memfloor::analysis {
namespace {

using nlohmann::json;

std::string stringField(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    throw Error(fmt::format("{}: '{}' is missing or not a string", where, key));
  }
  return it->get<std::string>();
}

uint32_t lineField(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
    throw Error(fmt::format("{}: '{}' is missing or not a line number", where, key));
  }
  return it->get<uint32_t>();
}

}  // namespace

FindingsFile parseFindings(std::string_view text, const std::string& name) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw Error(fmt::format("{}: not a JSON document", name));
  if (!doc.is_object())
    throw Error(fmt::format("{}: not a findings document (not an object)", name));
  std::string schema = doc.contains("schema") && doc["schema"].is_string() ? doc["schema"] : "";
  if (schema.rfind(kFindingsSchemaPrefix, 0) != 0) {
    throw Error(fmt::format("{}: not a findings document (schema '{}', expected {}{})", name,
                            schema, kFindingsSchemaPrefix, kFindingsSchemaMajor));
  }
  if (schema != fmt::format("{}{}", kFindingsSchemaPrefix, kFindingsSchemaMajor)) {
    throw Error(fmt::format("{}: findings schema '{}' is not supported (this memfloor reads {}{})",
                            name, schema, kFindingsSchemaPrefix, kFindingsSchemaMajor));
  }
  FindingsFile out;
  out.path = name;
  if (!doc.contains("findings") || !doc["findings"].is_array()) {
    throw Error(fmt::format("{}: 'findings' is missing or not an array", name));
  }
  size_t index = 0;
  for (const json& item : doc["findings"]) {
    std::string where = fmt::format("{}: finding {}", name, ++index);
    if (!item.is_object()) throw Error(where + ": not an object");
    Finding f;
    f.raw = item;
    f.rule = stringField(item, "rule", where);
    f.message = stringField(item, "message", where);
    f.function = stringField(item, "function", where);
    f.field = stringField(item, "field", where);
    f.fingerprint = stringField(item, "fingerprint", where);
    auto loc = item.find("location");
    if (loc == item.end() || !loc->is_object()) throw Error(where + ": 'location' is missing");
    f.file = stringField(*loc, "file", where + " location");
    f.line = lineField(*loc, "line", where + " location");
    if (loc->contains("column")) f.column = lineField(*loc, "column", where + " location");
    f.link = linkRuleFor(f.function);
    out.items.push_back(std::move(f));
  }
  if (auto errors = doc.find("errors"); errors != doc.end() && errors->is_array()) {
    for (const json& e : *errors) {
      if (e.is_string()) out.errors.push_back(e.get<std::string>());
    }
  }
  return out;
}

FindingsFile loadFindings(const std::string& path, const std::string& source_root) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the findings file", path));
  std::stringstream text;
  text << in.rdbuf();
  FindingsFile file = parseFindings(text.str(), path);
  for (Finding& f : file.items) {
    std::filesystem::path source(f.file);
    if (source.is_relative() && !source_root.empty()) source = source_root / source;
    f.snippet = readSnippet(source.string(), f.line, 3);
  }
  return file;
}

LinkRule linkRuleFor(std::string_view function) {
  LinkRule rule;
  if (function.empty()) return rule;
  rule.functions.emplace_back(function);
  if (size_t at = function.rfind("::"); at != std::string_view::npos && at > 0) {
    rule.functions.push_back(std::string(function.substr(0, at)) + "::*");
  }
  return rule;
}

std::optional<SourceSnippet> readSnippet(const std::string& path, uint32_t line, uint32_t context) {
  std::ifstream in(path);
  if (!in || line == 0) return std::nullopt;
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

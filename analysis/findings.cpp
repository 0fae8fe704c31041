// Findings: validation of the checker's document, links and snippets.
#include "analysis/findings.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/findings_schema.h"
#include "common/json_input.h"

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

// The findings of a document whose schema common::checkSchema accepted.
FindingsFile readFindings(const json& doc, const std::string& name) {
  FindingsFile out;
  out.path = name;
  auto list = doc.find("findings");
  if (list == doc.end() || !list->is_array()) {
    throw Error(fmt::format("{}: 'findings' is missing or not an array", name));
  }
  size_t index = 0;
  for (const json& item : *list) {
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
    f.link = linkRuleFor(f.function, f.file);
    out.items.push_back(std::move(f));
  }
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

FindingsFile loadFindings(const std::string& path, const std::string& source_root) {
  FindingsFile file = readFindings(
      common::loadJsonDocument(path, common::kFindingsDocument, "findings file"), path);
  for (Finding& f : file.items) {
    std::filesystem::path source(f.file);
    if (source.is_relative() && !source_root.empty()) source = source_root / source;
    f.snippet = readSnippet(source.string(), f.line, 3);
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

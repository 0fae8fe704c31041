// SARIF 2.1.0 output.
#include "checker/sarif.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/version.h"

namespace memfloor::checker {
namespace {

constexpr const char* kDocsBase = "https://github.com/memfloor/memfloor/blob/main/docs/checks/";

// RFC 3986 path characters kept, everything else percent-encoded.
std::string encodeUri(const std::string& path) {
  std::string out;
  for (const unsigned char c : path) {
    if (std::isalnum(c) ||
        std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

nlohmann::json physical(const SourceLoc& loc, const std::string& root) {
  const std::string rel = relativePath(loc.file, root);
  nlohmann::json artifact{{"uri", encodeUri(rel)}};
  if (rel != loc.file) artifact["uriBaseId"] = "%SRCROOT%";
  return {{"artifactLocation", artifact},
          {"region", {{"startLine", loc.line}, {"startColumn", loc.column}}}};
}

}  // namespace

nlohmann::json toSarif(const std::vector<Finding>& findings, const std::vector<RuleInfo>& rules,
                       const std::string& root) {
  nlohmann::json rule_list = nlohmann::json::array();
  for (const RuleInfo& r : rules) {
    rule_list.push_back({{"id", r.id},
                         {"name", r.name},
                         {"shortDescription", {{"text", r.summary}}},
                         {"helpUri", std::string(kDocsBase) + r.id + ".md"},
                         {"defaultConfiguration", {{"level", "warning"}}}});
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& f : findings) {
    nlohmann::json result{
        {"ruleId", f.rule},
        {"level", "warning"},
        {"message", {{"text", f.message}}},
        {"locations", {{{"physicalLocation", physical(f.loc, root)}}}},
        {"partialFingerprints", {{"memfloorFingerprint/v1", fingerprint(f, root)}}}};
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (rules[i].id == f.rule) result["ruleIndex"] = i;
    }
    nlohmann::json related = nlohmann::json::array();
    for (std::size_t i = 0; i < f.related.size(); ++i) {
      related.push_back({{"id", i + 1},
                         {"physicalLocation", physical(f.related[i].loc, root)},
                         {"message", {{"text", f.related[i].message}}}});
    }
    if (!related.empty()) result["relatedLocations"] = related;
    nlohmann::json fixes = nlohmann::json::array();
    for (const FixIt& x : f.fixits) {
      nlohmann::json region{{"startLine", x.loc.line},
                            {"startColumn", x.loc.column},
                            {"endLine", x.loc.line},
                            {"endColumn", x.loc.column + x.length}};
      const std::string rel = relativePath(x.loc.file, root);
      nlohmann::json artifact{{"uri", encodeUri(rel)}};
      if (rel != x.loc.file) artifact["uriBaseId"] = "%SRCROOT%";
      fixes.push_back(
          {{"description", {{"text", "release after the last use"}}},
           {"artifactChanges",
            {{{"artifactLocation", artifact},
              {"replacements",
               {{{"deletedRegion", region}, {"insertedContent", {{"text", x.replacement}}}}}}}}}});
    }
    if (!fixes.empty()) result["fixes"] = fixes;
    results.push_back(std::move(result));
  }
  nlohmann::json run{{"tool",
                      {{"driver",
                        {{"name", "memfloor-check"},
                         {"version", std::string(kVersion)},
                         {"informationUri", "https://github.com/memfloor/memfloor"},
                         {"rules", rule_list}}}}},
                     {"results", results}};
  if (!root.empty()) {
    std::string uri = "file://" + encodeUri(root);
    if (uri.back() != '/') uri += '/';
    run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", uri}}}};
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", {run}}};
}

}  // namespace memfloor::checker

// The findings document (memfloor.findings/1) and baselines read from it.
#include "checker/findings_json.h"

#include <nlohmann/json.hpp>

#include "common/json_fields.h"
#include "common/json_input.h"
#include "common/version.h"

namespace memfloor::checker {
namespace {

nlohmann::json location(const SourceLoc& loc, const std::string& root) {
  return {{"file", relativePath(loc.file, root)}, {"line", loc.line}, {"column", loc.column}};
}

}  // namespace

nlohmann::json findingsToJson(const std::vector<Finding>& findings,
                              const std::vector<std::string>& errors, const std::string& root) {
  nlohmann::json list = nlohmann::json::array();
  for (const Finding& f : findings) {
    nlohmann::json related = nlohmann::json::array();
    for (const RelatedLocation& r : f.related) {
      related.push_back({{"location", location(r.loc, root)}, {"message", r.message}});
    }
    nlohmann::json fixits = nlohmann::json::array();
    for (const FixIt& x : f.fixits) {
      nlohmann::json at = location(x.loc, root);
      at["offset"] = x.loc.offset;
      fixits.push_back({{"location", at}, {"length", x.length}, {"replacement", x.replacement}});
    }
    list.push_back({{"rule", f.rule},
                    {"message", f.message},
                    {"location", location(f.loc, root)},
                    {"related", related},
                    {"function", f.function},
                    {"field", f.field},
                    {"fixits", fixits},
                    {"fingerprint", fingerprint(f, root)}});
  }
  return {{"schema", kFindingsSchema},
          {"tool", {{"name", "memfloor-check"}, {"version", std::string(kVersion)}}},
          {"findings", list},
          {"errors", errors}};
}

std::set<std::string> readBaseline(const std::filesystem::path& file) {
  const std::string path = file.string();
  const nlohmann::json json = common::loadJsonDocument(path, common::kFindingsDocument, "baseline");
  const common::JsonFields f(path);
  std::set<std::string> fingerprints;
  f.each(json, "", "findings", [&](const nlohmann::json& item, const std::string& c) {
    fingerprints.insert(f.string(item, c, "fingerprint"));
  });
  return fingerprints;
}

}  // namespace memfloor::checker

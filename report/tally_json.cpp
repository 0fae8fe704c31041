// A Tally in report.json.
#include "report/tally_json.h"

namespace memfloor::report {

using common::JsonFields;

// Keys set one by one (report_json.cpp says why).
nlohmann::json tallyJson(const Tally& t) {
  nlohmann::json j;
  j["bytes"] = t.bytes;
  j["count"] = t.count;
  return j;
}

Tally readTally(const JsonFields& f, const nlohmann::json& object, std::string_view context,
                const char* key) {
  const std::string c = JsonFields::field(context, key);
  const nlohmann::json& t = f.object(object, context, key);
  return {f.bytes(t, c, "bytes"), f.u64(t, c, "count")};
}

}  // namespace memfloor::report

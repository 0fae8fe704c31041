// A Tally in report.json.
#include "report/tally_json.h"

namespace memfloor::report {

using common::JsonFields;

nlohmann::json tallyJson(const Tally& t) { return {{"bytes", t.bytes}, {"count", t.count}}; }

Tally readTally(const JsonFields& f, const nlohmann::json& object, std::string_view context,
                const char* key) {
  const std::string c = JsonFields::field(context, key);
  const nlohmann::json& t = f.object(object, context, key);
  return {f.bytes(t, c, "bytes"), f.u64(t, c, "count")};
}

}  // namespace memfloor::report

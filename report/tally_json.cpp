// A Tally in report.json.
#include "report/tally_json.h"

namespace memfloor::report {

using common::JsonFields;

namespace {

// Keys set one by one: an initializer list builds each pair as an array first, and a report holds
// thousands of tallies.
template <typename T>
nlohmann::json bytesAndCount(const T& t) {
  nlohmann::json j;
  j["bytes"] = t.bytes;
  j["count"] = t.count;
  return j;
}

}  // namespace

nlohmann::json tallyJson(const Tally& t) { return bytesAndCount(t); }
nlohmann::json tallyJson(const TallyStep& t) { return bytesAndCount(t); }

Tally readTally(const JsonFields& f, const nlohmann::json& object, std::string_view context,
                const char* key) {
  const std::string c = JsonFields::field(context, key);
  const nlohmann::json& t = f.object(object, context, key);
  return {f.bytes(t, c, "bytes"), f.u64(t, c, "count")};
}

}  // namespace memfloor::report

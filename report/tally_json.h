// A Tally in report.json ({"bytes": B, "count": N}): written and read back, for every part of the
// report that has one.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/json_fields.h"
#include "report/model.h"

namespace memfloor::report {

// Of a Tally, or of a TallyStep (a trend's signed change: the same two keys).
nlohmann::json tallyJson(const Tally& t);
nlohmann::json tallyJson(const TallyStep& t);

// The tally `key` of `object` (named `context`); bytes at most common::JsonFields::kMaxBytes.
Tally readTally(const common::JsonFields& f, const nlohmann::json& object, std::string_view context,
                const char* key);

}  // namespace memfloor::report

// The findings document's schema name: memfloor-check writes it (checker/findings_json.cpp);
// `memfloor analyze --findings` (analysis/findings.cpp) and `memfloor-check --baseline` read it.
// It is declared here because neither of those modules may include the other.
#pragma once

#include "common/json_input.h"

namespace memfloor::common {

inline constexpr const char* kFindingsSchema = "memfloor.findings/1";  // docs/findings-schema.md

// How readers of the findings document check it (common/json_input.h).
inline constexpr JsonSchema kFindingsDocument{kFindingsSchema, "findings document",
                                              "re-run memfloor check with this version"};

}  // namespace memfloor::common

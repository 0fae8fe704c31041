// The analysis produces the report contract's model (report/model.h): its types are used
// unqualified here, as analysis::Report and so on.
#pragma once

#include "report/model.h"

namespace memfloor::analysis {

using namespace memfloor::report;  // NOLINT(google-build-using-namespace): the model is ours

}  // namespace memfloor::analysis

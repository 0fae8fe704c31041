// memfloor gate: a baseline report and a current one in, a CI verdict (exit 0 / 1 / 2) out.
#pragma once

#include <cstdio>
#include <string>

#include "reports/gate.h"

namespace memfloor::cli {

struct GateRequest {
  std::string baseline_path;
  std::string current_path;
  reports::GateThresholds thresholds;
  std::string markdown_path;  // empty: none; else appended to (it may be $GITHUB_STEP_SUMMARY)
  std::string json_path;      // empty: none
  bool annotations = false;   // GitHub workflow commands on `out`
  bool update_baseline = false;
};

// Loads both reports (memfloor::Error naming the file when one is unusable), compares them, prints
// the table (and annotations) on `out`, writes the requested files. Returns kExitOk on pass,
// kExitFinding on a regression. With update_baseline: validates current, copies it to the
// baseline path, returns kExitOk.
int runGate(const GateRequest& request, std::FILE* out = stdout);

}  // namespace memfloor::cli

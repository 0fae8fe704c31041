// memfloor report: report.json (and a gate result) in, one self-contained HTML page out.
#pragma once

#include <string>

namespace memfloor::cli {

struct ReportRequest {
  std::string report_path;
  std::string gate_path;  // empty: no gate section
  std::string output_path;
};

// Reads the report (memfloor.report/3 or /2, through the typed reader: report/report_reader.h) and
// the gate result (memfloor.gate/1), writes the page. Throws memfloor::Error naming the file (and
// the field) on unusable input or when the page cannot be written. Returns kExitOk.
int writeHtmlReport(const ReportRequest& request);

}  // namespace memfloor::cli

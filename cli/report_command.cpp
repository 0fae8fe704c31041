// memfloor report: report.json (and a gate result) in, one self-contained HTML page out.
#include "cli/report_command.h"

#include <memory>
#include <optional>

#include "cli/command.h"
#include "cli/diagnostic.h"
#include "common/error.h"
#include "common/output_file.h"
#include "report/report_file.h"
#include "report/report_reader.h"
#include "report/views_json.h"
#include "reports/html_report.h"

namespace memfloor::cli {

int writeHtmlReport(const ReportRequest& request) {
  nlohmann::json doc = report::loadReportJson(request.report_path);
  // Read through the typed reader, so that a report with a field missing or malformed is an error
  // naming the file and the field, not a page that cannot draw it. The page embeds the document as
  // it was read from the file, with the report's views of each run (report/views_json.h) written
  // in by this build: the page draws them and derives nothing, whichever version wrote the file,
  // and still shows what a later memfloor.report/3 writer adds (readers ignore fields they do not
  // know, and the typed structures have no place for those).
  report::putViews(doc, report::readReport(doc, request.report_path));
  std::optional<nlohmann::json> gate;
  if (!request.gate_path.empty()) gate = reports::loadGateJson(request.gate_path);
  std::string page = reports::renderHtml(doc, gate);

  std::vector<std::string> inputs = {request.report_path};
  if (!request.gate_path.empty()) inputs.push_back(request.gate_path);
  common::writeOutputFile(request.output_path, "HTML report", page, inputs);
  printWritten(request.output_path);
  return kExitOk;
}

void addReportCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<ReportRequest>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write report.json (and a gate result) as one self-contained HTML page");
  cmd->add_option("report", request->report_path, "report.json from memfloor analyze")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--gate", request->gate_path,
                  "gate result from memfloor gate --json: show its verdict and what regressed")
      ->type_name("FILE");
  cmd->add_option("-o,--output", request->output_path, "the HTML file to write")
      ->type_name("FILE")
      ->required();
  cmd->callback([request, &exit_code] { exit_code = writeHtmlReport(*request); });
}

}  // namespace memfloor::cli

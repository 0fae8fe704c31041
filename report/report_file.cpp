// Reading report.json from a file: the common loader with the report's schema.
#include "report/report_file.h"

namespace memfloor::report {

nlohmann::json loadReportJson(const std::string& path) {
  return common::loadJsonDocument(path, kReportDocument, "report");
}

void checkReportSchema(const nlohmann::json& doc, std::string_view name) {
  common::checkSchema(doc, kReportDocument, name);
}

}  // namespace memfloor::report

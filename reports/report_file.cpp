// Reading a report.json from a file: open, size check, parse, schema check.
#include "reports/report_file.h"

#include <fmt/core.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace memfloor::reports {
namespace {

constexpr std::string_view kSchemaPrefix = "memfloor.report/";
// Reports are a few MB; a file past this is not one (and is not read into memory whole).
constexpr std::streamoff kMaxReportBytes = std::streamoff{1} << 32;

}  // namespace

int reportSchemaMajor(std::string_view schema) {
  if (!schema.starts_with(kSchemaPrefix)) return -1;
  std::string_view digits = schema.substr(kSchemaPrefix.size());
  int major = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), major);
  if (ec != std::errc{} || end != digits.data() + digits.size() || major < 0) return -1;
  return major;
}

nlohmann::json loadReportJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the report: {}", path, std::strerror(errno)));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) throw Error(fmt::format("{}: cannot read the report", path));
  if (size == 0) throw Error(fmt::format("{}: the report is empty (not a memfloor report)", path));
  if (size > kMaxReportBytes) {
    throw Error(fmt::format("{}: {} bytes is too large for a memfloor report", path, size));
  }
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), size)) throw Error(fmt::format("{}: cannot read the report", path));

  nlohmann::json report;
  try {
    report = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string_view what = e.what();
    if (auto at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
    throw Error(fmt::format("{}: not JSON: {}", path, what));
  }
  if (!report.is_object()) {
    throw Error(fmt::format("{}: not a memfloor report (a JSON {}, not an object)", path,
                            report.type_name()));
  }
  auto schema = report.find("schema");
  if (schema == report.end() || !schema->is_string()) {
    throw Error(fmt::format("{}: not a memfloor report (no \"schema\": \"memfloor.report/{}\")",
                            path, kReportSchemaMajor));
  }
  const std::string& name = schema->get_ref<const std::string&>();
  int major = reportSchemaMajor(name);
  if (major < 0) {
    throw Error(
        fmt::format("{}: not a memfloor report (schema \"{}\", expected "
                    "\"memfloor.report/{}\")",
                    path, name, kReportSchemaMajor));
  }
  if (major != kReportSchemaMajor) {
    throw Error(fmt::format(
        "{}: report schema \"{}\" is not supported: this memfloor reads "
        "memfloor.report/{} ({})",
        path, name, kReportSchemaMajor,
        major < kReportSchemaMajor ? "re-run memfloor analyze on the trace with this version"
                                   : "written by a newer memfloor"));
  }
  return report;
}

}  // namespace memfloor::reports

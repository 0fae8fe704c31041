// memfloor's own documents, named where analyze expects a trace.
#include "cli/trace_inputs.h"

#include <fmt/core.h>

#include <optional>

#include "common/findings_schema.h"
#include "common/json_input.h"
#include "report/report_json.h"
#include "reports/gate.h"
#include "trace/source.h"

namespace memfloor::cli {
namespace {

// The family of a schema constant: "memfloor.report" of "memfloor.report/3".
std::string_view familyOf(std::string_view schema) {
  return common::parseSchemaName(schema)->family;
}

// Whether the file at `path` begins as a JSON object does: '{' after any white space. Checked
// before the file is parsed, so that a large file of another kind is not read whole.
bool startsAsJsonObject(const std::string& path) {
  constexpr size_t kHead = 64;
  const trace::FileSource source(path);
  char head[kHead] = {};
  const size_t got = source.readAt(0, head, sizeof head);
  const std::string_view text(head, got);
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

// The "schema" of the JSON object in `path`; nullopt when it is no JSON object with a string there.
std::optional<std::string> schemaOf(const std::string& path) {
  try {
    if (!startsAsJsonObject(path)) return std::nullopt;
    const nlohmann::json doc = common::parseJson(common::readJsonFile(path, "document"), path);
    const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
    if (schema == doc.end() || !schema->is_string()) return std::nullopt;
    return schema->get<std::string>();
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::string memfloorDocumentMessage(const std::string& path) {
  const std::optional<std::string> schema = schemaOf(path);
  const std::optional<common::SchemaName> name =
      schema ? common::parseSchemaName(*schema) : std::nullopt;
  if (!name || !name->family.starts_with("memfloor.")) return "";
  if (name->family == familyOf(report::kReportSchema)) {
    return fmt::format(
        "{}: a memfloor report ({}), not a trace or a memory snapshot: draw it with `memfloor "
        "report {} -o report.html`, or compare it with `memfloor gate --baseline BASELINE {}`",
        path, *schema, path, path);
  }
  if (name->family == familyOf(common::kFindingsSchema)) {
    return fmt::format(
        "{}: memfloor-check findings ({}), not a trace or a memory snapshot: link them to the "
        "traces with `memfloor analyze TRACES --findings {}`",
        path, *schema, path);
  }
  if (name->family == familyOf(reports::kGateSchema)) {
    return fmt::format(
        "{}: a memfloor gate result ({}), not a trace or a memory snapshot: show it with "
        "`memfloor report REPORT --gate {} -o report.html`",
        path, *schema, path);
  }
  return fmt::format("{}: a memfloor document ({}), not a trace or a memory snapshot", path,
                     *schema);
}

void rethrowNamingDocument(const Error& e, const std::vector<std::string>& paths) {
  const std::string_view message = e.what();
  for (const std::string& path : paths) {
    if (!message.starts_with(path + ":")) continue;
    const std::string document = memfloorDocumentMessage(path);
    if (!document.empty()) throw Error(document);
  }
  throw;
}

}  // namespace memfloor::cli

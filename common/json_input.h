// The one loader of the offline side's JSON inputs: the file, its size, the parse and the schema.
//
// Every JSON document memfloor reads goes through it: report.json (report/report_file.h, read by
// `memfloor gate` and `memfloor report`), the gate result (reports/html_report.h, `memfloor report
// --gate`), the findings document (analysis/findings.h for `memfloor analyze --findings`, and
// checker/findings_json.h for `memfloor-check --baseline`), the checker's facts
// (checker/facts.h, `--load-facts`) and its configuration file (checker/config.h, no schema).
// Errors are memfloor::Error, "<path>: what is wrong"; no other exception leaves it.
// It builds with and without RTTI (the checker is built with -fno-rtti).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace memfloor::common {

// The largest JSON input read: 4 GiB. Reports, findings and facts are a few MB; a file past this
// is not one of them, and it is refused before any of it is read into memory.
inline constexpr uint64_t kMaxJsonInputBytes = uint64_t{1} << 32;
// The deepest nesting of arrays and objects read. memfloor's documents nest a dozen levels; a
// document nested deeper is refused while it is parsed (copying or printing a value nested
// 100,000 levels would recurse that deep).
inline constexpr int kMaxJsonDepth = 128;

// What a document must be, for the checks and their messages. The name is declared once per
// format, in the header of the module that owns the format (report/report_json.h kReportSchema,
// reports/gate.h kGateSchema, common/findings_schema.h kFindingsSchema, checker/facts.h
// kFactsSchema); a JsonSchema only refers to it.
struct JsonSchema {
  std::string_view name;  // the schema this build reads, "<family>/<major>": "memfloor.report/2"
  std::string_view document;  // how messages call such a document: "memfloor report"
  std::string_view older;     // what to do with one of an older major: "re-run memfloor analyze..."
  int oldest_major = 0;       // the oldest major this build also reads; 0: only the one of `name`
};

// A schema string taken apart: "memfloor.report/2" -> {"memfloor.report", 2}.
struct SchemaName {
  std::string_view family;
  int major = 0;
};

// nullopt unless `name` is "<family>/<digits>" with a non-empty family.
std::optional<SchemaName> parseSchemaName(std::string_view name);

// The whole file. `what` names it in messages ("report": "cannot open the report: ..."). Refuses a
// missing or unreadable file, one that is not a regular file (symbolic links are followed), an
// empty one and one larger than kMaxJsonInputBytes.
std::string readJsonFile(const std::string& path, std::string_view what);

// Parses `text` (with `comments`, also // and /* */ comments); `name` names it in messages:
// "<name>: not JSON: parse error at line 1, column 2: ... (not a JSON document)". Nesting deeper
// than kMaxJsonDepth is refused. A lone surrogate's escape (\udc80: what Python's json.dump
// writes for a name decoded with surrogateescape, and json.loads reads) is read as U+FFFD.
nlohmann::json parseJson(std::string_view text, std::string_view name, bool comments = false);

// `text` with each \uXXXX escape of a lone surrogate (one not in a high-low pair) written as
// \ufffd, or nullopt when it holds none: what parseJson reads.
std::optional<std::string> replaceLoneSurrogates(std::string_view text);

// Checks that `doc` is an object whose "schema" is a string of the family of `schema.name` and of
// its major; `name` names the document in messages (a path, or "the report").
void checkSchema(const nlohmann::json& doc, const JsonSchema& schema, std::string_view name);

// parseJson, then checkSchema.
nlohmann::json parseJsonDocument(std::string_view text, const JsonSchema& schema,
                                 std::string_view name);

// readJsonFile, parseJson, checkSchema: what every reader of a schema'd file calls. Fields are
// not checked here: each reader checks the ones it reads.
nlohmann::json loadJsonDocument(const std::string& path, const JsonSchema& schema,
                                std::string_view what);

}  // namespace memfloor::common

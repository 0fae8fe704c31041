// findings in report.json: the checker's findings with what each explains and which holders it
// names, written beside their reader.
#include "report/findings_json.h"

#include <fmt/core.h>

#include <array>
#include <utility>

#include "report/codec.h"
#include "report/holder_links.h"

namespace memfloor::report {

using common::JsonFields;
using nlohmann::json;

// ---- Writing ----

namespace {

json snippetJson(const std::optional<SourceSnippet>& s) {
  if (!s) return nullptr;
  return {{"first_line", s->first_line}, {"lines", s->lines}};
}

// The holders whose path names the finding's field (report/holder_links.h, holderLinkName):
// `holds` per census window, and `max_held_bytes`.
void heldLinksJson(const MergedReport& m, const LinkedFinding& finding, json& item) {
  const std::vector<HolderLink> links = linkHolders(m.runs, holderLinkName(finding));
  json holds = json::array();
  for (const HolderLink& l : links) {
    holds.push_back({{"run", l.run},
                     {"iteration", l.iteration},
                     {"device", l.device},
                     {"bytes", l.bytes},
                     {"count", l.count},
                     {"paths", l.paths}});
  }
  item["holds"] = std::move(holds);
  item["max_held_bytes"] = maxHeldBytes(links);
}

}  // namespace

json findingsJson(const MergedReport& m) {
  json items = json::array();
  json errors = json::array();
  if (!m.findings) return {{"source", nullptr}, {"items", items}, {"errors", errors}};
  const std::vector<LinkedFinding>& findings = m.findings->items;
  for (uint32_t f = 0; f < findings.size(); ++f) {
    json item = findings[f].raw;
    item["id"] = findings[f].fingerprint;
    item["link_functions"] = findings[f].link.functions;
    item["snippet"] = snippetJson(findings[f].snippet);
    json explains = json::array();
    for (uint32_t run = 0; run < m.runs.size(); ++run) {
      for (const Explained& e : m.runs[run].explained) {
        if (e.finding != f) continue;
        json x = {{"run", run}, {"iteration", e.iteration}, {"last_iteration", e.last_iteration}};
        putKey(x, e.key);
        x["bytes"] = e.retained.bytes;
        x["count"] = e.retained.count;
        explains.push_back(std::move(x));
      }
    }
    item["explains"] = std::move(explains);
    item["max_explained_bytes"] = maxExplainedBytes(m, f);
    heldLinksJson(m, findings[f], item);
    items.push_back(std::move(item));
  }
  for (const std::string& e : m.findings->errors) errors.push_back(e);
  return {{"source", m.findings->path}, {"items", items}, {"errors", errors}};
}

// ---- Reading ----

namespace {

// The writer's additions to a finding of the checker's document (report_json.cpp findingsJson).
constexpr std::array<const char*, 5> kAddedToFinding = {"id", "link_functions", "snippet",
                                                        "explains", "max_explained_bytes"};

}  // namespace

LinkedFinding readFinding(const JsonFields& f, const json& j, const std::string& c) {
  LinkedFinding out;
  out.fingerprint = f.string(j, c, "id");
  out.rule = f.string(j, c, "rule");
  out.message = f.string(j, c, "message");
  if (const json* loc = f.optional(j, c, "location")) {
    const std::string lc = JsonFields::field(c, "location");
    f.object(*loc, lc);
    out.file = f.string(*loc, lc, "file");
    out.line = f.u32(*loc, lc, "line");
    if (f.optional(*loc, lc, "column") != nullptr) out.column = f.u32(*loc, lc, "column");
  }
  if (f.optional(j, c, "function") != nullptr) out.function = f.string(j, c, "function");
  if (f.optional(j, c, "field") != nullptr) out.field = f.string(j, c, "field");
  if (f.optional(j, c, "link_functions") != nullptr) {
    f.each(j, c, "link_functions", [&](const json& name, const std::string& nc) {
      out.link.functions.push_back(f.string(name, nc));
    });
  }
  if (const json* snippet = f.optional(j, c, "snippet")) {
    const std::string sc = JsonFields::field(c, "snippet");
    f.object(*snippet, sc);
    SourceSnippet s;
    s.first_line = f.u32(*snippet, sc, "first_line");
    f.each(*snippet, sc, "lines",
           [&](const json& line, const std::string& lc) { s.lines.push_back(f.string(line, lc)); });
    out.snippet = std::move(s);
  }
  out.raw = j;
  for (const char* added : kAddedToFinding) out.raw.erase(added);
  return out;
}

void readFindings(const JsonFields& f, const json& doc, std::vector<LinkedFinding> items,
                  MergedReport& m) {
  const size_t runs = m.runs.size();
  const json& findings = f.object(doc, "", "findings");
  if (const json* source = f.optional(findings, "findings", "source")) {
    FindingsFile file;
    file.path = f.string(*source, "findings.source");
    f.each(findings, "findings", "errors",
           [&](const json& e, const std::string& c) { file.errors.push_back(f.string(e, c)); });
    file.items = std::move(items);
    m.findings = std::move(file);
  } else if (!items.empty()) {
    f.fail("findings.source", "null, but findings.items lists findings");
  }
  // What each finding explains is kept per run (Report::explained), by finding.
  const json& list = f.array(findings, "findings", "items");
  for (uint32_t finding = 0; finding < list.size(); ++finding) {
    const json& item = list[finding];
    const std::string ic = JsonFields::index("findings.items", finding);
    if (f.optional(item, ic, "explains") == nullptr) continue;
    f.each(item, ic, "explains", [&](const json& x, const std::string& xc) {
      const uint32_t run = f.u32(x, xc, "run");
      if (run >= runs)
        f.fail(JsonFields::field(xc, "run"), fmt::format("run {} is not in runs", run));
      Explained e;
      e.finding = finding;
      e.iteration = f.u32(x, xc, "iteration");
      // Added in memfloor.report/3: before, an entry is one iteration's.
      e.last_iteration = e.iteration;
      if (f.optional(x, xc, "last_iteration") != nullptr) {
        e.last_iteration = f.u32(x, xc, "last_iteration");
        if (e.last_iteration < e.iteration)
          f.fail(JsonFields::field(xc, "last_iteration"), "expected last_iteration >= iteration");
      }
      e.key = readKey(f, x, xc);
      e.retained = {f.bytes(x, xc, "bytes"), f.u64(x, xc, "count")};
      m.runs[run].explained.push_back(e);
    });
  }
}

}  // namespace memfloor::report

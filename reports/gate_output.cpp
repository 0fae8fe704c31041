// The gate's result as a table, Markdown, GitHub workflow commands and JSON (memfloor.gate/1).
#include "reports/gate_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "common/printable.h"
#include "report/labels.h"
#include "reports/report_table.h"

namespace memfloor::reports {
namespace {

constexpr size_t kMaxSiteWidth = 48;  // columns of the site column before it is cut

using Out = std::back_insert_iterator<std::string>;

std::string_view metricLabel(Metric metric) {
  switch (metric) {
    case Metric::kIdleFloor:
      return "idle floor";
    case Metric::kPeak:
      return "peak";
    case Metric::kFloorGrowth:
      return "floor growth";
    case Metric::kSiteRetained:
      return "site retained";
    case Metric::kSitePeak:
      return "site at peak";
    case Metric::kHolder:
      return "held by";
  }
  return "?";
}

std::string memoryLabel(const GateCheck& c) {
  return fmt::format("{}:{}", c.device, report::kindLabel(c.kind, c.device_has_blocks));
}

uint64_t magnitude(int64_t v) {
  return v < 0 ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
}

// Bytes, or bytes per iteration for the growth metric.
std::string amount(Metric metric, int64_t v) {
  std::string text = (v < 0 ? "-" : "") + report::formatBytes(magnitude(v));
  return metric == Metric::kFloorGrowth ? text + "/iter" : text;
}

std::string signedAmount(Metric metric, int64_t v) {
  return (v > 0 ? "+" : "") + amount(metric, v);
}

std::string percent(const GateCheck& c) {
  return c.delta_percent ? fmt::format("{:+.1f}%", *c.delta_percent) : "new";
}

// The rows worth showing: regressions first, then other changes (at most kGateMaxQuietRows).
struct Rows {
  std::vector<const GateCheck*> shown;
  size_t changed = 0;
  size_t hidden = 0;
};

Rows changedRows(const GateResult& result) {
  Rows rows;
  std::vector<const GateCheck*> quiet;
  for (const GateCheck& c : result.checks) {
    if (c.delta == 0) continue;
    ++rows.changed;
    (c.regression ? rows.shown : quiet).push_back(&c);
  }
  size_t keep = std::min(quiet.size(), kGateMaxQuietRows);
  rows.shown.insert(rows.shown.end(), quiet.begin(), quiet.begin() + static_cast<long>(keep));
  rows.hidden = quiet.size() - keep;
  return rows;
}

std::string verdictLine(const GateResult& r) {
  std::vector<std::string> why;
  if (size_t n = r.regressions(); n > 0) {
    why.push_back(fmt::format("{} of {} checks over threshold", n, r.checks.size()));
  }
  if (!r.missing_runs.empty()) {
    why.push_back(fmt::format("{} run{} missing from current", r.missing_runs.size(),
                              r.missing_runs.size() == 1 ? "" : "s"));
  }
  if (!r.new_findings.empty()) {
    why.push_back(fmt::format("{} new finding{}{}", r.new_findings.size(),
                              r.new_findings.size() == 1 ? "" : "s",
                              r.thresholds.fail_on_new_findings ? "" : " (allowed)"));
  }
  if (!r.regression) {
    why.insert(why.begin(), fmt::format("{} checks within thresholds", r.checks.size()));
  }
  return fmt::format("{}: {}", r.regression ? "REGRESSION" : "pass", fmt::join(why, ", "));
}

std::string findingLocation(const FindingRef& f) {
  if (f.file.empty()) return "(no location)";
  return f.line > 0 ? fmt::format("{}:{}", f.file, f.line) : f.file;
}

std::string markdownEscape(std::string_view text) {
  std::string out;
  // Control bytes as \xNN first (line ends are made spaces below): none reaches a terminal.
  for (char ch : common::printableExcept(text, "\r\n")) {
    switch (ch) {
      case '|':
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
        out += '\\';
        out += ch;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string percentOf(const Threshold& t) { return fmt::format("{:g}%", t.percent); }

std::string checkSentence(const GateCheck& c) {
  std::string subject = fmt::format("{} of {} {}", metricLabel(c.metric), c.run, memoryLabel(c));
  if (!c.site.empty()) subject += fmt::format(" at {}", c.site);
  return fmt::format("{} rose by {} ({} -> {}), more than the {} allowed", subject,
                     signedAmount(c.metric, c.delta), amount(c.metric, c.baseline),
                     amount(c.metric, c.current), amount(c.metric, c.allowed));
}

nlohmann::json thresholdJson(const Threshold& t) {
  return {{"bytes", t.bytes}, {"percent", t.percent}};
}

}  // namespace

std::string formatGateTable(const GateResult& r) {
  std::string text;
  Out out(text);
  fmt::format_to(out, "memfloor gate: {} against the baseline {}\n",
                 common::printable(r.current_path), common::printable(r.baseline_path));
  Rows rows = changedRows(r);
  if (rows.changed == 0) {
    fmt::format_to(out, "nothing moved ({} checks)\n", r.checks.size());
  } else {
    size_t run_w = 3, mem_w = 6, site_w = 4;
    for (const GateCheck* c : rows.shown) {
      run_w = std::max(run_w, common::printable(c->run).size());
      mem_w = std::max(mem_w, memoryLabel(*c).size());
      site_w = std::max(site_w, common::printable(c->site).size());
    }
    site_w = std::min<size_t>(site_w, kMaxSiteWidth);
    fmt::format_to(out, "\n{:<13} {:<{}} {:<{}} {:<{}} {:>14} {:>14} {:>15} {:>7} {:>14}  {}\n",
                   "metric", "run", run_w, "memory", mem_w, "site", site_w, "baseline", "current",
                   "delta", "", "allowed", "result");
    for (const GateCheck* c : rows.shown) {
      const std::string run = common::printable(c->run);
      std::string site = common::printable(c->site);
      if (site.size() > site_w) site = site.substr(0, site_w - 3) + "...";
      fmt::format_to(out, "{:<13} {:<{}} {:<{}} {:<{}} {:>14} {:>14} {:>15} {:>7} {:>14}  {}\n",
                     metricLabel(c->metric), run, run_w, memoryLabel(*c), mem_w, site, site_w,
                     amount(c->metric, c->baseline), amount(c->metric, c->current),
                     signedAmount(c->metric, c->delta), percent(*c), amount(c->metric, c->allowed),
                     c->regression ? "REGRESSION" : "ok");
    }
    if (rows.hidden > 0) {
      fmt::format_to(out, "... {} more changed rows within thresholds (--json has every check)\n",
                     rows.hidden);
    }
    fmt::format_to(out, "\n");
  }
  for (const FindingRef& f : r.new_findings) {
    fmt::format_to(out, "new finding {}: {} {}: {}\n", common::printable(f.id),
                   common::printable(f.rule), common::printable(findingLocation(f)),
                   common::printable(f.message));
  }
  for (const GateResult::RunPair& pair : r.paired_runs) {
    fmt::format_to(out, "run {} compared with {} (no rank: paired in order)\n",
                   common::printable(pair.baseline), common::printable(pair.current));
  }
  for (const std::string& label : r.missing_runs) {
    fmt::format_to(out, "run missing from current: {}\n", common::printable(label));
  }
  for (const std::string& label : r.added_runs) {
    fmt::format_to(out, "run not in the baseline (not compared): {}\n", common::printable(label));
  }
  fmt::format_to(out, "verdict: {}\n", verdictLine(r));
  return text;
}

std::string formatGateMarkdown(const GateResult& r) {
  std::string text;
  Out out(text);
  fmt::format_to(out, "### memfloor gate: {}\n\n", r.regression ? "**regression**" : "pass");
  fmt::format_to(out, "`{}` against the baseline `{}`: {}.\n\n", markdownEscape(r.current_path),
                 markdownEscape(r.baseline_path), markdownEscape(verdictLine(r)));
  Rows rows = changedRows(r);
  if (rows.changed == 0) {
    fmt::format_to(out, "Nothing moved ({} checks).\n\n", r.checks.size());
  } else {
    fmt::format_to(out,
                   "| result | metric | run | memory | site | baseline | current | delta | "
                   "allowed |\n| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n");
    for (const GateCheck* c : rows.shown) {
      fmt::format_to(out, "| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} |\n",
                     c->regression ? "**regression**" : "ok", metricLabel(c->metric),
                     markdownEscape(c->run), memoryLabel(*c), markdownEscape(c->site),
                     amount(c->metric, c->baseline), amount(c->metric, c->current),
                     signedAmount(c->metric, c->delta), percent(*c), amount(c->metric, c->allowed));
    }
    if (rows.hidden > 0) {
      fmt::format_to(out, "\n{} more rows moved within their thresholds.\n", rows.hidden);
    }
    fmt::format_to(out, "\n");
  }
  if (!r.new_findings.empty()) {
    fmt::format_to(out, "New findings{}:\n\n",
                   r.thresholds.fail_on_new_findings ? "" : " (allowed by --allow-new-findings)");
    for (const FindingRef& f : r.new_findings) {
      fmt::format_to(out, "- {} at {}: {}\n", markdownEscape(f.rule),
                     markdownEscape(findingLocation(f)), markdownEscape(f.message));
    }
    fmt::format_to(out, "\n");
  }
  for (const GateResult::RunPair& pair : r.paired_runs) {
    fmt::format_to(out, "- run **{}** compared with **{}** (no rank: paired in order)\n",
                   markdownEscape(pair.baseline), markdownEscape(pair.current));
  }
  for (const std::string& label : r.missing_runs) {
    fmt::format_to(out, "- run **{}** is in the baseline but missing from current\n",
                   markdownEscape(label));
  }
  for (const std::string& label : r.added_runs) {
    fmt::format_to(out, "- run **{}** is not in the baseline (not compared)\n",
                   markdownEscape(label));
  }
  if (!r.missing_runs.empty() || !r.added_runs.empty() || !r.paired_runs.empty()) {
    fmt::format_to(out, "\n");
  }
  const GateThresholds& t = r.thresholds;
  fmt::format_to(out,
                 "<details><summary>thresholds: a rise regresses when it exceeds both</summary>"
                 "\n\n| metric | bytes | percent of baseline |\n| --- | ---: | ---: |\n"
                 "| idle floor | {} | {} |\n| peak | {} | {} |\n| floor growth | {}/iter | {} |\n"
                 "| site retained | {} | {} |\n| site at peak | {} | {} |\n| held by | {} | {} |\n"
                 "\nNew findings {}.\n\n</details>\n\n",
                 report::formatBytes(t.idle_floor.bytes), percentOf(t.idle_floor),
                 report::formatBytes(t.peak.bytes), percentOf(t.peak),
                 report::formatBytes(t.growth.bytes), percentOf(t.growth),
                 report::formatBytes(t.site.bytes), percentOf(t.site),
                 report::formatBytes(t.site_peak.bytes), percentOf(t.site_peak),
                 report::formatBytes(t.holder.bytes), percentOf(t.holder),
                 t.fail_on_new_findings ? "fail the gate" : "are allowed");
  return text;
}

std::string escapeAnnotationData(std::string_view text) {
  std::string out;
  for (char ch : common::printableExcept(text, "\r\n")) {
    switch (ch) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string escapeAnnotationProperty(std::string_view text) {
  std::string out;
  for (char ch : escapeAnnotationData(text)) {
    switch (ch) {
      case ':':
        out += "%3A";
        break;
      case ',':
        out += "%2C";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string formatGateAnnotations(const GateResult& r) {
  std::string text;
  Out out(text);
  for (const GateCheck& c : r.checks) {
    if (!c.regression) continue;
    fmt::format_to(
        out, "::error title={}::{}\n",
        escapeAnnotationProperty(fmt::format("memfloor gate: {}", metricLabel(c.metric))),
        escapeAnnotationData(checkSentence(c)));
  }
  for (const std::string& label : r.missing_runs) {
    fmt::format_to(out, "::error title={}::{}\n",
                   escapeAnnotationProperty("memfloor gate: missing run"),
                   escapeAnnotationData(fmt::format("run '{}' is in the baseline {} but not in {}",
                                                    label, r.baseline_path, r.current_path)));
  }
  for (const std::string& label : r.added_runs) {
    fmt::format_to(
        out, "::warning title={}::{}\n", escapeAnnotationProperty("memfloor gate: new run"),
        escapeAnnotationData(fmt::format("run '{}' is not in the baseline {}; it was not compared",
                                         label, r.baseline_path)));
  }
  const char* level = r.thresholds.fail_on_new_findings ? "error" : "warning";
  for (const FindingRef& f : r.new_findings) {
    std::string where;
    if (!f.file.empty()) {
      where = fmt::format("file={},", escapeAnnotationProperty(f.file));
      if (f.line > 0) where += fmt::format("line={},", f.line);
      if (f.column > 0) where += fmt::format("col={},", f.column);
    }
    fmt::format_to(out, "::{} {}title={}::{}\n", level, where,
                   escapeAnnotationProperty(fmt::format("memfloor {} (new finding)", f.rule)),
                   escapeAnnotationData(f.message));
  }
  return text;
}

nlohmann::json toJson(const GateResult& r) {
  using nlohmann::json;
  json checks = json::array();
  for (const GateCheck& c : r.checks) {
    checks.push_back({{"metric", toString(c.metric)},
                      {"run", c.run},
                      {"device", c.device},
                      {"kind", c.kind},
                      {"site", c.site},
                      {"baseline", c.baseline},
                      {"current", c.current},
                      {"delta", c.delta},
                      {"delta_percent", c.delta_percent ? json(*c.delta_percent) : json(nullptr)},
                      {"allowed", c.allowed},
                      {"regression", c.regression}});
  }
  json findings = json::array();
  for (const FindingRef& f : r.new_findings) {
    findings.push_back({{"id", f.id},
                        {"rule", f.rule},
                        {"message", f.message},
                        {"location", {{"file", f.file}, {"line", f.line}, {"column", f.column}}}});
  }
  json paired = json::array();
  for (const GateResult::RunPair& pair : r.paired_runs) {
    paired.push_back({{"baseline", pair.baseline}, {"current", pair.current}});
  }
  const GateThresholds& t = r.thresholds;
  return {{"schema", kGateSchema},
          {"verdict", r.regression ? "regression" : "pass"},
          {"baseline", r.baseline_path},
          {"current", r.current_path},
          {"thresholds",
           {{"idle_floor", thresholdJson(t.idle_floor)},
            {"peak", thresholdJson(t.peak)},
            {"floor_growth", thresholdJson(t.growth)},
            {"site_retained", thresholdJson(t.site)},
            {"site_peak", thresholdJson(t.site_peak)},
            {"holder", thresholdJson(t.holder)},
            {"fail_on_new_findings", t.fail_on_new_findings}}},
          {"checks", checks},
          {"new_findings", findings},
          {"missing_runs", r.missing_runs},
          {"added_runs", r.added_runs},
          {"paired_runs", paired},
          {"regressions", r.regressions()}};
}

}  // namespace memfloor::reports

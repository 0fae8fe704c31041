// The self-contained HTML report: fills the embedded template (reports/html/) with the data.
#include "reports/html_report.h"

#include <fmt/core.h>

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "common/json_input.h"
#include "report/report_file.h"   // checkReportSchema
#include "reports/gate.h"         // kGateSchema
#include "reports/html_assets.h"  // generated from reports/html/ by cmake/MemfloorEmbed.cmake

namespace memfloor::reports {
namespace {

using nlohmann::json;

static_assert(report::kReportSchema == "memfloor.report/3",
              "the page's script (reports/html/*.js) reads memfloor.report/3 and /2");

// How the gate result is checked; this file is its only reader.
constexpr common::JsonSchema kGateDocument{kGateSchema, "memfloor gate result",
                                           "re-run memfloor gate with this version"};

// The page's script: the .js files of reports/html/, joined in this order inside the one function
// of report.html's <script>. They declare the helpers first, then the sections in the page's order;
// the entry, report.js, comes last, so that everything it calls is declared when it draws the page.
constexpr std::array<std::string_view, 12> kScriptFiles = {
    html::kDomJs,  html::kFormatJs,   html::kChartJs,  html::kSummaryJs,
    html::kGateJs, html::kRunJs,      html::kPeaksJs,  html::kSitesJs,
    html::kHeldJs, html::kFindingsJs, html::kAnswerJs, html::kReportJs};

// kScriptFiles joined: the text of the page's one script.
std::string script() {
  std::string out;
  size_t size = 0;
  for (std::string_view file : kScriptFiles) size += file.size();
  out.reserve(size);
  for (std::string_view file : kScriptFiles) out.append(file);
  return out;
}

// Replaces each marker of `slots`, which appear in the template in this order, once. The filled
// text is never searched again, so data cannot inject a marker.
std::string fill(std::string_view tmpl,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> slots) {
  std::string out;
  size_t size = tmpl.size();
  for (const auto& slot : slots) size += slot.second.size();
  out.reserve(size);
  size_t pos = 0;
  for (const auto& [marker, text] : slots) {
    size_t at = tmpl.find(marker, pos);
    if (at == std::string_view::npos) {
      throw std::logic_error(
          fmt::format("reports/html/report.html: no {} after offset {}", marker, pos));
    }
    out.append(tmpl.substr(pos, at - pos));
    out.append(text);
    pos = at + marker.size();
  }
  out.append(tmpl.substr(pos));
  return out;
}

}  // namespace

json loadGateJson(const std::string& path) {
  return common::loadJsonDocument(path, kGateDocument, "gate result");
}

std::string scriptSafeJson(const json& doc) {
  std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    // These bytes occur only inside JSON strings, where \uXXXX means the same character.
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";  // line/paragraph separators
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string renderHtml(const json& report, const std::optional<json>& gate) {
  report::checkReportSchema(report, "the report");
  if (gate) common::checkSchema(*gate, kGateDocument, "the gate result");
  const std::string report_text = scriptSafeJson(report);
  const std::string gate_text = gate ? scriptSafeJson(*gate) : std::string("null");
  const std::string script_text = script();
  return fill(html::kReportHtml, {{"@memfloor:css@", html::kReportCss},
                                  {"@memfloor:report@", report_text},
                                  {"@memfloor:gate@", gate_text},
                                  {"@memfloor:js@", script_text}});
}

}  // namespace memfloor::reports

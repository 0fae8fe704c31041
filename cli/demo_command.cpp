// memfloor demo: the whole tool on the reference model, with shipped data where there is no GPU.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>

#include "analysis/analyze_traces.h"
#include "analysis/findings.h"
#include "cli/check_command.h"
#include "cli/child_process.h"
#include "cli/command.h"
#include "cli/gate_command.h"
#include "cli/report_command.h"
#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "common/parts.h"
#include "common/printable.h"
#include "report/holder_links.h"
#include "report/labels.h"
#include "report/report_json.h"
#include "reports/report_table.h"

extern char** environ;

namespace memfloor::cli {
namespace {

namespace fs = std::filesystem;

struct DemoRequest {
  std::string output_dir = "memfloor-demo";
  // The sources in a build tree (build/share/memfloor/demo links to them), the installed copy of
  // what the demo reads in an install tree.
  std::string source_dir = common::findPart(common::Part::kDemoData, common::selfDir()).string();
  std::string build_dir;  // compile_commands.json for the checker; default: memfloor's build tree
  bool record = true;     // record fresh traces when a GPU and the model are there
};

// The two configurations the demo compares: the fix, and the first seed's bug.
struct Variant {
  std::string name;
  std::vector<std::string> model_flags;
};
const std::vector<Variant> kVariants = {{"fixed", {}},
                                        {"hc-bug", {"--bug", "hc-mlp-norm-manager"}}};
const std::vector<std::string> kModelConfig = {
    "--layers",  "2",   "--hidden",           "128", "--heads",         "4", "--vocab",      "256",
    "--seq",     "256", "--micro-batch-size", "1",   "--micro-batches", "2", "--iterations", "4",
    "--idle-ms", "20"};

// The folder of this memfloor binary: the model and the checker are found from it.
fs::path selfDir() {
  fs::path dir = common::selfDir();
  return dir.empty() ? fs::path(".") : dir;
}

std::vector<std::string> environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

bool gpuPresent() {
  std::error_code ec;
  return fs::exists("/dev/nvidiactl", ec) && fs::exists("/dev/nvidia0", ec);
}

// Records one variant under `memfloor run`; the trace directory, or "" when it did not work.
std::string record(const Variant& v, const fs::path& model, const fs::path& out) {
  fs::path dir = out / ("traces-" + v.name);
  fs::remove_all(dir);
  std::vector<std::string> argv = {(selfDir() / "memfloor").string(),
                                   "run",
                                   "--quiet",
                                   "-o",
                                   dir.string(),
                                   "--",
                                   model.string()};
  argv.insert(argv.end(), kModelConfig.begin(), kModelConfig.end());
  argv.insert(argv.end(), v.model_flags.begin(), v.model_flags.end());
  common::OutputFile log((out / (v.name + ".model.txt")).string(), "model's log");
  ChildResult r = runChild(argv, environment(), log.fd());
  log.commit();
  if (!r.started || r.exit_code != 0) {
    fmt::print("  recording {} failed ({}); using the shipped trace\n", v.name,
               r.started ? fmt::format("exit {}", r.exit_code) : r.error);
    return {};
  }
  return dir.string();
}

// Runs the checker on reference_model/ into findings.json; "" when it cannot.
std::string check(const DemoRequest& request, const fs::path& out) {
  std::string checker = findChecker();
  fs::path build = request.build_dir.empty() ? selfDir() / ".." : fs::path(request.build_dir);
  std::error_code ec;
  if (checker.empty() || !fs::exists(build / "compile_commands.json", ec)) {
    fmt::print("  checker: {}; using the shipped findings\n",
               checker.empty() ? "memfloor-check is not built"
                               : "no compile_commands.json in " + build.string());
    return {};
  }
  std::vector<std::string> argv = {
      checker, "-p", build.string(), "--format", "json", "--root", request.source_dir, "-j", "2"};
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(request.source_dir) / "reference_model")) {
    if (e.path().extension() == ".cpp") argv.push_back(e.path().string());
  }
  std::sort(argv.begin() + 9, argv.end());
  const size_t cpp_files = argv.size() - 9;
  // The seeds in Python, through the checker's Python front end in the same run.
  for (const char* seed : {"seed_offload_manager.py", "seed_combined_1f1b.py"}) {
    argv.push_back(
        (fs::path(request.source_dir) / "testdata" / "checker" / "python" / seed).string());
  }
  common::OutputFile findings((out / "findings.json").string(), "findings");
  fmt::print("  checker: {} on {} files of reference_model/ and {} Python seeds ...\n", checker,
             cpp_files, argv.size() - 9 - cpp_files);
  std::fflush(stdout);
  ChildResult r = runChild(argv, environment(), findings.fd());
  // The checker exits 1 when it found something, which it does here.
  if (!r.started || r.exit_code > 1) {
    fmt::print("  checker failed ({}); using the shipped findings\n",
               r.started ? fmt::format("exit {}", r.exit_code) : r.error);
    return {};
  }
  findings.commit();
  return findings.path();
}

// The worst run's steady idle floor: of device memory, or where blocks were recorded the allocated
// one (report::headlineFloor shows the reserved one beside it).
uint64_t steadyFloor(const report::MergedReport& m) { return m.worst ? m.worst->idle_floor : 0; }

std::string floorText(const report::MergedReport& m) {
  return m.worst ? report::headlineFloor(m) : report::formatBytes(0);
}

// ", named by MF001 at file:line" for the first finding of the report that names the holder's path
// (report/holder_links.h: a Python finding whose field the path names); "" when none does.
std::string namedBy(const report::MergedReport& report, const std::string& path) {
  if (!report.findings) return {};
  for (const report::LinkedFinding& f : report.findings->items) {
    if (report::pathNames(path, report::holderLinkName(f))) {
      return fmt::format(", named by {} at {}:{}", f.rule, common::printable(f.file), f.line);
    }
  }
  return {};
}

// NAME.report.json and NAME.table.txt in out.
void writeReport(const report::MergedReport& report, const fs::path& out, const std::string& name) {
  common::OutputFile json((out / (name + ".report.json")).string(), "report");
  report::writeJson(json.stream(), report);
  json.commit();
  common::writeOutputFile((out / (name + ".table.txt")).string(), "table",
                          reports::formatTable(report));
}

// A PyTorch run recorded on an H200 with the Python companion's censuses (holders.py --case graph:
// each layer keeps a tensor whose autograd graph holds its activation): its report and page, and
// the holder its last census ranks first.
std::string torchHolders(const DemoRequest& request, const fs::path& out,
                         const std::string& findings) {
  analysis::TraceSet set;
  set.trace_paths = {
      (fs::path(request.source_dir) / "testdata" / "analysis" / "torch_holders_graph.txt")
          .string()};
  set.findings_path = findings;  // the page shows the finding that names the holder
  set.source_root = request.source_dir;
  const report::MergedReport report = analysis::analyzeTraces(set);
  writeReport(report, out, "torch-holders");
  writeHtmlReport(
      {(out / "torch-holders.report.json").string(), "", (out / "torch-holders.html").string()});
  const analysis::HeldBy* last = nullptr;
  for (const analysis::IterationRow& row : report.runs.at(0).iterations) {
    if (!row.held_by.empty()) last = &row.held_by.front();
  }
  if (last == nullptr || last->holders.empty()) return "no census in the PyTorch run";
  const analysis::Holder& top = last->holders.front();
  const std::string via = fmt::format("{}", fmt::join(top.via_graph, " > "));
  return fmt::format("{} keeps {} ({}: {}{}) of {} allocated in a PyTorch run{}",
                     common::printable(top.path), report::formatBytes(top.bytes),
                     analysis::toString(top.cls), common::printable(top.rule),
                     via.empty() ? "" : "; via the autograd graph " + common::printable(via),
                     report::formatBytes(last->allocated), namedBy(report, top.path));
}

// What the gate prints, kept in memory (open_memstream) and written to gate.txt as every output.
class GateLog {
 public:
  GateLog() : file_(::open_memstream(&data_, &size_)) {
    if (file_ == nullptr) throw Error("cannot buffer the gate's output");
  }
  ~GateLog() {
    std::fclose(file_);
    std::free(data_);  // NOLINT(cppcoreguidelines-no-malloc): open_memstream's buffer
  }
  GateLog(const GateLog&) = delete;
  GateLog& operator=(const GateLog&) = delete;
  std::FILE* file() const { return file_; }
  std::string text() {
    std::fflush(file_);
    return {data_, size_};
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

// The gate fixed -> hc-bug (a regression) and fixed -> fixed (a pass): gate.txt, gate.md and a
// gate result each; the two exit codes.
std::pair<int, int> gateBothWays(const fs::path& out) {
  GateRequest regression{(out / "fixed.report.json").string(),
                         (out / "hc-bug.report.json").string(),
                         {},
                         (out / "gate.md").string(),
                         (out / "gate-fixed-vs-hc-bug.json").string(),
                         false,
                         false};
  std::error_code ec;
  fs::remove(out / "gate.md", ec);  // the gate appends to it
  GateLog gate_log;
  const int bug_verdict = runGate(regression, gate_log.file());
  GateRequest same{(out / "fixed.report.json").string(),
                   (out / "fixed.report.json").string(),
                   {},
                   "",
                   (out / "gate-fixed-vs-fixed.json").string(),
                   false,
                   false};
  const int same_verdict = runGate(same, gate_log.file());
  common::writeOutputFile((out / "gate.txt").string(), "gate log", gate_log.text());
  return {bug_verdict, same_verdict};
}

int runDemo(const DemoRequest& request) {
  if (request.source_dir.empty()) {
    throw Error(common::describeCandidates(common::Part::kDemoData, common::selfDir()) +
                ": the demo's data is not there (testdata/model/findings.json); pass --source "
                "with the memfloor source tree");
  }
  fs::path out = request.output_dir;
  std::error_code made;
  fs::create_directories(out, made);
  if (made) {
    throw Error(
        fmt::format("{}: cannot make the demo's directory: {}", out.string(), made.message()));
  }
  fs::path data = fs::path(request.source_dir) / "testdata" / "model";
  fmt::print(
      "memfloor demo: the reference model, fixed and with the first seed's bug "
      "(hc-mlp-norm-manager)\n");

  // 1. Traces: fresh ones where a GPU and the model binary are here, else the shipped recordings.
  fs::path model = selfDir() / ".." / "reference_model" / "reference_model";
  std::error_code ec;
  bool can_record = request.record && gpuPresent() && fs::exists(model, ec);
  std::map<std::string, std::string> traces;
  for (const Variant& v : kVariants) {
    std::string dir = can_record ? record(v, model, out) : "";
    traces[v.name] = dir.empty() ? (data / (v.name + ".mftrace")).string() : dir;
  }
  fmt::print("  traces: {}\n", can_record ? "recorded now under memfloor run"
                                          : "shipped recordings from an H200 (no GPU here)");

  // 2. Findings: the checker on the model's sources.
  std::string findings = check(request, out);
  if (findings.empty()) {
    findings = (out / "findings.json").string();
    common::writeOutputFile(findings, "findings",
                            common::readJsonFile((data / "findings.json").string(), "findings"));
  }

  // 3. Reports.
  std::map<std::string, report::MergedReport> merged;
  for (const Variant& v : kVariants) {
    analysis::TraceSet set;
    set.trace_paths = {traces[v.name]};
    set.findings_path = findings;
    set.source_root = request.source_dir;
    set.debug_dirs = {(selfDir() / ".." / "reference_model").string()};
    merged[v.name] = analysis::analyzeTraces(set);
    writeReport(merged[v.name], out, v.name);
  }

  // 4. The gate both ways, then the pages (the bug's page shows its gate verdict).
  const auto [bug_verdict, same_verdict] = gateBothWays(out);
  writeHtmlReport({(out / "fixed.report.json").string(), "", (out / "fixed.html").string()});
  writeHtmlReport({(out / "hc-bug.report.json").string(),
                   (out / "gate-fixed-vs-hc-bug.json").string(), (out / "hc-bug.html").string()});
  const std::string held = torchHolders(request, out, findings);

  // 5. Where things are, and what they say.
  const report::MergedReport& bug = merged["hc-bug"];
  uint64_t explained = 0;
  std::string finding = "no finding";
  if (bug.findings) {
    for (uint32_t f = 0; f < bug.findings->items.size(); ++f) {
      if (uint64_t bytes = report::maxExplainedBytes(bug, f); bytes > explained) {
        explained = bytes;
        const report::LinkedFinding& item = bug.findings->items[f];
        finding = fmt::format("{} at {}:{} ('{}')", item.rule, item.file, item.line, item.field);
      }
    }
  }
  uint64_t fixed_floor = steadyFloor(merged["fixed"]);
  uint64_t bug_floor = steadyFloor(bug);
  fmt::print(
      "\nfiles in {}/: hc-bug.html, fixed.html, torch-holders.html, *.report.json, findings.json, "
      "gate.md, gate.txt\n",
      out.string());
  fmt::print("1. idle floor: hc-bug {} vs fixed {} (+{} kept per idle window)\n", floorText(bug),
             floorText(merged["fixed"]),
             report::formatBytes(bug_floor > fixed_floor ? bug_floor - fixed_floor : 0));
  fmt::print("2. explained: {} of it by {}\n", report::formatBytes(explained), finding);
  fmt::print("3. gate: fixed -> hc-bug {} (exit {}), fixed -> fixed {} (exit {})\n",
             bug_verdict == kExitFinding ? "REGRESSION" : "pass", bug_verdict,
             same_verdict == kExitOk ? "pass" : "REGRESSION", same_verdict);
  fmt::print("4. held by: {}\n", held);
  bool as_expected = bug_verdict == kExitFinding && same_verdict == kExitOk;
  if (!as_expected) fmt::print(stderr, "memfloor demo: the gate did not behave as expected\n");
  return as_expected ? kExitOk : kExitFinding;
}

}  // namespace

void addDemoCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<DemoRequest>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "Checker, analysis, HTML reports and the gate on the reference model, fixed vs bug");
  cmd->add_option("-o,--output", request->output_dir, "directory for the demo's files")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--source", request->source_dir,
                  "the memfloor source tree (default: the data installed with memfloor)")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("-p,--build", request->build_dir,
                  "build directory with compile_commands.json (default: memfloor's own)")
      ->type_name("DIR");
  cmd->add_flag("!--no-record", request->record,
                "use the shipped traces even where a GPU is present");
  cmd->callback([request, &exit_code] { exit_code = runDemo(*request); });
}

}  // namespace memfloor::cli

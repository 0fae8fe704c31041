// The CI gate: two reports (baseline, current) and thresholds in, a verdict and what moved out.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.h"

namespace memfloor::reports {

inline constexpr std::string_view kGateSchema = "memfloor.gate/1";

// A delta (current − baseline) regresses when it exceeds both `bytes` and `percent` of the
// baseline's magnitude: delta > max(bytes, |baseline| × percent / 100). Decreases never regress.
struct Threshold {
  uint64_t bytes = 0;
  double percent = 0;
};

// Defaults and their reasons: docs/gate.md.
struct GateThresholds {
  Threshold idle_floor{units::kMiB, 1.0};      // 1 MiB, 1 %: the trend's "growing" rule
  Threshold peak{4 * units::kMiB, 2.0};        // 4 MiB, 2 %: peaks carry workspaces
  Threshold growth{512 * units::kKiB, 10.0};   // 512 KiB per iteration, 10 % of the baseline's
  Threshold site{units::kMiB, 10.0};           // 1 MiB, 10 %
  Threshold site_peak{4 * units::kMiB, 10.0};  // 4 MiB, 10 %: a peak's workspaces, a site's share
  Threshold holder{4 * units::kMiB, 10.0};     // 4 MiB, 10 %: a block or two of one tensor
  bool fail_on_new_findings = true;
};

// What the gate reads of one report (docs/gate.md, "What is compared").
struct FindingRef {
  std::string id;  // the fingerprint
  std::string rule;
  std::string message;
  std::string file;  // location; "" and 0 when the finding has none
  uint32_t line = 0;
  uint32_t column = 0;
};

struct SlotMetrics {
  uint32_t device = 0;
  std::string kind;
  uint64_t idle_floor = 0;       // steady_idle_floor
  uint64_t peak = 0;             // memory[].peak
  std::optional<int64_t> slope;  // trend slope per iteration; none when fewer than 3 points
  // The steady window's top_sites: `where` -> inter_iteration + leak bytes (summed over the
  // sites of one `where`; sites retaining only persistent or cached bytes are left out).
  std::map<std::string, uint64_t> sites;
  // The sites at the largest peak of the iterations: `where` -> bytes live there (summed over the
  // sites of one `where`).
  std::map<std::string, uint64_t> peak_sites;
  // The holders of the device's last census (on its allocated level: blocks, else device memory):
  // path -> bytes, holders persistent by their role (parameters, buffers, gradients, optimizer
  // state) left out.
  std::map<std::string, uint64_t> holders;
};

struct RunMetrics {
  std::string label;    // unique within the report: the k-th repeat of a label gets " #k"
  std::string program;  // programOf(process.command_line): "train.py"; "" when not recorded
  std::vector<SlotMetrics> slots;  // ordered by device, then kind
  bool peak_sites = false;  // its largest peaks have compositions (reports written since they do)
  bool measured = false;    // it has a steady idle window: a complete iteration to compare
};

struct ReportMetrics {
  std::string path;
  std::vector<RunMetrics> runs;
  std::vector<FindingRef> findings;
};

// Reads the fields the gate compares from a report of schema memfloor.report/3 or /2 (the schema
// string itself is checked by loadReportJson) through the typed reader (report_reader.h): the
// runs' label, memory, steady windows, largest peaks and trend, and the findings. Throws
// memfloor::Error naming `path` and the field when one of those is missing or of the wrong type.
ReportMetrics extractMetrics(const nlohmann::json& report, std::string_view path);

enum class Metric : uint8_t { kIdleFloor, kPeak, kFloorGrowth, kSiteRetained, kSitePeak, kHolder };
// "idle_floor", "peak", "floor_growth", "site_retained", "site_peak", "holder"
std::string_view toString(Metric metric);

struct GateCheck {
  Metric metric = Metric::kIdleFloor;
  std::string run;
  uint32_t device = 0;
  std::string kind;
  // Either run has allocator blocks on the device: kind device is what the allocator reserved
  // (report/labels.h names it so).
  bool device_has_blocks = false;
  std::string site;  // kSiteRetained and kSitePeak: the site; kHolder: the holder's path
  int64_t baseline = 0;
  int64_t current = 0;
  int64_t delta = 0;                    // current − baseline (saturated)
  std::optional<double> delta_percent;  // none when the baseline is 0
  int64_t allowed = 0;                  // the largest delta that passes
  bool regression = false;
};

struct GateResult {
  std::string baseline_path;
  std::string current_path;
  GateThresholds thresholds;
  std::vector<GateCheck> checks;          // by run (baseline order), device, kind, metric
  std::vector<FindingRef> new_findings;   // in current, not in baseline, in current's order
  std::vector<std::string> missing_runs;  // in baseline, not in current: a regression
  std::vector<std::string> added_runs;    // in current, not in baseline: reported only
  struct RunPair {
    std::string baseline, current;
  };
  std::vector<RunPair> paired_runs;  // runs without a rank matched by position, not by label
  struct ProgramPair {
    std::string baseline, current;
  };
  // Compared runs whose programs differ (both known), each pair of programs once, in baseline
  // order: their memory is compared all the same, and the command line warns of it.
  std::vector<ProgramPair> other_programs;
  bool regression = false;

  size_t regressions() const;  // checks over threshold
};

// The program a command line runs, as runs of one program are told apart from another's: for a
// Python interpreter or launcher (python3, torchrun, deepspeed, accelerate), the file name of the
// first script among its arguments ("train.py"), else the module after -m ("-m trainer"); else
// the executable's file name ("build/dist/reference_model --layers 2" -> "reference_model"). ""
// for an empty command line (a run read from a memory snapshot records none).
std::string programOf(std::string_view command_line);

// The largest delta that passes: floor(max(bytes, |baseline| × percent / 100)), saturated.
int64_t allowedDelta(const Threshold& threshold, int64_t baseline);

// Compares current with baseline. Pure: no I/O. Runs match by label; runs without a rank (labelled
// by their trace's file name, which holds the pid) left over on both sides pair up in report order
// when both sides have as many of them.
GateResult runGate(const ReportMetrics& baseline, const ReportMetrics& current,
                   const GateThresholds& thresholds);

}  // namespace memfloor::reports

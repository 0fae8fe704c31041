// MergedReport: run order, labels, the worst run and the overall verdict.
#include "analysis/merged_report.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/levels.h"

namespace memfloor::analysis {

MergedReport mergeRuns(std::vector<Report> runs, std::optional<FindingsFile> findings) {
  std::stable_sort(runs.begin(), runs.end(), [](const Report& a, const Report& b) {
    auto rank = [](const Report& r) {
      return r.process.rank < 0 ? INT64_MAX : static_cast<int64_t>(r.process.rank);
    };
    return rank(a) != rank(b) ? rank(a) < rank(b) : a.input.path < b.input.path;
  });
  MergedReport out;
  out.tool_version = std::string(toolVersion());
  out.findings = std::move(findings);

  std::map<std::string, int> uses;
  for (const Report& r : runs) {
    std::string label = r.process.rank >= 0
                            ? "rank " + std::to_string(r.process.rank)
                            : std::filesystem::path(r.input.path).filename().string();
    out.labels.push_back(label);
    ++uses[label];
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    if (uses[out.labels[i]] > 1) out.labels[i] = runs[i].input.path;  // two rank-0 traces
  }

  bool any_stable = false, any_growing = false;
  for (uint32_t i = 0; i < runs.size(); ++i) {
    any_stable |= runs[i].verdict == TrendVerdict::kStable;
    any_growing |= runs[i].verdict == TrendVerdict::kGrowing;
    for (const SteadyFloor& s : runs[i].steady) {
      // Each device's headline: its allocated floor where it has blocks, else its device floor.
      if (!(s.key == headlineKey(runs[i], s.key.device)) || s.iteration == 0) continue;
      if (!out.worst || s.idle_floor > out.worst->idle_floor) {
        out.worst = WorstRun{i, s.key, s.iteration, s.idle_floor};
      }
    }
  }
  out.verdict = any_growing  ? TrendVerdict::kGrowing
                : any_stable ? TrendVerdict::kStable
                             : TrendVerdict::kUnknown;
  out.runs = std::move(runs);
  return out;
}

}  // namespace memfloor::analysis

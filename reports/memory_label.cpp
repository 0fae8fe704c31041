// Memory labels: the kind names of report.json, and the two levels of a caching allocator.
#include "reports/memory_label.h"

#include <fmt/format.h>

#include "analysis/memory_levels.h"
#include "reports/report_table.h"

namespace memfloor::reports {

std::string_view kindLabel(std::string_view kind, bool device_has_blocks) {
  if (kind == trace::toString(trace::MemoryKind::kBlock)) return "allocated";
  if (device_has_blocks && kind == trace::toString(trace::MemoryKind::kDevice)) return "reserved";
  return kind;
}

std::string memoryLabel(const analysis::Report& run, const analysis::MemoryKey& key) {
  return fmt::format("{}:{}", key.device,
                     kindLabel(trace::toString(key.kind), analysis::hasBlocks(run, key.device)));
}

std::string headlineFloor(const analysis::MergedReport& report) {
  if (!report.worst) return {};
  const analysis::WorstRun& worst = *report.worst;
  std::string text = formatBytes(worst.idle_floor);
  if (worst.key.kind != trace::MemoryKind::kBlock) return text;
  const analysis::SteadyFloor* reserved = analysis::steadyFloorOf(
      report.runs[worst.run], {worst.key.device, trace::MemoryKind::kDevice});
  return reserved == nullptr
             ? text + " allocated"
             : fmt::format("{} allocated (reserved {})", text, formatBytes(reserved->idle_floor));
}

}  // namespace memfloor::reports

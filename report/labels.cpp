// Labels: bytes and durations for people, the kind names of report.json, and the two levels of a
// caching allocator.
#include "report/labels.h"

#include <fmt/format.h>

#include <iterator>

#include "common/units.h"
#include "report/levels.h"

namespace memfloor::report {
namespace {

constexpr double kNsPerMillisecond = 1e6;
constexpr double kNsPerSecond = 1e9;

}  // namespace

std::string_view kindLabel(std::string_view kind, bool device_has_blocks) {
  if (kind == trace::toString(trace::MemoryKind::kBlock)) return "allocated";
  if (device_has_blocks && kind == trace::toString(trace::MemoryKind::kDevice)) return "reserved";
  return kind;
}

std::string memoryLabel(const Report& run, const MemoryKey& key) {
  return fmt::format("{}:{}", key.device,
                     kindLabel(trace::toString(key.kind), hasBlocks(run, key.device)));
}

std::string headlineFloor(const MergedReport& report) {
  if (!report.worst) return {};
  const WorstRun& worst = *report.worst;
  std::string text = formatBytes(worst.idle_floor);
  if (worst.key.kind != trace::MemoryKind::kBlock) return text;
  const SteadyFloor* reserved =
      steadyFloorOf(report.runs[worst.run], {worst.key.device, trace::MemoryKind::kDevice});
  return reserved == nullptr
             ? text + " allocated"
             : fmt::format("{} allocated (reserved {})", text, formatBytes(reserved->idle_floor));
}

std::string formatDuration(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  const auto value = static_cast<double>(ns);
  if (ns < units::kNsPerMs) return fmt::format("{:.1f} us", value / 1e3);
  if (ns < units::kNsPerS) return fmt::format("{:.1f} ms", value / kNsPerMillisecond);
  return fmt::format("{:.2f} s", value / kNsPerSecond);
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", value, value < 10 ? 2 : 1, kUnits[unit]);
}

}  // namespace memfloor::report

// Labels: bytes and durations for people, the kind names of report.json, and the two levels of a
// caching allocator.
#include "report/labels.h"

#include <fmt/format.h>

#include <iterator>

#include "common/units.h"
#include "report/levels.h"

namespace memfloor::report {
namespace {

// `numerator / denominator` with `decimals` digits after the point, rounded to the nearest, ties
// to even, by long division on integers (denominator at most 2^60, so that ten times a remainder
// fits): the page's script (format.js, fixedPoint) does the same, and
// testdata/report/formats.json holds both to one table.
std::string fixedPoint(uint64_t numerator, uint64_t denominator, int decimals) {
  uint64_t quotient = numerator / denominator;
  uint64_t rest = numerator % denominator;
  uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) {
    rest *= 10;
    quotient = quotient * 10 + rest / denominator;
    rest %= denominator;
    scale *= 10;
  }
  if (rest * 2 > denominator || (rest * 2 == denominator && quotient % 2 == 1)) ++quotient;
  return fmt::format("{}.{:0{}}", quotient / scale, quotient % scale, decimals);
}

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
  if (ns < units::kNsPerMs) return fixedPoint(ns, units::kNsPerUs, 1) + " \u00b5s";
  if (ns < units::kNsPerS) return fixedPoint(ns, units::kNsPerMs, 1) + " ms";
  return fixedPoint(ns, units::kNsPerS, 2) + " s";
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  uint64_t unit_bytes = 1024;
  size_t unit = 0;
  while (bytes / unit_bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    unit_bytes *= 1024;
    ++unit;
  }
  return fixedPoint(bytes, unit_bytes, bytes / unit_bytes < 10 ? 2 : 1) + " " + kUnits[unit];
}

}  // namespace memfloor::report

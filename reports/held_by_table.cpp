// The table's "held by": one block per census of the last idle window with one.
#include "reports/held_by_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "common/printable.h"
#include "report/levels.h"
#include "reports/report_table.h"

namespace memfloor::reports {
namespace {

std::string counted(uint64_t n, std::string_view unit) {
  return fmt::format("{} {}{}", n, unit, n == 1 ? "" : "s");
}

void censusBlock(std::string& text, const report::Report& r, const report::IterationRow& row,
                 const report::HeldBy& h) {
  auto out = std::back_inserter(text);
  const bool blocks = report::hasBlocks(r, h.device);
  const std::string_view unit = blocks ? "block" : "allocation";
  fmt::format_to(out, "\nheld by, at the census after iteration {} (device {}{}){}:\n", row.index,
                 h.device, h.step != 0 ? fmt::format(", step {}", h.step) : "",
                 h.complete ? "" : ", incomplete: it stopped at its object limit");
  fmt::format_to(out, "  allocated {}, held {} in {}, not seen {} in {}\n",
                 report::formatBytes(h.allocated), report::formatBytes(h.held.bytes),
                 counted(h.held.count, unit), report::formatBytes(h.not_seen.bytes),
                 counted(h.not_seen.count, unit));
  if (h.holders.empty()) return;
  fmt::format_to(out, "  {:>10} {:>7}  {:<16} {}\n", "bytes", blocks ? "blocks" : "allocs", "class",
                 "path (rule)");
  const size_t listed = std::min(h.holders.size(), kTableHolders);
  for (size_t i = 0; i < listed; ++i) {
    const report::Holder& x = h.holders[i];
    fmt::format_to(out, "  {:>10} {:>7}  {:<16} {} ({})\n", report::formatBytes(x.bytes), x.count,
                   toString(x.cls), common::printable(x.path), common::printable(x.rule));
  }
  report::Tally rest = h.holders_left_out;
  for (size_t i = listed; i < h.holders.size(); ++i) rest.add(h.holders[i].bytes);
  if (rest.count > 0) {
    fmt::format_to(out, "  {:>10} {:>7}  ({}, not listed)\n", report::formatBytes(rest.bytes), "",
                   counted(rest.count, "more holder"));
  }
}

}  // namespace

void heldByTable(std::string& text, const report::Report& r) {
  auto row = std::find_if(r.iterations.rbegin(), r.iterations.rend(),
                          [](const report::IterationRow& it) { return !it.held_by.empty(); });
  if (row == r.iterations.rend()) return;
  for (const report::HeldBy& h : row->held_by) censusBlock(text, r, *row, h);
}

}  // namespace memfloor::reports

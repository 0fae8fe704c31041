// Tests of the table's "held by": the last idle window with a census, per device, and the paths
// from the trace printed safely.
#include "reports/held_by_table.h"

#include <catch2/catch.hpp>
#include <string>

#include "reports/report_table.h"
#include "tests/analysis/checked_analysis.h"

namespace memfloor::reports::test {
namespace {

const std::string kDir = std::string(MEMFLOOR_TESTDATA_DIR) + "/";

TEST_CASE("The table shows what the last census found", "[report_table][holders]") {
  const std::string table =
      formatTable(analysis::test::analyzeFile(kDir + "analysis/census_holders.txt"));
  INFO(table);
  CHECK_THAT(table,
             Catch::Contains("\nheld by, at the census after iteration 4 (device 0, step 4):\n"
                             "  allocated 19.8 MiB, held 17.8 MiB in 8 blocks, not seen "
                             "2.00 MiB in 1 block\n"));
  CHECK_THAT(table, Catch::Contains("    8.00 MiB       1  persistent       model.weight (role: "
                                    "parameter)\n"));
  CHECK_THAT(table,
             Catch::Contains("    1.50 MiB       2  inter_iteration  model.layers[1].planted "
                             "(replaced since the census at step 3)\n"));
  CHECK_THAT(table, Catch::Contains("    64.0 KiB       1  leak             trainer.losses[3] "
                                    "(container grew from 3 to 4 elements since the census at "
                                    "step 3)\n"));
  CHECK_THAT(table, !Catch::Contains("after iteration 3 (device 0"));  // the last window only
}

TEST_CASE("The table lists a few holders, and names a device's allocations without blocks",
          "[report_table][holders]") {
  analysis::Report r;
  analysis::IterationRow& row = r.iterations.emplace_back();
  row.index = 2;
  analysis::HeldBy& h = row.held_by.emplace_back();
  h.device = 1;
  h.complete = false;
  h.allocated = 40 << 20;
  h.held = {30 << 20, kTableHolders + 2};
  h.not_seen = {10 << 20, 1};
  for (size_t i = 0; i < kTableHolders + 2; ++i) {
    analysis::Holder& x = h.holders.emplace_back();
    x.path = i == 0 ? std::string("cache[\"\x1b[2J\"]\x7f") : "x" + std::to_string(i);
    x.bytes = 1 << 20;
    x.count = 1;
    x.rule = "time: persistent";
  }
  h.holders_left_out = {5 << 20, 3};
  std::string table;
  heldByTable(table, r);
  INFO(table);
  CHECK_THAT(table, Catch::Contains("after iteration 2 (device 1), incomplete: it stopped at its "
                                    "object limit:\n"));
  CHECK_THAT(table, Catch::Contains("held 30.0 MiB in 12 allocations, not seen 10.0 MiB in 1 "
                                    "allocation\n"));
  CHECK_THAT(table, Catch::Contains("cache[\"\\x1b[2J\"]\\x7f (time: persistent)\n"));
  CHECK_THAT(table, !Catch::Contains("\x1b"));
  CHECK_THAT(table, !Catch::Contains(" x11 "));  // past the listed ones
  CHECK_THAT(table, Catch::Contains("    7.00 MiB          (5 more holders, not listed)\n"));
}

TEST_CASE("No census, no held-by block", "[report_table][holders]") {
  analysis::Report r;
  r.iterations.emplace_back();
  std::string table;
  heldByTable(table, r);
  CHECK(table.empty());
}

}  // namespace
}  // namespace memfloor::reports::test

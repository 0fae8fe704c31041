// Tests of formatTable: what a person reads after `memfloor analyze`.
#include "reports/report_table.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"
#include "trace/format.h"

namespace memfloor::reports::test {
namespace {

TEST_CASE("The table shows floors, retention classes and the top site", "[report_table]") {
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 4});
  std::string table = formatTable(analysis::test::analyze(loop.trace));
  INFO(table);
  CHECK_THAT(table, Catch::Contains(fmt::format(
                        "trace: built.mftrace (format {}.{}, complete (trailer present))",
                        trace::kMajorVersion, trace::kMinorVersion)));
  CHECK_THAT(table, Catch::Contains("iterations: 4 from markers"));
  CHECK_THAT(table, Catch::Contains("idle floor"));
  // iteration 2: peak 104 MiB, idle floor 72 MiB = 64 persistent + 8 inter-iteration
  CHECK_THAT(table, Catch::Contains("   2  0:device          104.0 MiB   72.0 MiB   64.0 MiB"
                                    "   8.00 MiB        0 B  layer.cpp:2305 in "
                                    "Layer::forwardPostMlp (inter_iteration)"));
  CHECK_THAT(table, Catch::Contains("idle-floor trend: stable"));
  CHECK_THAT(table, Catch::Contains("top retaining sites in the idle window after iteration 3"));
  CHECK_THAT(table, Catch::Contains("model.cpp:10 in Model::Model"));
}

TEST_CASE("The table shows what is live at the largest peak, by class and site", "[report_table]") {
  SECTION("equal peaks: the first iteration's") {
    analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 4});
    std::string table = formatTable(analysis::test::analyze(loop.trace));
    INFO(table);
    CHECK_THAT(table, Catch::Contains("peak composition, at the largest peak of each memory:\n"
                                      "  memory            iter       peak  iteration    earlier "
                                      "inter-iter       leak persistent\n"
                                      "  0:device             1  104.0 MiB   40.0 MiB        0 B "
                                      "       0 B        0 B   64.0 MiB\n"));
    CHECK_THAT(table, Catch::Contains("top sites at the peak of iteration 1, 0:device (+200 ns "
                                      "into it):\n  class                   bytes  allocs  where\n"
                                      "  persistent           64.0 MiB       1  model.cpp:10 in "
                                      "Model::Model\n"
                                      "  iteration            32.0 MiB       1  layer.cpp:40 in "
                                      "Layer::forward\n"));
  }
  SECTION("a leak raises every peak: the last iteration's, the earlier leaks a leak there") {
    analysis::test::Loop loop =
        analysis::test::trainingLoop({.iterations = 4, .leak = 2 * analysis::test::kMiB});
    std::string table = formatTable(analysis::test::analyze(loop.trace));
    INFO(table);
    CHECK_THAT(table, Catch::Contains("  0:device             4  112.0 MiB   42.0 MiB        0 B "
                                      "       0 B   6.00 MiB   64.0 MiB\n"));
    CHECK_THAT(table, Catch::Contains("top sites at the peak of iteration 4, 0:device"));
  }
}

TEST_CASE("The table without markers is the whole-trace summary", "[report_table]") {
  analysis::test::TraceBuilder t;
  t.alloc(1, 0x10, 2048).alloc(2, 0x20, 1024).free(3, 0x10);
  std::string table = formatTable(analysis::test::analyze(t));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("iterations: unknown (no marker matches"));
  CHECK_THAT(table,
             Catch::Contains("0:device           3.00 KiB   1.00 KiB          2          1"));
  CHECK_THAT(table, !Catch::Contains("idle floor"));
}

TEST_CASE("The table names problems with the input", "[report_table]") {
  analysis::test::TraceBuilder t;
  t.record(trace::Dropped{trace::DropSource::kCupti, 3});
  t.push(1, "step 1").free(2, 0x99, {}, 10).pop(3);
  std::string table = formatTable(analysis::test::analyze(t));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("dropped records: 3 by CUPTI, 0 by the writer"));
  CHECK_THAT(table, Catch::Contains("pairing: 1 unmatched frees (10 B)"));
}

TEST_CASE("The table elides the middle of long runs", "[report_table]") {
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 60});
  analysis::AnalysisOptions options{.warmup_iterations = 2};
  options.compact_iterations = false;  // every iteration a row
  std::string table = formatTable(analysis::test::analyze(loop.trace, options));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("(20 rows not shown; the JSON has them)"));
  CHECK_THAT(table, Catch::Contains("   1w 0:device"));
  CHECK_THAT(table, Catch::Contains("  60  0:device"));
  CHECK_THAT(table, !Catch::Contains("  30  0:device"));
}

TEST_CASE("The table shows alike iterations as one range", "[report_table]") {
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 60});
  std::string table = formatTable(analysis::test::analyze(loop.trace, {.warmup_iterations = 2}));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("iterations: 60 from markers"));
  CHECK_THAT(table,
             Catch::Contains("      iterations 4-59 (56): idle windows as after iteration 3"));
  CHECK_THAT(table, !Catch::Contains("not shown"));
  CHECK_THAT(table, Catch::Contains("  60  0:device"));
}

TEST_CASE("The table shows a trend range's last window and its floor's step", "[report_table]") {
  analysis::test::Loop loop = analysis::test::trainingLoop(
      {.iterations = 40, .retained = 0, .leak = 2 * analysis::test::kMiB});
  std::string table = formatTable(analysis::test::analyze(loop.trace));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("      iterations 2-38 (37): idle windows as after iteration 1 "
                                    "plus a step each, the last's shown"));
  // 38's window: the weights and 38 leaked allocations of 2 MiB.
  CHECK_THAT(table, Catch::Contains("  140.0 MiB   64.0 MiB        0 B   76.0 MiB  peaks "));
  CHECK_THAT(table, Catch::Contains(", idle floor +2097152 B/iteration"));
}

TEST_CASE("The table names a caching allocator's two floors", "[report_table]") {
  // testdata/analysis/caching_allocator.txt: segments of 22 MiB, 9 MiB of blocks kept.
  const std::string fixture =
      std::string(MEMFLOOR_TESTDATA_DIR) + "/analysis/caching_allocator.txt";
  const analysis::Report run = analysis::test::analyzeFile(fixture);
  std::string table = formatTable(analysis::test::merge({run}));
  INFO(table);
  CHECK_THAT(table,
             Catch::Contains("0:reserved         22.0 MiB   22.0 MiB          2          0"));
  CHECK_THAT(table,
             Catch::Contains("0:allocated        15.0 MiB   9.00 MiB         17         15"));
  CHECK_THAT(table, Catch::Contains("   2  0:reserved         22.0 MiB   22.0 MiB   22.0 MiB"));
  CHECK_THAT(table, Catch::Contains("   2  0:allocated        15.0 MiB   9.00 MiB   8.00 MiB"
                                    "   1.00 MiB        0 B        0 B  model.py:40 in "
                                    "Model.forward (inter_iteration)"));
  CHECK_THAT(table, Catch::Contains("  0:allocated      stable   +0 B/iteration"));
  CHECK_THAT(table, Catch::Contains("  0:allocated      inter_iteration    1.00 MiB       1  "
                                    "model.py:40 in Model.forward"));
  CHECK_THAT(table, Catch::Contains("worst: rank 0 (device 0): idle floor 9.00 MiB allocated "
                                    "(reserved 22.0 MiB) after iteration 1\n"));
  CHECK_THAT(table, !Catch::Contains("0:device"));
  CHECK_THAT(table, !Catch::Contains("0:block"));
  CHECK_THAT(table, !Catch::Contains("outside every live segment"));

  // Beside a run without blocks: the runs' headline floors, and the reserved one where it applies.
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 4});
  std::string runs = formatTable(analysis::test::merge({run, analysis::test::analyze(loop.trace)}));
  INFO(runs);
  CHECK_THAT(runs, Catch::Contains("  run                      steady idle floor   reserved  "
                                   "iteration  trend\n"));
  CHECK_THAT(runs, Catch::Contains("  rank 0                           9.00 MiB   22.0 MiB  "
                                   "        1  stable\n"));
  CHECK_THAT(runs, Catch::Contains("  built.mftrace                    72.0 MiB          -  "
                                   "        1  stable\n"));
  CHECK_THAT(runs, Catch::Contains("   2  0:device          104.0 MiB   72.0 MiB"));
}

TEST_CASE("The table shows a warming cache as cached, its trend out of the verdict",
          "[report_table]") {
  // Segments grow by 256 MiB in iterations 1-3; the blocks kept are the same in every window.
  std::string table = formatTable(analysis::test::analyze(analysis::test::cacheWarmUp().trace));
  INFO(table);
  CHECK_THAT(table, Catch::Contains("inter-iter       leak     cached  top retaining site\n"));
  CHECK_THAT(table, Catch::Contains("   3  0:reserved        832.0 MiB  832.0 MiB   64.0 MiB"
                                    "        0 B        0 B  768.0 MiB"));
  CHECK_THAT(table, Catch::Contains("idle-floor trend: stable\n  0:reserved       growing  "));
  CHECK_THAT(table, Catch::Contains("(320.0 MiB -> 832.0 MiB), the allocator's cache: not in the "
                                    "verdict\n  0:allocated      stable "));
  CHECK_THAT(table, Catch::Contains("inter-iter       leak persistent     cached\n"));

  // Without blocks the same growth is a leak, and no column of cached bytes is shown.
  std::string plain =
      formatTable(analysis::test::analyze(analysis::test::cacheWarmUp({.blocks = false}).trace));
  INFO(plain);
  CHECK_THAT(plain, Catch::Contains("idle-floor trend: growing\n"));
  CHECK_THAT(plain, Catch::Contains("   3  0:device          832.0 MiB  832.0 MiB   64.0 MiB"
                                    "        0 B  768.0 MiB  "));
  CHECK_THAT(plain, !Catch::Contains("cached"));
}

TEST_CASE("The table warns of blocks outside every live segment", "[report_table]") {
  analysis::test::TraceBuilder t;
  t.alloc(1, 0x10000, 4096).alloc(2, 0x10000, 512, {.kind = trace::MemoryKind::kBlock});
  t.alloc(3, 0x90000, 512, {.kind = trace::MemoryKind::kBlock});
  std::string table = formatTable(analysis::test::analyze(t));
  INFO(table);
  CHECK_THAT(table,
             Catch::Contains("warning: 1 allocator blocks outside every live segment of their "
                             "device\n"));
  CHECK_THAT(table, Catch::Contains("0:reserved"));
}

TEST_CASE("Strings from a trace reach the terminal with their control bytes escaped",
          "[report_table]") {
  analysis::test::Loop loop = analysis::test::trainingLoop({.iterations = 4});
  analysis::Report r = analysis::test::analyze(loop.trace);
  r.process.present = true;
  r.process.command_line = "python3 train.py\x1b[2J\x07\r";
  r.process.host = "node\x1b]0;x\x07";
  const std::string table = formatTable(r);
  CHECK(table.find('\x1b') == std::string::npos);
  CHECK(table.find('\x07') == std::string::npos);
  CHECK_THAT(table, Catch::Contains("python3 train.py\\x1b[2J\\x07\\x0d"));
  CHECK_THAT(table, Catch::Contains("node\\x1b]0;x\\x07"));
  AND_THEN("the pattern a trace recorded and a finding's rule, file and field too") {
    r.iteration_source = report::IterationSource::kUnknown;
    r.iteration_pattern = "iter\x1b[31m";
    report::MergedReport m;
    m.runs.push_back(r);
    m.labels.push_back("run");
    report::LinkedFinding f;
    f.rule = "MF\x07";
    f.file = "a\x1b.py";
    f.field = "self.\x1bx";
    m.findings = report::FindingsFile{"findings\x1b.json", {f}, {}, {}};
    const std::string merged = formatTable(m);
    CHECK(merged.find('\x1b') == std::string::npos);
    CHECK(merged.find('\x07') == std::string::npos);
    CHECK_THAT(merged, Catch::Contains("no marker matches 'iter\\x1b[31m'"));
    CHECK_THAT(merged, Catch::Contains("MF\\x07 a\\x1b.py:0  self.\\x1bx"));
  }
}

}  // namespace
}  // namespace memfloor::reports::test

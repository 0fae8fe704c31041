// Tests of toJson: every documented field is there, with the documented type.
#include "report/report_json.h"

#include <catch2/catch.hpp>

#include "tests/analysis/checked_analysis.h"
#include "tests/analysis/scenarios.h"

namespace memfloor::report::test {
namespace {

using nlohmann::json;

analysis::Report sampleReport() {
  analysis::test::Loop loop =
      analysis::test::trainingLoop({.iterations = 5, .leak = 1 * analysis::test::kMiB});
  trace::ProcessInfo p;
  p.pid = 77;
  p.host = loop.trace.name("node-1");
  p.rank = 0;
  p.world_size = 2;
  loop.trace.record(p);
  loop.trace.record(trace::Property{loop.trace.name("env.PYTORCH_CUDA_ALLOC_CONF"),
                                    loop.trace.name("expandable_segments:True")});
  loop.trace.free(5000, 0xdead0000, {}, 12);
  return analysis::test::analyze(loop.trace, {.warmup_iterations = 1});
}

void requireUnsigned(const json& j, const char* key) {
  INFO(key << " in " << j.dump());
  REQUIRE(j.contains(key));
  CHECK(j.at(key).is_number_unsigned());
}

void requireTally(const json& j, const char* key) {
  INFO(key);
  REQUIRE(j.contains(key));
  requireUnsigned(j.at(key), "bytes");
  requireUnsigned(j.at(key), "count");
}

void requireRetained(const json& j) {
  requireUnsigned(j, "bytes");
  requireUnsigned(j, "count");
  for (const char* c : {"inter_iteration", "leak", "persistent"}) requireTally(j, c);
}

TEST_CASE("report.json carries the schema, the tool and one run per trace", "[report_json]") {
  json doc = toJson(analysis::test::merge({sampleReport()}));
  CHECK(doc.at("schema") == "memfloor.report/3");
  CHECK(kReportSchema == "memfloor.report/3");
  CHECK(doc.at("tool").at("name") == "memfloor");
  CHECK(doc.at("tool").at("version") == std::string(report::toolVersion()));
  REQUIRE(doc.at("runs").size() == 1);
  CHECK(doc.at("runs")[0].at("label") == "rank 0");
  CHECK(doc.at("summary").at("runs") == 1);
  CHECK(doc.at("findings").at("items").empty());
}

TEST_CASE("a run carries the input and the process", "[report_json]") {
  json j = toJson(sampleReport());
  const json& trace = j.at("trace");
  CHECK(trace.at("path") == "built.mftrace");
  CHECK(trace.at("version").at("major") == 1);
  CHECK(trace.at("ending") == "complete (trailer present)");
  CHECK(trace.at("complete") == true);
  requireUnsigned(trace, "first_ns");
  requireUnsigned(trace, "end_ns");
  for (const char* k : {"total", "allocs", "frees", "markers", "pool_events"}) {
    requireUnsigned(trace.at("records"), k);
  }
  const json& process = j.at("process");
  CHECK(process.at("pid") == 77);
  CHECK(process.at("host") == "node-1");
  CHECK(process.at("rank") == 0);
  CHECK(process.at("local_rank") == -1);
  CHECK(process.at("world_size") == 2);
  CHECK(process.at("properties").at("env.PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True");
  CHECK(process.at("devices").is_array());
  requireUnsigned(j.at("dropped"), "cupti");
  requireUnsigned(j.at("dropped"), "writer");
}

TEST_CASE("report.json counts anomalies", "[report_json]") {
  json a = toJson(sampleReport()).at("anomalies");
  CHECK(a.at("unmatched_frees") == json{{"bytes", 12}, {"count", 1}});
  requireTally(a, "double_allocations");
  for (const char* k :
       {"size_mismatches", "unmatched_range_ends", "unclosed_ranges", "out_of_order_records"}) {
    requireUnsigned(a, k);
  }
}

TEST_CASE("report.json names blocks; blocks outside segments only in runs with blocks",
          "[report_json]") {
  CHECK_FALSE(toJson(sampleReport()).at("anomalies").contains("blocks_outside_segments"));
  analysis::test::TraceBuilder t;
  const analysis::test::At block{.kind = trace::MemoryKind::kBlock};
  t.alloc(1, 0x10000, 4096).alloc(2, 0x10000, 512, block).alloc(3, 0x90000, 512, block);
  json run = toJson(analysis::test::analyze(t));
  CHECK(run.at("anomalies").at("blocks_outside_segments") == 1);
  REQUIRE(run.at("memory").size() == 2);
  CHECK(run.at("memory").at(0).at("kind") == "device");
  CHECK(run.at("memory").at(1).at("kind") == "block");
}

TEST_CASE("report.json has per-iteration rows with floors and retention", "[report_json]") {
  json j = toJson(sampleReport());
  CHECK(j.at("iteration_source") == "markers");
  CHECK(j.at("warmup_iterations") == 1);
  CHECK(j.at("iteration_pattern").is_string());
  REQUIRE(j.at("iterations").size() == 5);
  const json& row = j.at("iterations").at(1);
  CHECK(row.at("index") == 2);
  CHECK(row.at("name") == "iteration 2");
  CHECK(row.at("complete") == true);
  CHECK(row.at("warmup") == false);
  CHECK(j.at("iterations").at(0).at("warmup") == true);
  for (const char* k : {"start_ns", "end_ns"}) requireUnsigned(row, k);
  requireUnsigned(row.at("idle"), "start_ns");
  requireUnsigned(row.at("idle"), "end_ns");
  CHECK(row.at("idle").at("final") == false);
  const json& m = row.at("memory").at(0);
  CHECK(m.at("device") == 0);
  CHECK(m.at("kind") == "device");
  for (const char* k : {"live_at_start", "live_at_end", "peak", "floor"}) requireUnsigned(m, k);
  requireTally(m, "allocated");
  requireTally(m, "freed");
  const json& idle = m.at("idle");
  for (const char* k : {"floor", "peak", "live_at_end"}) requireUnsigned(idle, k);
  CHECK(idle.at("floor") ==
        64 * analysis::test::kMiB + 8 * analysis::test::kMiB + 2 * analysis::test::kMiB);
  requireRetained(idle.at("retained"));
  CHECK(idle.at("retained").at("leak").at("bytes") ==
        analysis::test::kMiB);  // iteration 1's leak is warm-up
  const json& site = row.at("top_sites").at(0);
  requireRetained(site);
  CHECK(site.at("device") == 0);
  CHECK(site.at("kind") == "device");
  CHECK(site.at("stack").is_number_unsigned());
  CHECK(site.at("where") == "layer.cpp:2305 in Layer::forwardPostMlp");
  CHECK(site.at("class") == "inter_iteration");
}

TEST_CASE("report.json has each iteration's peak by class and by site", "[report_json]") {
  json j = toJson(sampleReport());
  const json& m = j.at("iterations").at(2).at("memory").at(0);
  const json& at_peak = m.at("peak_composition");
  requireUnsigned(at_peak, "at_ns");
  CHECK(at_peak.at("at_ns") == 2400);  // iteration 3's leaked buffer
  CHECK(at_peak.at("bytes") == m.at("peak"));
  for (const char* c :
       {"iteration", "earlier_iteration", "inter_iteration", "leak", "persistent"}) {
    requireTally(at_peak, c);
  }
  // Warm-up: weights and iteration 1's leak are persistent; iteration 2's leak is a leak.
  CHECK(at_peak.at("persistent").at("bytes") == 65 * analysis::test::kMiB);
  CHECK(at_peak.at("leak").at("bytes") == analysis::test::kMiB);
  CHECK(at_peak.at("iteration").at("bytes") == 41 * analysis::test::kMiB);
  REQUIRE(at_peak.at("sites").size() == 4);
  const json& site = at_peak.at("sites").at(1);
  CHECK(site.at("where") == "layer.cpp:40 in Layer::forward");
  CHECK(site.at("stack").is_number_unsigned());
  CHECK(site.at("bytes") == 32 * analysis::test::kMiB);
  CHECK(site.at("count") == 1);
  CHECK(site.at("iteration") == json{{"bytes", 32 * analysis::test::kMiB}, {"count", 1}});
  CHECK(site.at("class") == "iteration");
  // The leaking site: 1 MiB each from warm-up, iteration 2 and this one; ties go to the first.
  const json& leak = at_peak.at("sites").at(3);
  CHECK(leak.at("persistent").at("bytes") == analysis::test::kMiB);
  CHECK(leak.at("leak").at("bytes") == analysis::test::kMiB);
  CHECK(leak.at("class") == "iteration");
}

TEST_CASE("report.json has the memory summary, trends and stacks", "[report_json]") {
  json j = toJson(sampleReport());
  const json& m = j.at("memory").at(0);
  for (const char* k : {"peak", "peak_ns", "live_at_end"}) requireUnsigned(m, k);
  requireTally(m, "allocated");
  requireTally(m, "freed");
  CHECK(j.at("trend").at("verdict") == "growing");
  const json& t = j.at("trend").at("per_memory").at(0);
  CHECK(t.at("verdict") == "growing");
  CHECK(t.at("points") == 3);
  CHECK(t.at("first_iteration") == 2);
  CHECK(t.at("slope_bytes_per_iteration").is_number_integer());
  CHECK(t.at("growth_bytes").is_number_integer());
  for (const char* k : {"threshold_bytes", "first_floor", "last_floor"}) requireUnsigned(t, k);
  const json& stack = j.at("stacks").at(0);
  requireUnsigned(stack, "id");
  const json& frame = stack.at("frames").at(0);
  CHECK(frame.at("kind") == "native");
  CHECK(frame.at("module") == "libtrain.so");
  requireUnsigned(frame, "offset");
  CHECK(frame.at("function").is_string());
  CHECK(frame.at("file").is_string());
  requireUnsigned(frame, "line");
  CHECK(frame.at("text").is_string());
}

TEST_CASE("report.json has a trend range's step, and no step in alike ranges", "[report_json]") {
  analysis::test::Loop loop = analysis::test::trainingLoop(
      {.iterations = 40, .retained = 0, .leak = 2 * analysis::test::kMiB});
  const json run = toJson(analysis::test::analyze(loop.trace));
  REQUIRE(run["iteration_ranges"].size() == 1);
  const json& step = run["iteration_ranges"][0]["step"];
  REQUIRE(step["memory"].size() == 1);
  CHECK(step["memory"][0]["device"] == 0);
  CHECK(step["memory"][0]["kind"] == "device");
  CHECK(step["memory"][0]["floor"] == 2 * analysis::test::kMiB);
  CHECK(step["memory"][0]["retained"]["leak"] ==
        json{{"bytes", 2 * analysis::test::kMiB}, {"count", 1}});
  CHECK_FALSE(step["memory"][0]["retained"].contains("cached"));  // no blocks in the run
  REQUIRE(step["top_sites"].size() == run["iterations"][0]["top_sites"].size());
  CHECK(step["top_sites"][1]["bytes"] == 0);  // the weights do not move

  analysis::test::Loop alike = analysis::test::trainingLoop({.iterations = 40});
  const json flat = toJson(analysis::test::analyze(alike.trace));
  REQUIRE_FALSE(flat["iteration_ranges"].empty());
  CHECK_FALSE(flat["iteration_ranges"][0].contains("step"));
}

TEST_CASE("report.json without markers says iterations are unknown", "[report_json]") {
  analysis::test::TraceBuilder t;
  t.alloc(1, 0x10, 100);
  json j = toJson(analysis::test::analyze(t));
  CHECK(j.at("iteration_source") == "unknown");
  CHECK(j.at("iterations").empty());
  CHECK(j.at("trend").at("verdict") == "unknown");
  CHECK(j.at("memory").at(0).at("peak") == 100);
}

}  // namespace
}  // namespace memfloor::report::test

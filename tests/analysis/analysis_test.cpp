// Tests of Analysis: pairing, markers, devices and kinds, metadata, no markers, end of trace.
#include "analysis/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <ctime>
#include <iostream>
#include <random>

#include "checked_analysis.h"
#include "common/error.h"
#include "invariants.h"
#include "scenarios.h"

namespace memfloor::analysis::test {
namespace {

using trace::MemoryKind;

TEST_CASE("Without iteration markers the report summarises the whole trace", "[analysis]") {
  TraceBuilder t;
  t.push(5, "forward").alloc(10, 0x1000, 100).alloc(20, 0x2000, 50).pop(25);
  t.free(30, 0x1000).alloc(40, 0x3000, 10);
  Report r = analyze(t);
  CHECK(r.iteration_source == IterationSource::kUnknown);
  CHECK(r.iterations.empty());
  REQUIRE(r.memory.size() == 1);
  CHECK(r.memory[0].peak == 150);
  CHECK(r.memory[0].peak_ns == 20);
  CHECK(r.memory[0].live_at_end == 60);
  CHECK(r.memory[0].allocated == Tally{160, 3});
  CHECK(r.memory[0].freed == Tally{100, 1});
  CHECK(r.verdict == TrendVerdict::kUnknown);
  CHECK(r.first_ns == 5);
  CHECK(r.end_ns == 40);
  CHECK(r.records.allocs == 3);
  CHECK(r.records.markers == 2);
}

TEST_CASE("Address reuse pairs every free with the allocation before it", "[analysis]") {
  TraceBuilder t;
  t.push(1, "iteration 1");
  for (uint64_t i = 0; i < 100; ++i) {
    t.alloc(10 + 2 * i, 0x1000, 100 + i).free(11 + 2 * i, 0x1000);
  }
  t.alloc(500, 0x1000, 7).pop(600);
  Report r = analyze(t);
  CHECK(r.memory[0].live_at_end == 7);
  CHECK(r.memory[0].peak == 199);
  CHECK(r.anomalies.unmatched_frees == Tally{});
  CHECK(r.anomalies.double_allocations == Tally{});
  CHECK(r.anomalies.size_mismatches == 0);
}

TEST_CASE("Unmatched frees are counted, never crash and never go below zero", "[analysis]") {
  TraceBuilder t;
  t.free(5, 0x9000, {}, 64);                                            // before any allocation
  t.free(6, 0x9000, {.device = 3, .kind = MemoryKind::kManaged}, 16);   // on an unseen device
  t.alloc(10, 0x1000, 100).free(20, 0x1000).free(30, 0x1000, {}, 100);  // freed twice
  Report r = analyze(t);
  CHECK(r.anomalies.unmatched_frees == Tally{180, 3});
  REQUIRE(r.memory.size() == 1);  // the unseen device is not a memory row
  CHECK(r.memory[0].live_at_end == 0);
  CHECK(r.memory[0].freed == Tally{100, 1});
}

TEST_CASE("A double allocation closes the older allocation", "[analysis]") {
  TraceBuilder t;
  t.push(1, "iteration 1");
  t.alloc(10, 0x1000, 100).alloc(20, 0x1000, 30);
  t.pop(30).push(40, "iteration 2").pop(50);
  Report r = analyze(t);
  CHECK(r.anomalies.double_allocations == Tally{100, 1});
  CHECK(r.memory[0].live_at_end == 30);
  CHECK(r.memory[0].freed == Tally{100, 1});  // the closed one counts as freed
  const IterationMemory& m = memoryOf(r.iterations[0]);
  CHECK(m.peak == 100);
  CHECK(m.floor == 0);  // its lost free happened before the new allocation
  CHECK(m.live_at_end == 30);
}

TEST_CASE("A free with another size frees the allocation's size", "[analysis]") {
  TraceBuilder t;
  t.alloc(10, 0x1000, 100).free(20, 0x1000, {}, 64);
  Report r = analyze(t);
  CHECK(r.anomalies.size_mismatches == 1);
  CHECK(r.memory[0].live_at_end == 0);
}

TEST_CASE("Devices and memory kinds have separate timelines", "[analysis]") {
  TraceBuilder t;
  At d0{}, d1{.device = 1}, pinned{.kind = MemoryKind::kPinned};
  At managed{.device = 1, .kind = MemoryKind::kManaged};
  t.alloc(1, 0x1000, 1000, d1).alloc(2, 0x1000, 500, d0).alloc(3, 0x1000, 64, pinned);
  t.push(10, "step 1");
  t.alloc(11, 0x2000, 200, d0).alloc(12, 0x2000, 300, managed).free(13, 0x1000, d1);
  t.pop(20);
  t.free(25, 0x2000, d0);
  t.push(30, "step 2").pop(40);
  Report r = analyze(t);
  REQUIRE(r.memory.size() == 4);
  CHECK(r.memory[0].key == MemoryKey{0, MemoryKind::kDevice});
  CHECK(r.memory[1].key == MemoryKey{0, MemoryKind::kPinned});
  CHECK(r.memory[2].key == MemoryKey{1, MemoryKind::kDevice});
  CHECK(r.memory[3].key == MemoryKey{1, MemoryKind::kManaged});
  const IterationRow& it = r.iterations[0];
  CHECK(memoryOf(it, 0).peak == 700);
  CHECK(memoryOf(it, 0).idle.floor == 500);
  CHECK(memoryOf(it, 0, MemoryKind::kPinned).idle.floor == 64);
  CHECK(memoryOf(it, 1).floor == 0);
  CHECK(memoryOf(it, 1).live_at_start == 1000);
  CHECK(memoryOf(it, 1, MemoryKind::kManaged).idle.floor == 300);
  CHECK(memoryOf(it, 1, MemoryKind::kManaged).live_at_start == 0);
}

TEST_CASE("Kinds this build does not know are 'unknown'", "[analysis]") {
  trace::Alloc a;
  a.timestamp = 1;
  a.address = 0x1000;
  a.size = 10;
  a.kind = static_cast<MemoryKind>(200);
  Report r = analyze(std::vector<trace::Record>{a});
  REQUIRE(r.memory.size() == 1);
  CHECK(r.memory[0].key.kind == MemoryKind::kUnknown);
}

TEST_CASE("Iterations from nested ranges on several threads", "[analysis]") {
  TraceBuilder t;
  t.alloc(1, 0x100, 10);
  // Iteration 1: push/pop on thread 1 with nested "forward" and a nested matching "step".
  t.push(10, "Iteration 1", 1).push(11, "forward", 1).push(12, "step", 1);
  t.push(13, "dataloader", 2);  // thread 2's own range, open across the boundary
  t.alloc(14, 0x200, 20);
  t.pop(15, 1).pop(16, 1).pop(20, 1);
  t.free(22, 0x200);
  t.pop(25, 2);
  // Iteration 2: started on thread 2, ended on thread 1.
  t.start(30, 77, "train_step 2", 2).alloc(31, 0x300, 5).end(40, 77, 1);
  // Iteration 3 never ends: the trace stops inside it.
  t.push(50, "iteration_3", 1).alloc(55, 0x400, 1);
  Report r = analyze(t);
  CHECK(r.iteration_source == IterationSource::kMarkers);
  REQUIRE(r.iterations.size() == 3);
  CHECK(r.iterations[0].name == "Iteration 1");
  CHECK(r.iterations[0].start_ns == 10);
  CHECK(r.iterations[0].end_ns == 20);
  CHECK(r.iterations[0].idle_start_ns == 20);
  CHECK(r.iterations[0].idle_end_ns == 30);
  CHECK(memoryOf(r.iterations[0]).peak == 30);
  CHECK(memoryOf(r.iterations[0]).idle.floor == 10);
  CHECK(r.iterations[1].name == "train_step 2");
  CHECK(r.iterations[1].end_ns == 40);
  CHECK(r.iterations[2].end_ns == 55);
  CHECK_FALSE(r.iterations[2].complete);
  CHECK(r.iterations[2].idle_start_ns == 55);
  CHECK(r.iterations[2].idle_end_ns == 55);
  CHECK(r.iterations[2].idle_final);
  CHECK(r.anomalies.unclosed_ranges == 1);
  // No idle window follows an iteration cut off by the end of the trace: nothing is retained.
  CHECK(memoryOf(r.iterations[2]).idle.floor == 16);
  CHECK(memoryOf(r.iterations[2]).idle.retained.total() == Tally{});
  CHECK(r.iterations[2].top_sites.empty());
}

TEST_CASE("The trailer's end timestamp extends the final window", "[analysis]") {
  TraceBuilder t;
  t.push(10, "step 1").alloc(11, 0x1, 8).pop(20).free(30, 0x1);
  t.record(trace::Trailer{5, 1000});
  Report r = analyze(t);
  CHECK(r.end_ns == 1000);
  CHECK(r.iterations[0].idle_end_ns == 1000);
  CHECK(memoryOf(r.iterations[0]).idle.floor == 0);
}

TEST_CASE("The iteration pattern the trace records names the iterations unless one is given",
          "[analysis]") {
  // What `memfloor run --iteration-pattern "fwd \\d+"` leaves in the trace
  // (runtime_hook/session.cpp).
  const auto build = [](const std::string& recorded) {
    TraceBuilder t;
    t.record(trace::Property{t.name("hook.iteration_pattern"), t.name(recorded)});
    t.push(10, "fwd 1").alloc(11, 0x1000, 64).free(12, 0x1000).pop(20);
    t.push(30, "fwd 2").alloc(31, 0x1000, 64).free(32, 0x1000).pop(40);
    return t;
  };
  const Report recorded = analyze(build(R"(fwd \d+)"));
  REQUIRE(recorded.iterations.size() == 2);
  CHECK(recorded.iterations[1].name == "fwd 2");
  CHECK(recorded.iteration_pattern == R"(fwd \d+)");
  CHECK(recorded.anomalies.warnings.empty());

  AnalysisOptions given;  // analyze --iteration-pattern: the user's, not the trace's
  given.recorded_pattern = false;
  const Report named = analyze(build(R"(fwd \d+)"), given);
  CHECK(named.iteration_source != IterationSource::kMarkers);
  CHECK(named.iteration_pattern == kDefaultIterationPattern);

  // A pattern RE2 refuses is said, and the option's names the iterations.
  const Report bad = analyze(build("fwd (\\d+"));
  CHECK(bad.iteration_pattern == kDefaultIterationPattern);
  REQUIRE(bad.anomalies.warnings.size() == 1);
  CHECK_THAT(bad.anomalies.warnings[0],
             Catch::Contains("the trace's iteration pattern 'fwd (\\d+' is not used"));
}

TEST_CASE("Metadata, drops and out-of-order records reach the report", "[analysis]") {
  TraceBuilder t;
  trace::ProcessInfo p;
  p.pid = 4242;
  p.host = t.name("node-7");
  p.command_line = t.name("python train.py --layers 2");
  p.rank = 3;
  p.local_rank = 1;
  p.world_size = 8;
  t.record(p);
  t.record(trace::DeviceInfo{1, t.name("NVIDIA H200"), 150ull << 30});
  t.record(trace::DeviceInfo{0, t.name("NVIDIA H200"), 150ull << 30});
  t.record(
      trace::Property{t.name("env.PYTORCH_CUDA_ALLOC_CONF"), t.name("backend:cudaMallocAsync")});
  t.record(trace::Dropped{trace::DropSource::kCupti, 5});
  t.record(trace::Dropped{trace::DropSource::kWriter, 2});
  t.record(trace::Dropped{trace::DropSource::kCupti, 1});
  t.alloc(100, 0x1, 1).alloc(50, 0x2, 1);  // the second one is out of order
  t.record(trace::PoolEvent{60, 0x10, 1 << 20, 0, 0, trace::PoolEventType::kCreated, 1});
  // As they arrive, not as the time-order reader would sort them.
  Report r =
      analyzeOneByOne(t.records(), {}, {"built.mftrace", 1, 0, "complete (trailer present)", true});
  CHECK(r.process.present);
  CHECK(r.process.pid == 4242);
  CHECK(r.process.host == "node-7");
  CHECK(r.process.command_line == "python train.py --layers 2");
  CHECK(r.process.rank == 3);
  CHECK(r.process.local_rank == 1);
  CHECK(r.process.world_size == 8);
  REQUIRE(r.process.devices.size() == 2);
  CHECK(r.process.devices[0].device == 0);
  CHECK(r.process.devices[1].name == "NVIDIA H200");
  CHECK(r.process.properties.at("env.PYTORCH_CUDA_ALLOC_CONF") == "backend:cudaMallocAsync");
  CHECK(r.dropped_cupti == 6);
  CHECK(r.dropped_writer == 2);
  CHECK(r.anomalies.out_of_order_records == 2);
  CHECK(r.records.pool_events == 1);
  CHECK(r.records.total == t.records().size());
}

TEST_CASE("An invalid iteration pattern is refused up front", "[analysis]") {
  CHECK_THROWS_AS(Analysis({.iteration_pattern = "step("}), Error);
}

TEST_CASE("A custom pattern picks other markers", "[analysis]") {
  TraceBuilder t;
  t.push(1, "microbatch 0").pop(2).push(3, "microbatch 1").pop(4).push(5, "step 1").pop(6);
  Report r = analyze(t, {.iteration_pattern = R"(microbatch \d+)"});
  CHECK(r.iterations.size() == 2);
  CHECK(r.iteration_pattern == R"(microbatch \d+)");
}

}  // namespace
}  // namespace memfloor::analysis::test

namespace memfloor::analysis::test {
namespace {

// Not a test: Analysis::add throughput. Run it explicitly: memfloor_reports_tests "[bench]"
// (LIVE=n sets the live set). A steady live set with random frees each followed by an allocation
// at the freed address, iteration markers every 1000 events and 64 sites. Records are decoded into
// one reused trace::Record as the readers do; the time of that decoding alone is measured too and
// subtracted. Times are this thread's CPU time, best of five runs.
TEST_CASE("Analysis::add throughput", "[.][bench]") {
  const char* live_env = std::getenv("LIVE");
  const uint64_t live = live_env != nullptr ? std::stoull(live_env) : 20000;
  constexpr uint64_t kEvents = 20'000'000;
  constexpr uint64_t kBase = 0x7f0000000000;

  // The script: per event, an address index and a stack (a compact 8 bytes, so that streaming it
  // costs little next to the replay).
  struct Op {
    uint32_t index;
    uint16_t stack;
    uint8_t kind;  // 0 free, 1 alloc, 2 push, 3 pop
  };
  std::vector<Op> ops;
  ops.reserve(kEvents + kEvents / 1000);
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; ops.size() < kEvents; ++i) {
    if (i % 1000 == 0) ops.push_back({0, 0, static_cast<uint8_t>(2 + (i / 1000) % 2)});
    auto index = static_cast<uint32_t>(rng() % live);
    ops.push_back({index, 0, 0});
    ops.push_back({index, static_cast<uint16_t>(1 + rng() % 64), 1});
  }

  // The clock runs on across the replays: the analysis sees all five, one after another.
  uint64_t ts = live + 1;
  auto replay = [&](Analysis* analysis) {
    trace::Record record;
    uint64_t sum = 0;
    for (const Op& op : ops) {
      ++ts;
      if (op.kind < 2) {
        trace::MemoryEvent e;
        e.timestamp = ts;
        e.address = kBase + op.index * 4096ull;
        e.size = 4096;
        e.stack = op.stack;
        if (op.kind == 0) {
          record.emplace<trace::Free>(trace::Free{e});
        } else {
          record.emplace<trace::Alloc>(trace::Alloc{e});
        }
      } else {
        trace::Marker m;
        m.timestamp = ts;
        m.thread = 1;
        m.name = 1;
        m.type = op.kind == 2 ? trace::MarkerType::kPush : trace::MarkerType::kPop;
        record.emplace<trace::Marker>(m);
      }
      if (analysis != nullptr) {
        analysis->add(record);
      } else {
        sum += record.index();  // keeps the decoding from being optimized away
      }
    }
    return sum;
  };
  // Thread CPU time, not wall time: the build machine is shared, and other processes' time
  // slices on this core must not count.
  auto cpu = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  };
  auto time = [&](auto&& f) {
    double begin = cpu();
    f();
    return cpu() - begin;
  };

  Analysis analysis({});
  analysis.add(trace::StringDef{1, "iteration"});
  for (uint64_t k = 0; k < live; ++k) {
    trace::Alloc a;
    a.timestamp = k + 1;
    a.address = kBase + k * 4096;
    a.size = 4096;
    analysis.add(a);
  }
  // Best of five: the machine is shared, and the fastest run is the one least disturbed.
  uint64_t sink = 0;
  double decode = 1e9, total = 1e9;
  for (int run = 0; run < 5; ++run) {
    decode = std::min(decode, time([&] { sink += replay(nullptr); }));
    total = std::min(total, time([&] { replay(&analysis); }));
  }
  Report r = analysis.finish({});
  checkInvariants(r);
  auto events = static_cast<double>(ops.size());
  std::cout << fmt::format(
      "live {}: {:.0f} records: decode only {:.3f} s, decode + add {:.3f} s; "
      "Analysis::add {:.1f} M records/s ({:.1f} ns each), with decode {:.1f} M records/s "
      "[{} iterations, {}]\n",
      live, events, decode, total, events / (total - decode) / 1e6, (total - decode) / events * 1e9,
      events / total / 1e6, r.iterations.size(), sink % 2);
  CHECK(r.anomalies.unmatched_frees.count == 0);
  CHECK(r.memory[0].live_at_end == live * 4096);
}

}  // namespace
}  // namespace memfloor::analysis::test

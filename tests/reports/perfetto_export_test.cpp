// Tests of toChromeTrace: the trace-event format's shape, counters, slices, names, several runs.
#include "reports/perfetto_export.h"

#include <fmt/core.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tests/analysis/checked_analysis.h"

namespace memfloor::reports::test {
namespace {

using nlohmann::json;

constexpr uint64_t kFirst = 1'700'000'000'000'000'000;  // a CUPTI-like absolute clock
constexpr analysis::MemoryKey kDevice0{0, trace::MemoryKind::kDevice};
constexpr analysis::MemoryKey kPinned0{0, trace::MemoryKind::kPinned};

// Nanoseconds since the trace's origin, as a viewer that truncates `ts * 1000` reads them back
// (Perfetto's JSON importer does).
int64_t nanos(const json& us) { return static_cast<int64_t>(us.get<double>() * 1000.0); }

// The trace-event format (the JSON object format) as Perfetto and chrome://tracing read it.
// Checks every event's required fields and, per thread, that complete slices nest; per async id,
// one begin and one end. Returns the events for further checks.
const json& requireValidTrace(const json& trace) {
  REQUIRE(trace.is_object());
  REQUIRE(trace.contains("traceEvents"));
  REQUIRE(trace.at("traceEvents").is_array());
  REQUIRE(trace.contains("displayTimeUnit"));
  CHECK((trace.at("displayTimeUnit") == "ns" || trace.at("displayTimeUnit") == "ms"));
  if (trace.contains("otherData")) CHECK(trace.at("otherData").is_object());

  // A serialised copy must parse back to the same document.
  CHECK(json::parse(dumpChromeTrace(trace)) == trace);

  const std::set<std::string> phases{"M", "C", "X", "b", "e"};
  const std::set<std::string> metadata_names{"process_name", "process_labels", "process_sort_index",
                                             "thread_name", "thread_sort_index"};
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::pair<int64_t, int64_t>>> slices;
  std::map<uint64_t, std::vector<const json*>> async;
  for (const json& e : trace.at("traceEvents")) {
    INFO(e.dump());
    REQUIRE(e.is_object());
    REQUIRE(e.contains("name"));
    CHECK(e.at("name").is_string());
    REQUIRE(e.contains("ph"));
    REQUIRE(e.at("ph").is_string());
    const std::string ph = e.at("ph");
    CHECK(phases.count(ph) == 1);
    for (const char* key : {"pid", "tid"}) {
      REQUIRE(e.contains(key));
      REQUIRE(e.at(key).is_number_unsigned());
      CHECK(e.at(key).get<uint64_t>() <= 0x7fffffff);  // viewers read them as int32
    }
    REQUIRE(e.contains("ts"));
    REQUIRE(e.at("ts").is_number());
    CHECK(e.at("ts").get<double>() >= 0.0);
    if (e.contains("cat")) CHECK(e.at("cat").is_string());
    if (e.contains("args")) CHECK(e.at("args").is_object());
    const auto thread = std::make_pair(e.at("pid").get<uint64_t>(), e.at("tid").get<uint64_t>());
    if (ph == "M") {
      CHECK(metadata_names.count(e.at("name").get<std::string>()) == 1);
      REQUIRE(e.contains("args"));
      CHECK(e.at("args").size() == 1);
    } else if (ph == "C") {
      REQUIRE(e.contains("args"));
      CHECK(!e.at("args").empty());
      for (const auto& [series, value] : e.at("args").items()) CHECK(value.is_number());
    } else if (ph == "X") {
      REQUIRE(e.contains("dur"));
      REQUIRE(e.at("dur").is_number());
      CHECK(e.at("dur").get<double>() >= 0.0);
      const int64_t start = nanos(e.at("ts"));
      slices[thread].push_back({start, start + nanos(e.at("dur"))});
    } else {  // "b", "e": nestable async, matched by cat and id
      REQUIRE(e.contains("id"));
      REQUIRE(e.contains("cat"));
      async[e.at("id").get<uint64_t>()].push_back(&e);
    }
  }

  // Complete slices on one thread nest: a slice ends before the next one starts or holds it.
  for (auto& [thread, list] : slices) {
    INFO("pid " << thread.first << " tid " << thread.second);
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> open_ends;
    for (const auto& [start, end] : list) {
      while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
      if (!open_ends.empty()) CHECK(end <= open_ends.back());
      open_ends.push_back(end);
    }
  }
  for (const auto& [id, events] : async) {
    INFO("async id " << id);
    REQUIRE(events.size() == 2);
    const json& b = *events[0];
    const json& e = *events[1];
    CHECK(b.at("ph") == "b");
    CHECK(e.at("ph") == "e");
    CHECK(b.at("name") == e.at("name"));
    CHECK(b.at("cat") == e.at("cat"));
    CHECK(b.at("pid") == e.at("pid"));
    CHECK(nanos(e.at("ts")) >= nanos(b.at("ts")));
  }
  return trace.at("traceEvents");
}

std::vector<json> eventsOf(const json& trace, std::string_view ph) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == ph) out.push_back(e);
  }
  return out;
}

std::string threadName(const json& trace, uint64_t tid) {
  for (const json& e : eventsOf(trace, "M")) {
    if (e.at("name") == "thread_name" && e.at("tid") == tid) return e.at("args").at("name");
  }
  return "";
}

analysis::IterationRow iteration(uint32_t index, uint64_t start, uint64_t end, uint64_t idle_end) {
  analysis::IterationRow row;
  row.index = index;
  row.name = "iteration " + std::to_string(index);
  row.start_ns = start;
  row.end_ns = end;
  row.idle_start_ns = end;
  row.idle_end_ns = idle_end;
  analysis::IterationMemory m;
  m.key = kDevice0;
  m.peak = 4096;
  m.floor = 1024;
  m.idle.floor = 2048;
  m.idle.retained.leak = {2048, 1};
  row.memory.push_back(m);
  return row;
}

analysis::Report sampleReport() {
  analysis::Report r;
  r.input.path = "/traces/run.mftrace";
  r.process.present = true;
  r.process.pid = 4242;
  r.process.command_line = "python3 train.py";
  r.first_ns = kFirst;
  r.end_ns = kFirst + 100'000;
  r.timeline = {
      analysis::TimelineSeries{kDevice0,
                               1000,
                               {{kFirst, 0, 1024, 1024},
                                {kFirst + 3000, 1024, 4096, 2048},
                                {kFirst + 9000, 2048, 2048, 2048}}},
      analysis::TimelineSeries{kPinned0, 1000, {{kFirst + 1000, 0, 512, 512}}},
  };
  r.iteration_source = analysis::IterationSource::kMarkers;
  r.iterations = {iteration(1, kFirst + 1000, kFirst + 20'001, kFirst + 30'001),
                  iteration(2, kFirst + 30'001, kFirst + 50'003, kFirst + 60'000)};
  r.iterations[1].idle_final = true;
  analysis::RetainedSite site;
  site.key = kDevice0;
  site.where = "Layer::forward";
  site.retained.leak = {2048, 1};
  r.iterations[0].top_sites.push_back(site);
  // Thread 7: "iteration N" holds forward and backward; backward holds a range ending with it.
  r.ranges = {
      {"iteration 1", 7, kFirst + 1000, kFirst + 20'001, true},
      {"forward", 7, kFirst + 1000, kFirst + 9'999, true},
      {"backward", 7, kFirst + 9'999, kFirst + 20'001, true},
      {"allreduce", 7, kFirst + 15'000, kFirst + 20'001, true},
      {"iteration 2", 7, kFirst + 30'001, kFirst + 50'003, true},
      // start/end ranges overlapping each other and the thread's pushes
      {"prefetch", 8, kFirst + 5'000, kFirst + 35'000, false},
      {"prefetch", 9, kFirst + 6'000, kFirst + 36'000, false},
  };
  return r;
}

TEST_CASE("an empty report gives a valid, empty trace", "[perfetto_export]") {
  const json trace = toChromeTrace(analysis::Report{});
  requireValidTrace(trace);
  CHECK(eventsOf(trace, "C").empty());
  CHECK(eventsOf(trace, "X").empty());
  CHECK(eventsOf(trace, "b").empty());
  CHECK(eventsOf(trace, "M").size() == 2);  // the process's name and sort index

  const json none = toChromeTrace(std::span<const analysis::Report>{});
  requireValidTrace(none);
  CHECK(none.at("traceEvents").empty());
  CHECK(json::parse(dumpChromeTrace(none)).at("traceEvents").empty());
}

TEST_CASE("a report gives a valid trace with metadata naming process and tracks",
          "[perfetto_export]") {
  const analysis::Report r = sampleReport();
  const json trace = toChromeTrace(r);
  requireValidTrace(trace);
  CHECK(trace.at("displayTimeUnit") == "ns");
  CHECK(trace.at("otherData").at("origin_ns") == std::to_string(kFirst));
  CHECK(trace.at("otherData").at("version") == std::string(report::toolVersion()));

  std::set<uint64_t> pids;
  for (const json& e : trace.at("traceEvents")) pids.insert(e.at("pid").get<uint64_t>());
  CHECK(pids == std::set<uint64_t>{4242});
  const auto meta = eventsOf(trace, "M");
  const auto name = std::find_if(meta.begin(), meta.end(),
                                 [](const json& e) { return e.at("name") == "process_name"; });
  REQUIRE(name != meta.end());
  CHECK(name->at("args").at("name") == "run.mftrace");
  CHECK(threadName(trace, 7) == "thread 7");
  CHECK(threadName(trace, 8) == "thread 8");
}

TEST_CASE("counters follow the timeline series", "[perfetto_export]") {
  const json trace = toChromeTrace(sampleReport());
  std::map<std::string, std::vector<std::pair<int64_t, uint64_t>>> tracks;
  for (const json& e : eventsOf(trace, "C")) {
    CHECK(e.at("cat") == "memory");
    CHECK(e.at("tid") == e.at("pid"));
    tracks[e.at("name")].push_back(
        {nanos(e.at("ts")), e.at("args").at("live_bytes").get<uint64_t>()});
  }
  REQUIRE(tracks.size() == 2);
  // Bucket 1 rises (min 0, last = max 1024): the min shows first, then the max. Bucket 2 ends at
  // 2048, farther from its max 4096 than from its min 1024: the max shows first, then the min,
  // then the last value. Bucket 3 holds one value, equal to the one before: left out.
  using Samples = std::vector<std::pair<int64_t, uint64_t>>;
  CHECK(tracks.at("GPU 0 device memory") ==
        Samples{{0, 0}, {500, 1024}, {3000, 4096}, {3500, 1024}, {3999, 2048}});
  CHECK(tracks.at("GPU 0 pinned memory") == Samples{{1000, 0}, {1500, 512}});

  // Every sample lies within its bucket and the series' values are all there.
  for (const analysis::TimelineSeries& series : sampleReport().timeline) {
    const auto& samples = tracks.at(
        fmt::format("GPU {} {} memory", series.key.device, trace::toString(series.key.kind)));
    for (const analysis::TimelinePoint& p : series.points) {
      const int64_t from = static_cast<int64_t>(p.start_ns - kFirst);
      const int64_t to = from + static_cast<int64_t>(series.bucket_ns);
      uint64_t lo = UINT64_MAX, hi = 0;
      for (const auto& [ns, value] : samples) {
        if (ns >= from && ns < to) lo = std::min(lo, value), hi = std::max(hi, value);
      }
      if (lo != UINT64_MAX) {
        CHECK(lo >= p.min);
        CHECK(hi <= p.max);
      }
    }
  }
}

TEST_CASE("fine buckets show each value exactly once", "[perfetto_export]") {
  analysis::Report r;
  r.first_ns = kFirst;
  r.end_ns = kFirst + 10;
  r.timeline = {analysis::TimelineSeries{kDevice0, 1, {}}};
  for (uint64_t i = 0; i < 10; ++i) {
    r.timeline[0].points.push_back({kFirst + i, i * 10, i * 10, i * 10});
  }
  const json trace = toChromeTrace(r);
  requireValidTrace(trace);
  const auto counters = eventsOf(trace, "C");
  REQUIRE(counters.size() == 10);
  for (uint64_t i = 0; i < 10; ++i) {
    CHECK(nanos(counters[i].at("ts")) == static_cast<int64_t>(i));
    CHECK(counters[i].at("args").at("live_bytes") == i * 10);
  }
}

TEST_CASE("iterations and idle windows are complete slices on one track", "[perfetto_export]") {
  analysis::Report r = sampleReport();
  r.iterations.push_back(iteration(3, kFirst + 60'000, kFirst + 100'000, kFirst + 100'000));
  r.iterations.back().complete = false;
  const json trace = toChromeTrace(r);
  requireValidTrace(trace);

  std::vector<json> track;
  uint64_t tid = 0;
  for (const json& e : eventsOf(trace, "X")) {
    if (e.at("cat") == "iteration" || e.at("cat") == "idle") {
      track.push_back(e);
      tid = e.at("tid");
    }
  }
  CHECK(threadName(trace, tid) == "iterations");
  REQUIRE(track.size() == 5);  // the incomplete third iteration has no idle window
  using Span = std::tuple<std::string, int64_t, int64_t>;
  std::vector<Span> spans;
  for (const json& e : track) {
    CHECK(e.at("tid") == tid);
    const int64_t start = nanos(e.at("ts"));
    spans.emplace_back(e.at("name"), start, start + nanos(e.at("dur")));
  }
  CHECK(spans == std::vector<Span>{{"iteration 1", 1000, 20'001},
                                   {"idle window 1", 20'001, 30'001},
                                   {"iteration 2", 30'001, 50'003},
                                   {"idle window 2", 50'003, 60'000},
                                   {"iteration 3", 60'000, 100'000}});
  const json& idle = track[1].at("args");
  CHECK(idle.at("iteration") == 1);
  CHECK(idle.at("final") == false);
  CHECK(idle.at("memory").at(0).at("idle_floor") == 2048);
  CHECK(idle.at("memory").at(0).at("leak") == 2048);
  CHECK(idle.at("memory").at(0).at("kind") == "device");
  CHECK(idle.at("top_sites").at(0).at("where") == "Layer::forward");
  CHECK(idle.at("top_sites").at(0).at("class") == "leak");
  CHECK(track[3].at("args").at("final") == true);
  CHECK(track[4].at("args").at("complete") == false);
  CHECK(track[0].at("args").at("memory").at(0).at("peak") == 4096);
}

TEST_CASE("push/pop ranges nest on their thread, start/end ranges are async slices",
          "[perfetto_export]") {
  const json trace = toChromeTrace(sampleReport());
  requireValidTrace(trace);  // nesting, per thread, with ends that coincide

  std::vector<std::string> thread7;
  for (const json& e : eventsOf(trace, "X")) {
    if (e.at("cat") != "marker") continue;
    CHECK(e.at("tid") == 7);
    thread7.push_back(e.at("name"));
  }
  // Parents come before the ranges they hold, also when both start at the same time.
  CHECK(thread7 ==
        std::vector<std::string>{"iteration 1", "forward", "backward", "allreduce", "iteration 2"});

  const auto begins = eventsOf(trace, "b");
  const auto ends = eventsOf(trace, "e");
  REQUIRE(begins.size() == 2);
  REQUIRE(ends.size() == 2);
  CHECK(begins[0].at("id") != begins[1].at("id"));
  CHECK(begins[0].at("tid") == 8);
  CHECK(begins[1].at("tid") == 9);
  CHECK(nanos(begins[0].at("ts")) == 5'000);
  CHECK(nanos(ends[0].at("ts")) == 35'000);
}

TEST_CASE("timestamps keep nanosecond precision", "[perfetto_export]") {
  std::mt19937_64 rng(6);
  analysis::Report r;
  r.first_ns = kFirst;
  std::vector<uint64_t> offsets{0, 1, 999, 1001, 3001, 123'456'789, 86'400'000'000'001};
  for (int i = 0; i < 2000; ++i) offsets.push_back(rng() % (uint64_t{1} << 50));
  for (uint64_t off : offsets) {
    const uint64_t len = rng() % 100'000'000;
    r.ranges.push_back({"r", 1, kFirst + off, kFirst + off + len, false});
  }
  r.end_ns = kFirst + (uint64_t{1} << 51);
  const json trace = toChromeTrace(r);
  requireValidTrace(trace);
  const json parsed = json::parse(dumpChromeTrace(trace));
  const auto begins = eventsOf(parsed, "b");
  const auto ends = eventsOf(parsed, "e");
  REQUIRE(begins.size() == r.ranges.size());
  for (size_t i = 0; i < r.ranges.size(); ++i) {
    CHECK(nanos(begins[i].at("ts")) == static_cast<int64_t>(r.ranges[i].start_ns - kFirst));
    CHECK(nanos(ends[i].at("ts")) == static_cast<int64_t>(r.ranges[i].end_ns - kFirst));
    // and for viewers that round instead of truncating
    CHECK(std::llround(ends[i].at("ts").get<double>() * 1000.0) ==
          static_cast<int64_t>(r.ranges[i].end_ns - kFirst));
  }

  // A slice's ts + dur lands on its end exactly, so ranges ending together nest.
  analysis::Report nested;
  nested.first_ns = kFirst;
  for (uint64_t off : offsets) {
    nested.ranges.push_back({"outer", 1, kFirst + off, kFirst + off + 3001, true});
    nested.ranges.push_back({"inner", 1, kFirst + off + 1000, kFirst + off + 3001, true});
  }
  const json slices = toChromeTrace(nested);
  for (const json& e : eventsOf(slices, "X")) {
    const int64_t start = nanos(e.at("ts"));
    const int64_t end = start + nanos(e.at("dur"));
    CHECK(end - start == (e.at("name") == "outer" ? 3001 : 2001));
  }
}

TEST_CASE("hostile names survive JSON", "[perfetto_export]") {
  const std::vector<std::string> names{
      "quote \" backslash \\ slash /",
      "newline\n tab\t return\r",
      std::string("nul \0 inside", 12),
      "control \x01\x1f\x7f",
      "</script><script>alert(1)</script>",
      "{\"ph\":\"X\",\"name\":\"injected\"}",
      "unicode \xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x94\xa5",
      "",
  };
  analysis::Report r;
  r.first_ns = kFirst;
  r.process.present = true;
  r.process.pid = 10;
  r.process.command_line = names[0] + names[1];
  r.input.path = "dir/" + names[6] + names[3];
  for (size_t i = 0; i < names.size(); ++i) {
    r.ranges.push_back({names[i], 1, kFirst + i * 10, kFirst + i * 10 + 5, i % 2 == 0});
  }
  analysis::IterationRow row = iteration(1, kFirst, kFirst + 100, kFirst + 200);
  row.name = names[5];
  r.iterations.push_back(row);

  const json trace = toChromeTrace(r);
  requireValidTrace(trace);
  const std::string text = dumpChromeTrace(trace);
  CHECK(text.find("</script>") != std::string::npos);  // escaping for HTML is not JSON's job
  CHECK(text.find('\n') == std::string::npos);
  const json parsed = json::parse(text);
  std::multiset<std::string> seen;
  for (const json& e : parsed.at("traceEvents")) {
    if (e.at("cat") == "marker") seen.insert(e.at("name").get<std::string>());
  }
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(i);
    CHECK(seen.count(names[i]) >= 1);
  }
  CHECK(eventsOf(parsed, "X").at(0).at("name") == names[5]);  // the iteration
  CHECK(eventsOf(parsed, "X").at(0).at("cat") == "iteration");
  CHECK(eventsOf(parsed, "M").at(0).at("args").at("name") == names[6] + names[3]);

  // Names are bytes from a trace: invalid UTF-8 is replaced, not refused.
  analysis::Report bad;
  bad.ranges.push_back({"bad \xff\xfe utf-8 \xc3", 1, 0, 1, true});
  const json bad_trace = toChromeTrace(bad);
  const json bad_parsed = json::parse(dumpChromeTrace(bad_trace));
  CHECK(eventsOf(bad_parsed, "X").at(0).at("name") ==
        "bad \xef\xbf\xbd\xef\xbf\xbd utf-8 \xef\xbf\xbd");
}

TEST_CASE("several runs are one process each, on one clock", "[perfetto_export]") {
  std::vector<analysis::Report> runs(3, sampleReport());
  runs[0].process.rank = 1;
  runs[1].process.rank = 0;
  runs[1].first_ns = kFirst - 5000;  // started earlier: the origin
  runs[2].process.present = false;
  const json trace = toChromeTrace(runs);
  requireValidTrace(trace);
  CHECK(trace.at("otherData").at("origin_ns") == std::to_string(kFirst - 5000));
  std::set<uint64_t> pids;
  std::map<uint64_t, std::string> names;
  for (const json& e : eventsOf(trace, "M")) {
    pids.insert(e.at("pid").get<uint64_t>());
    if (e.at("name") == "process_name") names[e.at("pid")] = e.at("args").at("name");
  }
  CHECK(pids.size() == 3);  // the same pid twice, and none, each get a pid of their own
  CHECK(names.at(4242) == "rank 1");
  CHECK(std::count_if(names.begin(), names.end(),
                      [](const auto& n) { return n.second == "rank 0"; }) == 1);
  // Run 0's first counter sample is at its own first record, 5 µs after the origin.
  for (const json& e : eventsOf(trace, "C")) {
    if (e.at("pid") == 4242) {
      CHECK(nanos(e.at("ts")) == 5000);
      break;
    }
  }
}

TEST_CASE("thread ids that viewers cannot hold are renumbered", "[perfetto_export]") {
  analysis::Report r;
  r.first_ns = kFirst;
  r.iterations.push_back(iteration(1, kFirst, kFirst + 100, kFirst + 200));
  r.ranges = {{"a", uint64_t{1} << 40, kFirst, kFirst + 10, true},
              {"b", 0x7fff0000, kFirst, kFirst + 10, true},
              {"c", 3, kFirst, kFirst + 10, true}};
  const json trace = toChromeTrace(r);
  requireValidTrace(trace);
  std::set<uint64_t> tids;
  for (const json& e : eventsOf(trace, "X")) tids.insert(e.at("tid").get<uint64_t>());
  CHECK(tids.size() == 4);  // the iterations' track and three threads
  CHECK(tids.count(3) == 1);
  bool named = false;
  for (uint64_t tid : tids) named = named || threadName(trace, tid) == "thread 1099511627776";
  CHECK(named);
}
TEST_CASE("a census is an instant on the iterations' track; its window lists the first holders",
          "[perfetto_export]") {
  // A PyTorch run recorded on an H200: censuses after steps 2, 4 and 8 (testdata/analysis).
  const analysis::Report report = analysis::test::analyzeFile(std::string(MEMFLOOR_TESTDATA_DIR) +
                                                              "/analysis/torch_holders_graph.txt");
  const json trace = toChromeTrace(report);
  std::vector<json> censuses;
  json last_window;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("cat") == "census") censuses.push_back(e);
    if (e.at("cat") == "idle" && !e.at("args").at("held_by").empty()) last_window = e;
  }
  REQUIRE(censuses.size() == 3);
  for (const json& c : censuses) {
    CHECK(c.at("ph") == "i");
    CHECK(c.at("s") == "t");
    CHECK(c.at("tid") == 0x7fff0000);  // the iterations' track
  }
  CHECK(censuses.back().at("args").at("step") == 8);
  REQUIRE(last_window.is_object());
  const json& held = last_window.at("args").at("held_by").at(0);
  CHECK(held.at("allocated") ==
        held.at("held").get<uint64_t>() + held.at("not_seen").get<uint64_t>());
  CHECK(held.at("holders").size() == 5);
  CHECK(held.at("holders").at(0).at("path") ==
        "holders.py:main.model.layers[0].mlp_norm_manager.tensor");
  CHECK(held.at("holders").at(0).at("class") == "inter_iteration");
}

}  // namespace
}  // namespace memfloor::reports::test

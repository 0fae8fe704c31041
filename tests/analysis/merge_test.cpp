// Tests of the merge path: downsampled timelines, symbol resolution, links from findings to
// retained bytes, steady floors, several runs in one report, and the findings reader.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/findings.h"
#include "analysis/live_series.h"
#include "analysis/merged_report.h"
#include "analysis/site_links.h"
#include "checked_analysis.h"
#include "common/error.h"
#include "report/report_json.h"
#include "scenarios.h"
#include "symbols/elf_build_id.h"
#include "symbols/llvm_symbolizer.h"
#include "symbols/trace_symbolize.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/source.h"
#include "trace/writer.h"

namespace memfloor::analysis::test {
namespace {

TEST_CASE("LiveSeries keeps every value while under its limit", "[merge]") {
  LiveSeries series(16);
  series.record(0, 10);
  series.record(500, 30);   // same 1 µs bucket
  series.record(2500, 20);  // bucket 2
  TimelineSeries s = series.finish({});
  REQUIRE(s.points.size() == 2);
  CHECK(s.bucket_ns == 1000);
  CHECK(s.points[0] == TimelinePoint{0, 10, 30, 30});
  CHECK(s.points[1] == TimelinePoint{2000, 20, 30, 20});  // 30 carried in from the bucket before
}

TEST_CASE("LiveSeries: rises and falls give what record gives", "[merge]") {
  // The replay tells the series which way live bytes moved; a random walk over a small limit
  // (so buckets coarsen many times) must give the same points as the general form.
  LiveSeries general(32), directed(32);
  uint64_t live = 1u << 30;
  uint64_t state = 12345;
  for (uint64_t t = 0; t < 200000; t += 1 + state % 3000) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t step = (state >> 33) % 4096;
    const bool rise = (state >> 20) & 1;
    live = rise ? live + step : live - step;
    general.record(t, live);
    rise ? directed.recordRise(t, live) : directed.recordFall(t, live);
  }
  const TimelineSeries a = general.finish({});
  const TimelineSeries b = directed.finish({});
  CHECK(a.bucket_ns > 1000);
  CHECK(a.bucket_ns == b.bucket_ns);
  CHECK(a.points == b.points);
}

TEST_CASE("LiveSeries: a bucket whose end wraps past 2^64 takes the rest", "[merge]") {
  LiveSeries series(16);
  series.record(UINT64_MAX - 10, 5);
  series.record(UINT64_MAX - 5, 9);
  series.recordFall(UINT64_MAX - 2, 3);
  const TimelineSeries s = series.finish({});
  REQUIRE(s.points.size() == 1);
  CHECK(s.points[0].min == 3);
  CHECK(s.points[0].max == 9);
  CHECK(s.points[0].last == 3);
}

TEST_CASE("LiveSeries stays within its limit and keeps the extremes", "[merge]") {
  LiveSeries series(64);
  uint64_t lowest = UINT64_MAX, highest = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    uint64_t live = (i * 7919) % 1000 + (i == 54321 ? 5000 : 0);
    series.record(i * 1000, live);
    lowest = std::min(lowest, live);
    highest = std::max(highest, live);
  }
  TimelineSeries s = series.finish({});
  CHECK(s.points.size() <= 64);
  CHECK(s.points.size() > 16);
  uint64_t min = UINT64_MAX, max = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    min = std::min(min, s.points[i].min);
    max = std::max(max, s.points[i].max);
    if (i > 0) CHECK(s.points[i].start_ns > s.points[i - 1].start_ns);
  }
  CHECK(min == lowest);
  CHECK(max == highest);
  CHECK(s.points.back().last == (99999 * 7919) % 1000);
}

TEST_CASE("functionMatches compares trailing components", "[merge]") {
  CHECK(functionMatches("refmodel::Layer::forward(int)", "Layer::forward"));
  CHECK(functionMatches("refmodel::Layer::forward(int)", "Layer::*"));
  CHECK(functionMatches("refmodel::Layer::forward(int)", "refmodel::Layer::forward"));
  CHECK_FALSE(functionMatches("refmodel::MyLayer::forward(int)", "Layer::forward"));
  CHECK_FALSE(functionMatches("refmodel::Layer::forward(int)", "Other::*"));
  CHECK_FALSE(functionMatches("forward(int)", "Layer::forward"));
  CHECK(linkRuleFor("A::B::m").functions == std::vector<std::string>{"A::B::m", "A::B::*"});
  CHECK(linkRuleFor("free_function").functions == std::vector<std::string>{"free_function"});
}

TEST_CASE("Python findings link frames of their own file by qualified name", "[merge]") {
  const LinkRule rule = linkRuleFor("HyperLayer._forward_post_mlp", "megatron/layer.py");
  CHECK(rule.functions == std::vector<std::string>{"HyperLayer._forward_post_mlp", "HyperLayer.*"});
  CHECK(rule.file == "megatron/layer.py");
  CHECK(functionMatches("HyperLayer._forward_post_mlp", "HyperLayer._forward_post_mlp"));
  CHECK(functionMatches("HyperLayer.forward", "HyperLayer.*"));
  CHECK_FALSE(functionMatches("OtherLayer.forward", "HyperLayer.*"));
  CHECK_FALSE(functionMatches("HyperLayerX.forward", "HyperLayer.*"));
  CHECK(sameSource("/opt/src/megatron/layer.py", "megatron/layer.py"));
  CHECK(sameSource("megatron/layer.py", "megatron/layer.py"));
  CHECK_FALSE(sameSource("/opt/src/other_megatron/layer.py", "megatron/layer.py"));
  symbols::Stack stack;
  stack.frames.push_back(
      {trace::FrameKind::kPython, "", 0, "HyperLayer.forward", "/opt/src/megatron/layer.py", 7});
  CHECK(linkStack(stack, {rule}) == std::vector<uint32_t>{0});
  stack.frames.back().file = "/opt/src/copy/layer2.py";
  CHECK(linkStack(stack, {rule}).empty());
  CHECK(linkRuleFor("Layer::forward", "layer.cpp").file.empty());
}

TEST_CASE("findings explain the retained bytes of the sites they link", "[merge]") {
  Loop loop = trainingLoop({.iterations = 5, .retained = 8 * kMiB, .leak = 1 * kMiB});
  AnalysisOptions options;
  options.links = {{{"Layer::forwardPostMlp"}, ""}, {{"Unrelated::*"}, ""}, {{"History::*"}, ""}};
  Report r = analyze(loop.trace, options);
  REQUIRE(r.iterations.size() == 5);
  for (size_t i = 0; i + 1 < r.iterations.size(); ++i) {
    const IterationMemory::Idle& idle = r.iterations[i].memory[0].idle;
    CHECK(idle.explained.bytes == 8 * kMiB + (i + 1) * kMiB);  // the buffer and the leaks so far
    CHECK(report::unexplained(idle).bytes == 0);
  }
  std::map<uint32_t, uint64_t> by_finding;  // in the window after iteration 2
  for (const Explained& e : r.explained) {
    if (e.iteration <= 2 && 2 <= e.last_iteration) by_finding[e.finding] += e.retained.bytes;
  }
  CHECK(by_finding == std::map<uint32_t, uint64_t>{{0, 8 * kMiB}, {2, 2 * kMiB}});
  bool linked_site = false;
  for (const RetainedSite& s : r.iterations[1].top_sites) {
    if (s.stack == loop.retained_site) {
      CHECK(s.findings == std::vector<uint32_t>{0});
      linked_site = true;
    }
    if (s.stack == loop.weights_site) CHECK(s.findings.empty());
  }
  CHECK(linked_site);
}

TEST_CASE("without findings nothing is explained and everything counted is unexplained",
          "[merge]") {
  Report r = analyze(trainingLoop().trace);
  const IterationMemory::Idle& idle = r.iterations[1].memory[0].idle;
  CHECK(idle.explained.bytes == 0);
  CHECK(report::unexplained(idle).bytes == 8 * kMiB);
  CHECK(r.explained.empty());
}

TEST_CASE("the steady idle floor skips warm-up and the final window", "[merge]") {
  Loop loop = trainingLoop({.iterations = 5, .retained = 8 * kMiB, .leak = 1 * kMiB});
  Report r = analyze(loop.trace, {.warmup_iterations = 1});
  REQUIRE(r.steady.size() == 1);
  CHECK(r.steady[0].iteration == 4);  // the leak makes the last steady window the largest
  CHECK(r.steady[0].idle_floor == r.iterations[3].memory[0].idle.floor);
  REQUIRE(r.timeline.size() == 1);
  CHECK_FALSE(r.timeline[0].points.empty());
}

Report runWithRank(int32_t rank, const std::string& path, uint64_t retained) {
  Loop loop = trainingLoop({.iterations = 3, .retained = retained});
  Report r = analyze(loop.trace);
  r.process.rank = rank;
  r.input.path = path;
  return r;
}

TEST_CASE("several runs: ordered by rank, labelled, the worst named", "[merge]") {
  MergedReport m =
      merge({runWithRank(-1, "/x/c.mftrace", 1 * kMiB), runWithRank(1, "/x/b.mftrace", 16 * kMiB),
             runWithRank(0, "/x/a.mftrace", 2 * kMiB)});
  REQUIRE(m.labels == std::vector<std::string>{"rank 0", "rank 1", "c.mftrace"});
  REQUIRE(m.worst);
  CHECK(m.worst->run == 1);
  CHECK(m.worst->idle_floor == 64 * kMiB + 16 * kMiB);
  nlohmann::json j = report::toJson(m);
  CHECK(j.at("summary").at("worst").at("label") == "rank 1");
  CHECK(j.at("runs").size() == 3);
  CHECK(j.at("runs")[2].at("label") == "c.mftrace");
}

TEST_CASE("a report without idle windows has no worst run", "[merge]") {
  TraceBuilder t;
  t.alloc(10, 0x1000, 100);
  MergedReport m = merge({analyze(t)});
  CHECK_FALSE(m.worst);
  CHECK(report::toJson(m).at("summary").at("worst").is_null());
}

const char* kFindings = R"({"schema": "memfloor.findings/1", "findings": [
  {"rule": "MF001", "message": "m", "location": {"file": "src/layer.cpp", "line": 3, "column": 5},
   "related": [], "function": "Layer::forwardPostMlp", "field": "keep_", "fixits": [],
   "fingerprint": "00112233aabbccdd"}], "errors": ["bad.cpp: not checked"]})";

TEST_CASE("parseFindings reads the checker's document", "[merge]") {
  FindingsFile f = parseFindings(kFindings, "f.json");
  REQUIRE(f.items.size() == 1);
  CHECK(f.items[0].rule == "MF001");
  CHECK(f.items[0].line == 3);
  CHECK(f.items[0].link.functions.size() == 2);
  CHECK(f.errors == std::vector<std::string>{"bad.cpp: not checked"});
}

TEST_CASE("parseFindings names the file and the problem", "[merge]") {
  auto fails = [](const std::string& text, const std::string& what) {
    try {
      parseFindings(text, "f.json");
      FAIL("no error for " << text);
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("f.json") && Catch::Contains(what));
    }
  };
  fails("{", "not a JSON document");
  fails("[]", "not an object");
  fails(R"({"schema": "memfloor.report/2"})", "not a findings document");
  fails(R"({"schema": "memfloor.findings/9", "findings": []})", "not supported");
  fails(R"({"schema": "memfloor.findings/1"})", "f.json: findings: missing");
  fails(R"({"schema": "memfloor.findings/1", "findings": [{"rule": 1}]})",
        "f.json: findings[0].rule: expected a string");
  fails(R"({"schema": "memfloor.findings/1", "findings": [7]})",
        "f.json: findings[0]: expected an object");
  fails(R"({"schema": "memfloor.findings/1", "findings": [{"rule": "MF001", "message": "",
        "function": "f", "field": "x", "fingerprint": "1", "location": {"file": "a", "line": -1}}]})",
        "f.json: findings[0].location.line: expected an unsigned integer");
}

TEST_CASE("loadFindings reads snippets around each finding", "[merge]") {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("memfloor_findings_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "src");
  std::ofstream(dir / "src" / "layer.cpp") << "a\nb\nc\nd\ne\nf\ng\nh\n";
  std::ofstream(dir / "f.json") << kFindings;
  FindingsFile f = loadFindings((dir / "f.json").string(), dir.string());
  REQUIRE(f.items[0].snippet);
  CHECK(f.items[0].snippet->first_line == 1);
  CHECK(f.items[0].snippet->lines == std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  FindingsFile elsewhere = loadFindings((dir / "f.json").string(), (dir / "nowhere").string());
  CHECK_FALSE(elsewhere.items[0].snippet);
  CHECK_THROWS_AS(loadFindings((dir / "missing.json").string(), "."), Error);
  fs::remove_all(dir);
}

TEST_CASE("loadFindings reads no source outside the source root", "[merge]") {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("memfloor_findings_root_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "root");
  std::ofstream(dir / "secret.cpp") << "a\nsecret\nc\n";
  std::ofstream(dir / "root" / "in.cpp") << "a\ninside\nc\n";
  fs::create_symlink(dir / "secret.cpp", dir / "root" / "link.cpp");
  auto findings = [&](const std::string& file) {
    const std::string path = (dir / "f.json").string();
    std::string doc = kFindings;
    doc.replace(doc.find("src/layer.cpp"), std::string("src/layer.cpp").size(), file);
    std::ofstream(path) << doc;
    return loadFindings(path, (dir / "root").string());
  };
  const FindingsFile inside = findings("in.cpp");
  REQUIRE(inside.items[0].snippet);
  CHECK(inside.items[0].snippet->lines.at(1) == "inside");
  CHECK(inside.warnings.empty());
  for (const std::string& outside :
       {(dir / "secret.cpp").string(), std::string("../secret.cpp"), std::string("link.cpp")}) {
    INFO(outside);
    const FindingsFile f = findings(outside);
    CHECK_FALSE(f.items[0].snippet);
    REQUIRE(f.warnings.size() == 1);
    CHECK_THAT(f.warnings[0], Catch::Contains("finding 1: " + outside +
                                              ": not under the source "
                                              "root"));
  }
  fs::remove_all(dir);
}

TEST_CASE("elfBuildId reads this test's own build id and rejects other bytes", "[merge]") {
  std::string id = symbols::elfBuildIdOfFile("/proc/self/exe");
  CHECK(id.size() >= 16);
  CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
  std::string junk =
      "\x7f"
      "ELF not really an ELF file at all, just bytes";
  auto reader = [&junk](uint64_t offset, size_t size, std::string& out) {
    if (offset > junk.size() || size > junk.size() - offset) return false;
    out = junk.substr(offset, size);
    return true;
  };
  CHECK(symbols::elfBuildId(reader).empty());
  CHECK(symbols::elfBuildIdOfFile("/nonexistent").empty());
}

TEST_CASE("parseSymbolizerJson reads inlined chains and tolerates junk", "[merge]") {
  std::string out =
      R"j({"Address":"0x1","Symbol":[{"FunctionName":"inner()","FileName":"a.h","Line":3},)j"
      R"j({"FunctionName":"outer()","FileName":"b.cpp","Line":9}]})j"
      "\nnot json\n"
      R"j({"Address":"0x3","Symbol":[{"FunctionName":"??","FileName":"??","Line":0}]})j"
      "\n";
  auto chains = symbols::parseSymbolizerJson(out, 4);
  REQUIRE(chains.size() == 4);
  REQUIRE(chains[0].size() == 2);
  CHECK(chains[0][0].function == "inner()");
  CHECK(chains[0][1].line == 9);
  CHECK(chains[1].empty());
  CHECK(chains[2].empty());
  CHECK(chains[3].empty());
}

// Resolves every offset of "libtrain.so" to an inlined pair.
class FakeResolver : public symbols::FrameResolver {
 public:
  std::vector<std::vector<symbols::SourceLocation>> resolve(
      std::string_view module, std::string_view, const std::vector<uint64_t>& offsets) override {
    std::vector<std::vector<symbols::SourceLocation>> out(offsets.size());
    if (module != "libtrain.so") return out;
    for (size_t i = 0; i < offsets.size(); ++i) {
      out[i] = {{"inlined" + std::to_string(offsets[i]), "x.h", 1},
                {"Caller::at" + std::to_string(offsets[i]), "x.cpp", 2}};
    }
    return out;
  }
};

TEST_CASE("symbols resolve through a resolver, inlined frames expanded", "[merge]") {
  TraceBuilder t;
  trace::StackId id = t.stack({{"", "", 0, "libtrain.so", 0x10}, {"", "", 0, "other.so", 0x20}});
  symbols::Symbols symbols;
  for (const trace::Record& r : t.records()) {
    std::visit(
        [&](const auto& d) {
          if constexpr (requires { symbols.add(d); }) symbols.add(d);
        },
        r);
  }
  FakeResolver resolver;
  symbols.resolve(resolver);
  symbols::Stack s = symbols.stack(id);
  REQUIRE(s.frames.size() == 3);
  CHECK(s.frames[0].function == "inlined16");
  CHECK(s.frames[1].function == "Caller::at16");
  CHECK(s.frames[2].function.empty());
  CHECK(symbols.siteNames({id}, symbols::SiteNamer()).at(id) == "x.h:1 in inlined16");
}

TEST_CASE("symbolizeTrace writes resolved frames that read back the same stacks", "[merge]") {
  Loop loop = trainingLoop();
  TraceBuilder& t = loop.trace;
  trace::StackId raw = t.stack({{"", "", 0, "libtrain.so", 0x40}});
  t.alloc(5000, 0x90000000, 4096, {.stack = raw});
  trace::MemorySink in_sink;
  trace::Writer in_writer(in_sink);
  REQUIRE(in_writer.begin());
  for (const trace::Record& r : t.records()) REQUIRE(in_writer.write(r));
  REQUIRE(in_writer.finish(6000));

  trace::MemorySource in(in_sink.bytes(), "in");
  trace::MemorySink out_sink;
  trace::Writer out(out_sink);
  REQUIRE(out.begin());
  FakeResolver resolver;
  symbols::SymbolizeStats stats = symbols::symbolizeTrace(in, out, resolver);
  CHECK(stats.frames == 1);
  CHECK(stats.resolved == 1);

  Report r = analyzeBytes(out_sink.bytes(), "out");
  CHECK(r.input.complete);
  Report original = analyze(t);
  CHECK(r.records.allocs == original.records.allocs);
  CHECK(r.memory[0].peak == original.memory[0].peak);
}

}  // namespace
}  // namespace memfloor::analysis::test

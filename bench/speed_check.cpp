// memfloor-speed-check: the analysis' speed against a fixed reference loop on the same machine, in
// one process, compared with a committed figure; CI fails it at a 25% drop.
//
// A time alone says more about the machine than about the code (the shared build machine's speed
// drifts by 20% between runs), so this compares two times taken back to back: the whole analysis
// of a trace held in memory (read, decode, merge, replay, the report built), and a reference loop
// that does not change with memfloor: a plain replay of the same events, decoded once beforehand,
// pairing frees with allocations in a std::unordered_map. Both are timed in this thread's CPU
// time, interleaved over several rounds; the median of the rounds' ratios (analysis / reference)
// is the figure. The committed figure (bench/speed_figures.txt: a name and a ratio per line)
// was measured the same way; a ratio above it / (1 - 0.25) fails.
//
// Usage: memfloor-speed-check TRACE NAME FIGURES [--rounds N] [--print]
// --print only prints the measured ratio (to update the committed figure).
#include <fmt/core.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analyze_traces.h"
#include "trace/reader.h"
#include "trace/source.h"

namespace {

using namespace memfloor;

constexpr double kAllowedDrop = 0.25;

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string s = bytes.str();
  return {s.begin(), s.end()};
}

// The reference: a naive replay of decoded events, nothing of memfloor's analysis in it.
uint64_t referenceLoop(const std::vector<trace::Event>& events) {
  std::unordered_map<uint64_t, uint64_t> live;
  live.reserve(1024);
  uint64_t bytes = 0, peak = 0;
  for (const trace::Event& e : events) {
    const uint64_t key = e.address ^ (uint64_t{e.device} << 56) ^ (uint64_t{e.kind} << 48);
    if (e.type == trace::EventType::kAlloc) {
      live[key] = e.size;
      bytes += e.size;
      peak = std::max(peak, bytes);
    } else if (e.type == trace::EventType::kFree) {
      auto it = live.find(key);
      if (it != live.end()) {
        bytes -= it->second;
        live.erase(it);
      }
    }
  }
  return peak + live.size();
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path, name, figures_path;
  int rounds = 9;
  bool print = false;
  CLI::App app{"memfloor-speed-check: the analysis' speed against a reference loop"};
  app.add_option("trace", trace_path, "trace to analyse")->required();
  app.add_option("name", name, "its figure's name in FIGURES")->required();
  app.add_option("figures", figures_path, "committed figures: NAME RATIO per line")->required();
  app.add_option("--rounds", rounds, "interleaved rounds (the median ratio counts)");
  app.add_flag("--print", print, "print the measured ratio only; compare nothing");
  CLI11_PARSE(app, argc, argv);

  try {
    const std::vector<uint8_t> bytes = readFile(trace_path);
    const trace::MemorySource source(bytes, trace_path);
    std::vector<trace::Event> events;
    {
      trace::TimeOrderReader reader(source);
      trace::TimeOrderReader::Batch batch;
      while (reader.nextBatch(batch)) {
        for (const trace::Event* e : batch.events) events.push_back(*e);
      }
    }
    analysis::AnalysisOptions options;
    std::vector<double> ratios;
    uint64_t sink = 0;
    for (int r = 0; r < rounds; ++r) {
      double t0 = cpuSeconds();
      const analysis::Report report = analysis::analyzeTrace(source, options);
      double t1 = cpuSeconds();
      sink += referenceLoop(events);
      double t2 = cpuSeconds();
      sink += report.records.total;
      ratios.push_back((t1 - t0) / (t2 - t1));
      fmt::print("round {}: analysis {:.4f} s, reference {:.4f} s, ratio {:.3f}\n", r + 1, t1 - t0,
                 t2 - t1, ratios.back());
    }
    std::sort(ratios.begin(), ratios.end());
    const double ratio = ratios[ratios.size() / 2];
    volatile uint64_t kept = sink;  // the loops' results are used: neither is optimized away
    (void)kept;
    fmt::print("{}: {} events, median ratio {:.3f} (analysis / reference)\n", name, events.size(),
               ratio);
    if (print) return 0;

    std::ifstream figures(figures_path);
    std::string line;
    while (std::getline(figures, line)) {
      std::istringstream fields(line);
      std::string key;
      double committed = 0;
      if (!(fields >> key >> committed) || key != name) continue;
      const double limit = committed / (1 - kAllowedDrop);
      fmt::print("{}: committed {:.3f}, limit {:.3f}: {}\n", name, committed, limit,
                 ratio <= limit ? "ok" : "SLOWER");
      if (ratio > limit) {
        fmt::print(stderr,
                   "memfloor-speed-check: error: {}: the analysis took {:.2f}x its reference's "
                   "time, more than {:.0f}% over the committed {:.2f}x ({})\n",
                   name, ratio, 100 * (1 / (1 - kAllowedDrop) - 1), committed, figures_path);
        return 1;
      }
      return 0;
    }
    fmt::print(stderr, "memfloor-speed-check: error: {}: no figure named '{}'\n", figures_path,
               name);
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "memfloor-speed-check: error: {}\n", e.what());
    return 2;
  }
}

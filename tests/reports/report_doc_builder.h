// Builders for small memfloor.report/3 documents (JSON), for the tests of readers of report.json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memfloor::testing {

// One device and memory kind of a run: what the gate compares, and the steady window's sites.
struct MemorySpec {
  uint32_t device = 0;
  std::string kind = "device";
  uint64_t idle_floor = 0;
  uint64_t peak = 0;
  int64_t slope = 0;        // trend slope per iteration
  bool trend_known = true;  // false: verdict "unknown" (fewer than 3 windows fitted)
  std::vector<std::pair<std::string, uint64_t>> sites;  // `where`, bytes
  // With them, every iteration's memory has a peak_composition: iteration 2 has the largest peak
  // (`peak`) with these sites (`where`, bytes made in it); the others half of it, and a decoy.
  std::optional<std::vector<std::pair<std::string, uint64_t>>> peak_sites;
};

inline nlohmann::json tally(uint64_t bytes, uint64_t count) {
  return {{"bytes", bytes}, {"count", count}};
}

// A peak tally (or a peak's site) of `bytes` made in the iteration, in one allocation.
inline nlohmann::json peakTally(uint64_t bytes) {
  nlohmann::json j = tally(bytes, 1);
  j["iteration"] = tally(bytes, 1);
  for (const char* c : {"earlier_iteration", "inter_iteration", "leak", "persistent"}) {
    j[c] = tally(0, 0);
  }
  return j;
}

// Iteration `index`'s peak_composition of MemorySpec::peak_sites (see there).
inline nlohmann::json peakComposition(const MemorySpec& m, uint32_t index, uint64_t peak) {
  constexpr uint32_t kLargest = 2;
  nlohmann::json sites = nlohmann::json::array();
  std::vector<std::pair<std::string, uint64_t>> listed = *m.peak_sites;
  if (index != kLargest) listed = {{"decoy (not the largest peak)", peak}};
  for (const auto& [where, bytes] : listed) {
    nlohmann::json site = peakTally(bytes);
    site["stack"] = 1;
    site["where"] = where;
    site["class"] = "iteration";
    sites.push_back(std::move(site));
  }
  nlohmann::json j = peakTally(peak);
  j["at_ns"] = index * 1000 + 100;
  j["sites"] = std::move(sites);
  return j;
}

// A run of 4 iterations whose steady window is the one after iteration 3: its top_sites hold
// `sites`; iteration 1 lists a decoy site that readers of the steady window must not see.
inline nlohmann::json makeRun(const std::string& label, const std::vector<MemorySpec>& memories) {
  using nlohmann::json;
  constexpr uint32_t kSteady = 3;
  json memory = json::array(), steady = json::array(), trends = json::array();
  json iterations = json::array();
  for (uint32_t i = 1; i <= 4; ++i) {
    json row = {
        {"index", i},
        {"name", "iteration"},
        {"start_ns", i * 1000},
        {"end_ns", i * 1000 + 500},
        {"complete", true},
        {"warmup", false},
        {"idle", {{"start_ns", i * 1000 + 500}, {"end_ns", i * 1000 + 1000}, {"final", i == 4}}},
        {"memory", json::array()},
        {"top_sites", json::array()}};
    iterations.push_back(row);
  }
  for (const MemorySpec& m : memories) {
    memory.push_back({{"device", m.device},
                      {"kind", m.kind},
                      {"peak", m.peak},
                      {"peak_ns", 1200},
                      {"live_at_end", 0},
                      {"allocated", tally(m.peak, 1)},
                      {"freed", tally(m.peak, 1)}});
    steady.push_back({{"device", m.device},
                      {"kind", m.kind},
                      {"iteration", kSteady},
                      {"idle_floor", m.idle_floor}});
    trends.push_back({{"device", m.device},
                      {"kind", m.kind},
                      {"verdict", m.trend_known ? (m.slope > 0 ? "growing" : "stable") : "unknown"},
                      {"points", m.trend_known ? 3 : 1},
                      {"first_iteration", 1},
                      {"last_iteration", m.trend_known ? 3 : 1},
                      {"slope_bytes_per_iteration", m.slope},
                      {"growth_bytes", m.trend_known ? 2 * m.slope : 0},
                      {"threshold_bytes", 1 << 20},
                      {"first_floor", m.idle_floor},
                      {"last_floor", m.idle_floor}});
    for (json& row : iterations) {
      const uint32_t index = row.at("index").get<uint32_t>();
      const uint64_t peak = !m.peak_sites || index == 2 ? m.peak : m.peak / 2;
      row["memory"].push_back({{"device", m.device},
                               {"kind", m.kind},
                               {"live_at_start", 0},
                               {"live_at_end", m.idle_floor},
                               {"peak", peak},
                               {"floor", 0},
                               {"allocated", tally(0, 0)},
                               {"freed", tally(0, 0)},
                               {"idle",
                                {{"floor", m.idle_floor},
                                 {"peak", m.idle_floor},
                                 {"live_at_end", m.idle_floor},
                                 {"allocated", tally(0, 0)},
                                 {"freed", tally(0, 0)}}}});
      if (m.peak_sites) row["memory"].back()["peak_composition"] = peakComposition(m, index, peak);
    }
    for (const auto& [where, bytes] : m.sites) {
      iterations[kSteady - 1]["top_sites"].push_back({{"device", m.device},
                                                      {"kind", m.kind},
                                                      {"stack", 1},
                                                      {"where", where},
                                                      {"bytes", bytes},
                                                      {"count", 1},
                                                      {"inter_iteration", tally(bytes, 1)},
                                                      {"leak", tally(0, 0)},
                                                      {"persistent", tally(0, 0)},
                                                      {"class", "inter_iteration"},
                                                      {"findings", json::array()}});
    }
    iterations[0]["top_sites"].push_back({{"device", m.device},
                                          {"kind", m.kind},
                                          {"stack", 2},
                                          {"where", "decoy (iteration 1 only)"},
                                          {"bytes", uint64_t{1} << 40},
                                          {"count", 1}});
  }
  return {{"label", label},
          {"trace", {{"path", label + ".mftrace"}, {"complete", true}}},
          {"iteration_source", "markers"},
          {"warmup_iterations", 0},
          {"memory", memory},
          {"iterations", iterations},
          {"trend", {{"verdict", "stable"}, {"per_memory", trends}}},
          {"stacks", json::array()},
          {"timeline", json::array()},
          {"steady_idle_floor", steady}};
}

inline nlohmann::json makeFinding(const std::string& id, const std::string& rule,
                                  const std::string& file, uint32_t line,
                                  const std::string& message) {
  return {{"rule", rule},
          {"message", message},
          {"location", {{"file", file}, {"line", line}, {"column", 5}}},
          {"related", nlohmann::json::array()},
          {"function", "Layer::forward"},
          {"field", "kept_"},
          {"fingerprint", id},
          {"id", id},
          {"link_functions", nlohmann::json::array()},
          {"snippet", nullptr},
          {"explains", nlohmann::json::array()},
          {"max_explained_bytes", 0}};
}

inline nlohmann::json makeReport(std::vector<nlohmann::json> runs,
                                 std::vector<nlohmann::json> findings = {}) {
  using nlohmann::json;
  return {{"schema", "memfloor.report/3"},
          {"tool", {{"name", "memfloor"}, {"version", "0.1.0"}}},
          {"runs", runs},
          {"summary", {{"runs", runs.size()}, {"verdict", "stable"}, {"worst", nullptr}}},
          {"findings",
           {{"source", findings.empty() ? json(nullptr) : json("findings.json")},
            {"items", findings},
            {"errors", json::array()}}}};
}

// One run "rank 0", device memory only.
inline nlohmann::json oneRunReport(const MemorySpec& memory) {
  return makeReport({makeRun("rank 0", {memory})});
}

}  // namespace memfloor::testing

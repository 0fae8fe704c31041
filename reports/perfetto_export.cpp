// Chrome trace-event JSON from reports: live-bytes counters, iterations, idle windows and marker
// ranges, for Perfetto UI and chrome://tracing (docs/exports.md).
#include "reports/perfetto_export.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "report/levels.h"

namespace memfloor::reports {
namespace {

using nlohmann::json;

// The track (tid) of a run's iterations and idle windows: above every Linux thread id (pid_max is
// at most 2^22) and within int32, which some viewers read tids as.
constexpr uint64_t kIterationsTid = 0x7fff0000;
// Thread ids from kRenumberedTid up (hand-written traces) are renumbered upwards from it; the
// track's name keeps the original id.
constexpr uint64_t kRenumberedTid = 0x7ffe0000;
constexpr size_t kHoldersInArgs = 5;  // holders an idle window's slice lists

// Microseconds for a count of nanoseconds. The double is nudged up to the first one whose product
// with 1000 is not below ns: viewers that convert back with a truncating `ts * 1000` (Perfetto's
// JSON importer) then get the exact nanosecond, and `ts` plus `dur` ends where the range ends, so
// slices that end together still nest.
double micros(uint64_t ns) {
  const auto exact = static_cast<double>(ns);
  double us = exact / 1000.0;
  while (us * 1000.0 < exact) us = std::nextafter(us, std::numeric_limits<double>::infinity());
  return us;
}

std::string memoryName(const report::MemoryKey& key) {
  return fmt::format("GPU {} {} memory", key.device, trace::toString(key.kind));
}

json memoryKeyJson(const report::MemoryKey& key) {
  return {{"device", key.device}, {"kind", trace::toString(key.kind)}};
}

std::string runName(const report::Report& report) {
  if (report.process.rank != trace::kUnknownRank)
    return fmt::format("rank {}", report.process.rank);
  const std::string& path = report.input.path;
  if (path.empty()) return "memfloor trace";
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Writes the event list of one or more runs, each a process, event by event: memory holds one
// event at a time, never the list (a run of a million iterations makes gigabytes of them).
class ChromeTraceBuilder {
 public:
  ChromeTraceBuilder(uint64_t origin_ns, std::ostream& out) : origin_ns_(origin_ns), out_(out) {
    out_ << "{\"traceEvents\":[";
  }

  void addRun(const report::Report& report, uint64_t pid, int64_t sort_index) {
    pid_ = pid;
    end_ns_ = report.end_ns;
    metadata("process_name", pid, {{"name", runName(report)}});
    metadata("process_sort_index", pid, {{"sort_index", sort_index}});
    if (!report.process.command_line.empty() || !report.process.host.empty()) {
      std::string labels = report.process.command_line;
      if (!report.process.host.empty()) {
        labels += (labels.empty() ? "" : " @ ") + report.process.host;
      }
      metadata("process_labels", pid, {{"labels", labels}});
    }
    for (const report::TimelineSeries& series : report.timeline) addCounter(series);
    addIterations(report);
    addRanges(report);
  }

  void finish(const json& other_data) && {
    out_ << "],\"displayTimeUnit\":\"ns\",\"otherData\":" << dumpChromeTrace(other_data) << "}";
  }

 private:
  void emit(const json& event) {
    if (!first_event_) out_ << ',';
    first_event_ = false;
    out_ << dumpChromeTrace(event);
  }

  double ts(uint64_t ns) const { return micros(ns > origin_ns_ ? ns - origin_ns_ : 0); }

  json event(std::string_view ph, std::string_view name, std::string_view cat, uint64_t tid,
             uint64_t ns) const {
    return {{"name", name}, {"cat", cat}, {"ph", ph}, {"ts", ts(ns)}, {"pid", pid_}, {"tid", tid}};
  }

  // Process-scoped events go on the process's main thread (tid = pid): a tid of 0 would make
  // viewers invent a thread 0.
  void metadata(std::string_view name, uint64_t tid, json args) {
    json e = event("M", name, "__metadata", tid, origin_ns_);
    e["args"] = std::move(args);
    emit(e);
  }

  void slice(std::string_view name, std::string_view cat, uint64_t tid, uint64_t start_ns,
             uint64_t end_ns, json args) {
    json e = event("X", name, cat, tid, start_ns);
    e["dur"] = micros(end_ns > start_ns ? end_ns - start_ns : 0);
    e["args"] = std::move(args);
    emit(e);
  }

  // One counter track per device and memory kind. A bucket holds the min, max and last live bytes
  // of its records; the track shows that envelope as a step function: the extreme farther from the
  // bucket's last value first, then the nearer one, then the last value, at the bucket's start,
  // middle and end. Repeated values are left out (a step function carries them). Buckets finer
  // than the records hold one value each and show it exactly.
  void addCounter(const report::TimelineSeries& series) {
    const std::string name = memoryName(series.key);
    const uint64_t bucket = series.bucket_ns;
    bool have_previous = false;
    uint64_t previous = 0;
    auto sample = [&](uint64_t ns, uint64_t value) {
      if (have_previous && value == previous) return;
      json e = event("C", name, "memory", pid_, ns);
      e["args"] = {{"live_bytes", value}};
      emit(e);
      previous = value;
      have_previous = true;
    };
    for (const report::TimelinePoint& p : series.points) {
      const uint64_t far_first = (p.max - p.last) >= (p.last - p.min) ? p.max : p.min;
      const uint64_t near_second = far_first == p.max ? p.min : p.max;
      const uint64_t last_ns = p.start_ns + (bucket > 0 ? bucket - 1 : 0);
      const uint64_t clamp = std::max(p.start_ns, std::min(last_ns, end_ns_));
      sample(p.start_ns, far_first);
      sample(std::min(p.start_ns + bucket / 2, clamp), near_second);
      sample(clamp, p.last);
    }
  }

  void addIterations(const report::Report& report) {
    if (report.iterations.empty()) return;
    metadata("thread_name", kIterationsTid, {{"name", "iterations"}});
    metadata("thread_sort_index", kIterationsTid, {{"sort_index", -1}});
    const bool blocks = report::hasBlocks(report);
    for (const report::IterationRow& row : report.iterations) {
      json memory = json::array();
      json idle_memory = json::array();
      for (const report::IterationMemory& m : row.memory) {
        json entry = memoryKeyJson(m.key);
        entry.update({{"live_at_start", m.live_at_start},
                      {"live_at_end", m.live_at_end},
                      {"peak", m.peak},
                      {"floor", m.floor}});
        memory.push_back(std::move(entry));
        json idle = memoryKeyJson(m.key);
        idle.update({{"idle_floor", m.idle.floor},
                     {"peak", m.idle.peak},
                     {"live_at_end", m.idle.live_at_end},
                     {"retained", m.idle.retained.total().bytes},
                     {"inter_iteration", m.idle.retained.inter_iteration.bytes},
                     {"leak", m.idle.retained.leak.bytes},
                     {"persistent", m.idle.retained.persistent.bytes}});
        if (blocks) idle["cached"] = m.idle.retained.cached.bytes;  // as report.json has it
        idle_memory.push_back(std::move(idle));
      }
      const std::string name = row.name.empty() ? fmt::format("iteration {}", row.index) : row.name;
      slice(name, "iteration", kIterationsTid, row.start_ns, row.end_ns,
            {{"index", row.index},
             {"complete", row.complete},
             {"warmup", row.warmup},
             {"memory", std::move(memory)}});
      if (!row.complete) continue;  // the trace ended inside it: no idle window follows
      json sites = json::array();
      for (const report::RetainedSite& site : row.top_sites) {
        json s = memoryKeyJson(site.key);
        s.update({{"where", site.where},
                  {"bytes", site.retained.total().bytes},
                  {"class", toString(site.retained.dominant())}});
        sites.push_back(std::move(s));
      }
      slice(fmt::format("idle window {}", row.index), "idle", kIterationsTid, row.idle_start_ns,
            row.idle_end_ns,
            {{"iteration", row.index},
             {"final", row.idle_final},
             {"memory", std::move(idle_memory)},
             {"top_sites", std::move(sites)},
             {"held_by", heldByArgs(row)}});
      for (const report::HeldBy& census : row.held_by) {
        json mark = event("i", fmt::format("census (device {})", census.device), "census",
                          kIterationsTid, census.timestamp);
        mark["s"] = "t";  // on the iterations' track
        mark["args"] = {{"step", census.step},
                        {"objects", census.objects},
                        {"duration_ns", census.duration_ns}};
        emit(mark);
      }
    }
  }

  // What the window's censuses found: per device, the allocated, held and not seen bytes and the
  // first holders as report.json ranks them.
  static json heldByArgs(const report::IterationRow& row) {
    json out = json::array();
    for (const report::HeldBy& census : row.held_by) {
      json holders = json::array();
      for (size_t i = 0; i < census.holders.size() && i < kHoldersInArgs; ++i) {
        const report::Holder& h = census.holders[i];
        holders.push_back({{"path", h.path}, {"bytes", h.bytes}, {"class", toString(h.cls)}});
      }
      out.push_back({{"device", census.device},
                     {"allocated", census.allocated},
                     {"held", census.held.bytes},
                     {"not_seen", census.not_seen.bytes},
                     {"holders", std::move(holders)}});
    }
    return out;
  }

  static uint64_t tidOf(uint64_t thread, std::map<uint64_t, uint64_t>& renumbered) {
    if (thread < kRenumberedTid) return thread;
    return renumbered.try_emplace(thread, kRenumberedTid + renumbered.size() % 0xffff)
        .first->second;
  }

  // Push/pop ranges nest per thread: complete slices on the thread's track, each parent before the
  // ranges it holds. Start/end ranges may overlap anything: async slices ("b"/"e", one id each),
  // which viewers lay out on tracks of their own.
  void addRanges(const report::Report& report) {
    std::vector<const report::MarkerRange*> nested;
    std::set<uint64_t> threads;
    for (const report::MarkerRange& r : report.ranges) {
      threads.insert(r.thread);
      if (r.nested) nested.push_back(&r);
    }
    std::map<uint64_t, uint64_t> renumbered;
    for (uint64_t thread : threads) {
      const uint64_t tid = tidOf(thread, renumbered);
      metadata("thread_name", tid,
               {{"name", thread == pid_ ? fmt::format("thread {} (main)", thread)
                                        : fmt::format("thread {}", thread)}});
    }
    std::stable_sort(nested.begin(), nested.end(),
                     [](const report::MarkerRange* a, const report::MarkerRange* b) {
                       if (a->thread != b->thread) return a->thread < b->thread;
                       if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
                       return a->end_ns > b->end_ns;
                     });
    for (const report::MarkerRange* r : nested) {
      slice(r->name, "marker", tidOf(r->thread, renumbered), r->start_ns, r->end_ns,
            json::object());
    }
    for (const report::MarkerRange& r : report.ranges) {
      if (r.nested) continue;
      const uint64_t tid = tidOf(r.thread, renumbered);
      const uint64_t id = next_async_id_++;
      json begin = event("b", r.name, "marker", tid, r.start_ns);
      begin["id"] = id;
      begin["args"] = {{"thread", r.thread}};
      json end = event("e", r.name, "marker", tid, std::max(r.start_ns, r.end_ns));
      end["id"] = id;
      emit(begin);
      emit(end);
    }
  }

  uint64_t origin_ns_;
  uint64_t pid_ = 0;
  uint64_t end_ns_ = 0;
  uint64_t next_async_id_ = 1;
  std::ostream& out_;
  bool first_event_ = true;
};

}  // namespace

void writeChromeTrace(std::span<const report::Report> reports, std::ostream& out) {
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const report::Report& r : reports) origin = std::min(origin, r.first_ns);
  if (reports.empty()) origin = 0;

  ChromeTraceBuilder builder(origin, out);
  std::set<uint64_t> used_pids;
  json runs = json::array();
  for (size_t i = 0; i < reports.size(); ++i) {
    const report::Report& r = reports[i];
    // The traced pid when it is known and unique; otherwise the first free small number.
    uint64_t pid = r.process.present ? r.process.pid : 0;
    if (pid == 0 || pid >= kIterationsTid || used_pids.count(pid) != 0) {
      pid = 1;
      while (used_pids.count(pid) != 0) ++pid;
    }
    used_pids.insert(pid);
    const int64_t sort_index =
        r.process.rank != trace::kUnknownRank ? r.process.rank : static_cast<int64_t>(i) + 1000000;
    builder.addRun(r, pid, sort_index);
    runs.push_back(json{{"pid", pid}, {"name", runName(r)}, {"trace", r.input.path}});
  }
  json other{{"tool", "memfloor"},
             {"version", std::string(report::toolVersion())},
             {"origin_ns", std::to_string(origin)},
             {"runs", std::move(runs)}};
  std::move(builder).finish(other);
}

nlohmann::json toChromeTrace(std::span<const report::Report> reports) {
  std::ostringstream text;
  writeChromeTrace(reports, text);
  return json::parse(text.str());
}

nlohmann::json toChromeTrace(const report::Report& report) { return toChromeTrace({&report, 1}); }

std::string dumpChromeTrace(const nlohmann::json& trace) {
  return trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace memfloor::reports

// report.json: one function per part of the Report, mirroring docs/report-schema.md.
#include "reports/report_json.h"

#include "reports/symbols.h"

namespace memfloor::reports {
namespace {

using nlohmann::json;

json toJson(const Tally& t) { return {{"bytes", t.bytes}, {"count", t.count}}; }

json toJson(const RetainedTally& r) {
  Tally total = r.total();
  return {{"bytes", total.bytes},
          {"count", total.count},
          {"inter_iteration", toJson(r.inter_iteration)},
          {"leak", toJson(r.leak)},
          {"persistent", toJson(r.persistent)}};
}

void putKey(json& j, const MemoryKey& key) {
  j["device"] = key.device;
  j["kind"] = trace::toString(key.kind);  // the trace text form's names
}

json toJson(const TraceInput& in, const Report& r) {
  return {{"path", in.path},
          {"version", {{"major", in.major}, {"minor", in.minor}}},
          {"ending", in.ending},
          {"complete", in.complete},
          {"first_ns", r.first_ns},
          {"end_ns", r.end_ns},
          {"records",
           {{"total", r.records.total},
            {"allocs", r.records.allocs},
            {"frees", r.records.frees},
            {"markers", r.records.markers},
            {"pool_events", r.records.pool_events}}}};
}

json toJson(const ProcessMeta& p) {
  json devices = json::array();
  for (const DeviceMeta& d : p.devices) {
    devices.push_back({{"device", d.device}, {"name", d.name}, {"total_memory", d.total_memory}});
  }
  return {{"present", p.present},
          {"pid", p.pid},
          {"start_unix_ns", p.start_unix_ns},
          {"host", p.host},
          {"command_line", p.command_line},
          {"rank", p.rank},
          {"local_rank", p.local_rank},
          {"world_size", p.world_size},
          {"devices", devices},
          {"properties", p.properties}};
}

json toJson(const Anomalies& a) {
  return {{"unmatched_frees", toJson(a.unmatched_frees)},
          {"double_allocations", toJson(a.double_allocations)},
          {"size_mismatches", a.size_mismatches},
          {"unmatched_range_ends", a.unmatched_range_ends},
          {"unclosed_ranges", a.unclosed_ranges},
          {"out_of_order_records", a.out_of_order_records}};
}

json toJson(const MemorySummary& m) {
  json j;
  putKey(j, m.key);
  j["peak"] = m.peak;
  j["peak_ns"] = m.peak_ns;
  j["live_at_end"] = m.live_at_end;
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  return j;
}

json toJson(const IterationMemory& m) {
  json j;
  putKey(j, m.key);
  j["live_at_start"] = m.live_at_start;
  j["live_at_end"] = m.live_at_end;
  j["peak"] = m.peak;
  j["floor"] = m.floor;
  j["allocated"] = toJson(m.allocated);
  j["freed"] = toJson(m.freed);
  j["idle"] = {{"floor", m.idle.floor},
               {"peak", m.idle.peak},
               {"live_at_end", m.idle.live_at_end},
               {"allocated", toJson(m.idle.allocated)},
               {"freed", toJson(m.idle.freed)},
               {"retained", toJson(m.idle.retained)}};
  return j;
}

json toJson(const RetainedSite& s) {
  json j = toJson(s.retained);
  putKey(j, s.key);
  j["stack"] = s.stack;
  j["where"] = s.where;
  j["class"] = toString(s.retained.dominant());
  return j;
}

json toJson(const IterationRow& row) {
  json memory = json::array(), sites = json::array();
  for (const IterationMemory& m : row.memory) memory.push_back(toJson(m));
  for (const RetainedSite& s : row.top_sites) sites.push_back(toJson(s));
  return {
      {"index", row.index},
      {"name", row.name},
      {"start_ns", row.start_ns},
      {"end_ns", row.end_ns},
      {"complete", row.complete},
      {"warmup", row.warmup},
      {"idle",
       {{"start_ns", row.idle_start_ns}, {"end_ns", row.idle_end_ns}, {"final", row.idle_final}}},
      {"memory", memory},
      {"top_sites", sites}};
}

json toJson(const Trend& t) {
  json j;
  putKey(j, t.key);
  j["verdict"] = toString(t.verdict);
  j["points"] = t.points;
  j["first_iteration"] = t.first_iteration;
  j["last_iteration"] = t.last_iteration;
  j["slope_bytes_per_iteration"] = t.slope_bytes_per_iteration;
  j["growth_bytes"] = t.growth_bytes;
  j["threshold_bytes"] = t.threshold_bytes;
  j["first_floor"] = t.first_floor;
  j["last_floor"] = t.last_floor;
  return j;
}

json toJson(const Stack& s) {
  json frames = json::array();
  for (const Frame& f : s.frames) {
    frames.push_back({{"kind", trace::toString(f.kind)},
                      {"module", f.module},
                      {"offset", f.offset},
                      {"function", f.function},
                      {"file", f.file},
                      {"line", f.line},
                      {"text", Symbols::render(f)}});
  }
  return {{"id", s.id}, {"frames", frames}};
}

template <typename T>
json arrayOf(const std::vector<T>& items) {
  json out = json::array();
  for (const T& item : items) out.push_back(toJson(item));
  return out;
}

}  // namespace

nlohmann::json toJson(const Report& r) {
  return {{"schema", r.schema},
          {"tool", {{"name", "memfloor"}, {"version", r.tool_version}}},
          {"trace", toJson(r.input, r)},
          {"process", toJson(r.process)},
          {"dropped", {{"cupti", r.dropped_cupti}, {"writer", r.dropped_writer}}},
          {"anomalies", toJson(r.anomalies)},
          {"iteration_source", toString(r.iteration_source)},
          {"iteration_pattern", r.iteration_pattern},
          {"warmup_iterations", r.warmup_iterations},
          {"memory", arrayOf(r.memory)},
          {"iterations", arrayOf(r.iterations)},
          {"trend", {{"verdict", toString(r.verdict)}, {"per_memory", arrayOf(r.trends)}}},
          {"stacks", arrayOf(r.stacks)}};
}

}  // namespace memfloor::reports

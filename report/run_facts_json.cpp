// A run's facts in report.json: its trace (input, span, record counts), its process, the anomalies
// of its records and how its iterations were detected; each writer beside its reader.
#include "report/run_facts_json.h"

#include <utility>

#include "report/codec.h"

namespace memfloor::report {

using common::JsonFields;
using nlohmann::json;

json traceJson(const Report& r) {
  const TraceInput& in = r.input;
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
            {"pool_events", r.records.pool_events},
            {"steps", r.records.steps}}}};
}

json processJson(const ProcessMeta& p) {
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

// `blocks_outside_segments` only in runs with allocator blocks: the others cannot have any.
json anomaliesJson(const Anomalies& a, bool blocks) {
  json j = {
      {"unmatched_frees", tallyJson(a.unmatched_frees)},
      {"double_allocations", tallyJson(a.double_allocations)},
      {"size_mismatches", a.size_mismatches},
      {"unmatched_range_ends", a.unmatched_range_ends},
      {"unclosed_ranges", a.unclosed_ranges},
      {"out_of_order_records", a.out_of_order_records},
      {"cut_tail", a.cut_tail.known
                       ? json{{"from_ns", a.cut_tail.from_ns},
                              {"unmatched_frees", tallyJson(a.cut_tail.unmatched_frees)},
                              {"double_allocations", tallyJson(a.cut_tail.double_allocations)}}
                       : json(nullptr)}};
  if (blocks) j["blocks_outside_segments"] = a.blocks_outside_segments;
  j["warnings"] = a.warnings;
  j["warnings_left_out"] = a.warnings_left_out;
  return j;
}

json detectionJson(const std::optional<DetectedPeriod>& d) {
  if (!d) return nullptr;
  json j = {{"stack", d->stack},
            {"where", d->where},
            {"size", d->size},
            {"every", d->every},
            {"occurrences", d->occurrences},
            {"period_ns", d->period_ns},
            {"regular_permille", d->regular_permille}};
  putKey(j, d->key);
  return j;
}

std::optional<DetectedPeriod> readDetection(const JsonFields& f, const json& run,
                                            const std::string& rc) {
  const json* d = f.optional(run, rc, "detection");  // added within memfloor.report/2
  if (d == nullptr) return std::nullopt;
  const std::string c = JsonFields::field(rc, "detection");
  f.object(*d, c);
  DetectedPeriod p;
  p.key = readKey(f, *d, c);
  p.stack = f.u32(*d, c, "stack");
  p.where = f.string(*d, c, "where");
  p.size = f.bytes(*d, c, "size");
  p.every = f.u32(*d, c, "every");
  p.occurrences = f.u32(*d, c, "occurrences");
  p.period_ns = f.u64(*d, c, "period_ns");
  p.regular_permille = f.u32(*d, c, "regular_permille");
  return p;
}

Anomalies readAnomalies(const JsonFields& f, const json& j, const std::string& c) {
  Anomalies a;
  a.unmatched_frees = readTally(f, j, c, "unmatched_frees");
  a.double_allocations = readTally(f, j, c, "double_allocations");
  a.size_mismatches = f.u64(j, c, "size_mismatches");
  a.unmatched_range_ends = f.u64(j, c, "unmatched_range_ends");
  a.unclosed_ranges = f.u64(j, c, "unclosed_ranges");
  a.out_of_order_records = f.u64(j, c, "out_of_order_records");
  if (f.optional(j, c, "blocks_outside_segments") != nullptr) {  // added within memfloor.report/2
    a.blocks_outside_segments = f.u64(j, c, "blocks_outside_segments");
  }
  if (const json* cut = f.optional(j, c, "cut_tail")) {  // added within memfloor.report/2
    const std::string cc = JsonFields::field(c, "cut_tail");
    f.object(*cut, cc);
    a.cut_tail.known = true;
    a.cut_tail.from_ns = f.u64(*cut, cc, "from_ns");
    a.cut_tail.unmatched_frees = readTally(f, *cut, cc, "unmatched_frees");
    a.cut_tail.double_allocations = readTally(f, *cut, cc, "double_allocations");
  }
  if (f.optional(j, c, "warnings") != nullptr) {  // added within memfloor.report/3
    f.each(j, c, "warnings",
           [&](const json& w, const std::string& wc) { a.warnings.push_back(f.string(w, wc)); });
    a.warnings_left_out = f.u64(j, c, "warnings_left_out");
  }
  return a;
}

ProcessMeta readProcess(const JsonFields& f, const json& j, const std::string& c) {
  ProcessMeta p;
  p.present = f.boolean(j, c, "present");
  p.pid = f.u64(j, c, "pid");
  p.start_unix_ns = f.u64(j, c, "start_unix_ns");
  p.host = f.string(j, c, "host");
  p.command_line = f.string(j, c, "command_line");
  p.rank = f.i32(j, c, "rank");
  p.local_rank = f.i32(j, c, "local_rank");
  p.world_size = f.i32(j, c, "world_size");
  f.each(j, c, "devices", [&](const json& d, const std::string& dc) {
    p.devices.push_back(
        {f.u32(d, dc, "device"), f.string(d, dc, "name"), f.bytes(d, dc, "total_memory")});
  });
  p.properties = f.stringMap(j, c, "properties");
  return p;
}

// runs[].trace: the input, its time span and its record counts.
void readTrace(const JsonFields& f, const json& j, const std::string& c, Report& r) {
  r.input.path = f.string(j, c, "path");
  const std::string vc = JsonFields::field(c, "version");
  const json& version = f.object(j, c, "version");
  r.input.major = f.u16(version, vc, "major");
  r.input.minor = f.u16(version, vc, "minor");
  r.input.ending = f.string(j, c, "ending");
  r.input.complete = f.boolean(j, c, "complete");
  r.first_ns = f.u64(j, c, "first_ns");
  r.end_ns = f.u64(j, c, "end_ns");
  const std::string rc = JsonFields::field(c, "records");
  const json& records = f.object(j, c, "records");
  r.records.total = f.u64(records, rc, "total");
  r.records.allocs = f.u64(records, rc, "allocs");
  r.records.frees = f.u64(records, rc, "frees");
  r.records.markers = f.u64(records, rc, "markers");
  r.records.pool_events = f.u64(records, rc, "pool_events");
  if (f.optional(records, rc, "steps") != nullptr) {  // added within memfloor.report/3
    r.records.steps = f.u64(records, rc, "steps");
  }
}

}  // namespace memfloor::report

// The codec's shared pieces: how every part of report.json writes and reads a memory's key, a
// retained object's classes and an array of parts (report_json.cpp writes the document,
// report_reader.cpp reads it; each part's writer and reader stand side by side in its file).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_fields.h"
#include "report/json_stream.h"
#include "report/model.h"
#include "report/tally_json.h"
#include "trace/records.h"

namespace memfloor::report {

// The memory kinds by their names in report.json (trace::toString).
inline constexpr std::array<trace::MemoryKind, trace::kMemoryKindCount> kMemoryKinds = {
    trace::MemoryKind::kDevice,       trace::MemoryKind::kPinned, trace::MemoryKind::kManaged,
    trace::MemoryKind::kDeviceStatic, trace::MemoryKind::kPool,   trace::MemoryKind::kUnknown,
    trace::MemoryKind::kBlock};

// "device" and "kind": which memory an object of the report is about.
inline void putKey(nlohmann::json& j, const MemoryKey& key) {
  j["device"] = key.device;
  j["kind"] = trace::toString(key.kind);  // the trace text form's names
}
// The same two keys written as text, in their order, where the object's other keys sort around
// them (JsonText takes keys in ascending order).
inline void writeKey(JsonText& text, const MemoryKey& key) {
  text.key("device");
  text.value(uint64_t{key.device});
  text.key("kind");
  text.value(std::string_view(trace::toString(key.kind)));
}

inline MemoryKey readKey(const common::JsonFields& f, const nlohmann::json& j, std::string_view c) {
  return {f.u32(j, c, "device"), f.name(j, c, "kind", kMemoryKinds)};
}

// runs[].steady_idle_floor[]: {"device", "kind", "iteration", "idle_floor"}.
inline nlohmann::json steadyFloorJson(const SteadyFloor& s) {
  nlohmann::json j;
  putKey(j, s.key);
  j["iteration"] = s.iteration;
  j["idle_floor"] = s.idle_floor;
  return j;
}

// A retained object: the total, then one tally per class; of bytes (RetainedTally) or of a trend's
// steps (RetainedStep). `blocks`: the run has allocator blocks. Only then can bytes be cached (a
// reserved level's), and only then is the class written.
template <typename Retained, typename Total>
nlohmann::json retainedJson(const Retained& r, const Total& total, bool blocks) {
  nlohmann::json j;
  j["bytes"] = total.bytes;
  j["count"] = total.count;
  j["inter_iteration"] = tallyJson(r.inter_iteration);
  j["leak"] = tallyJson(r.leak);
  j["persistent"] = tallyJson(r.persistent);
  if (blocks) j["cached"] = tallyJson(r.cached);
  return j;
}

// `cached`, added within memfloor.report/2 and written only in runs with allocator blocks: absent
// reads as 0.
inline Tally readCachedTally(const common::JsonFields& f, const nlohmann::json& j,
                             std::string_view c) {
  return f.optional(j, c, "cached") != nullptr ? readTally(f, j, c, "cached") : Tally{};
}

// The class tallies of a retained object (a site, or idle.retained).
inline RetainedTally readRetained(const common::JsonFields& f, const nlohmann::json& j,
                                  std::string_view c) {
  return {readTally(f, j, c, "inter_iteration"), readTally(f, j, c, "leak"),
          readTally(f, j, c, "persistent"), readCachedTally(f, j, c)};
}

// The array `key` of `j`, each element read by read(f, element, its context).
template <typename T, typename Read>
std::vector<T> readArray(const common::JsonFields& f, const nlohmann::json& j, std::string_view c,
                         const char* key, Read read) {
  std::vector<T> out;
  f.each(j, c, key, [&](const nlohmann::json& item, const std::string& ic) {
    out.push_back(read(f, item, ic));
  });
  return out;
}

}  // namespace memfloor::report

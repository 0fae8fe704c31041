// The holders in report.json: one function per object, the reader mirroring the writer key for
// key.
#include "report/held_by_json.h"

#include <array>
#include <utility>

#include "report/tally_json.h"
#include "trace/records.h"

namespace memfloor::report {

using common::JsonFields;

namespace {

using nlohmann::json;

constexpr std::array<trace::HeldRole, trace::kHeldRoleCount> kRoles = {
    trace::HeldRole::kOther, trace::HeldRole::kParameter, trace::HeldRole::kBuffer,
    trace::HeldRole::kGradient, trace::HeldRole::kOptimizerState};
constexpr std::array<RetentionClass, 4> kClasses = {
    RetentionClass::kInterIteration, RetentionClass::kLeak, RetentionClass::kPersistent,
    RetentionClass::kCached};

// Keys set one by one, as report_json.cpp's many objects (a census lists many holders).
json holderJson(const Holder& h) {
  json j;
  j["path"] = h.path;
  j["bytes"] = h.bytes;
  j["count"] = h.count;
  j["storage_bytes"] = h.storage_bytes;
  j["address"] = h.address;
  j["role"] = trace::toString(h.role);
  j["class"] = toString(h.cls);
  j["rule"] = h.rule;
  j["via_graph"] = h.via_graph;
  j["shared"] = h.shared;
  j["stack"] = h.stack;
  j["where"] = h.where;
  return j;
}

json censusEntryJson(const HeldBy& h) {
  json holders = json::array();
  for (const Holder& holder : h.holders) holders.push_back(holderJson(holder));
  json j;
  j["device"] = h.device;
  j["timestamp"] = h.timestamp;
  j["step"] = h.step;
  j["objects"] = h.objects;
  j["duration_ns"] = h.duration_ns;
  j["complete"] = h.complete;
  j["allocated"] = h.allocated;
  j["held"] = tallyJson(h.held);
  j["not_seen"] = tallyJson(h.not_seen);
  j["not_seen_reason"] = h.not_seen_reason;
  json& by_class = j["by_class"];
  by_class["persistent"] = tallyJson(h.by_class.persistent);
  by_class["inter_iteration"] = tallyJson(h.by_class.inter_iteration);
  by_class["leak"] = tallyJson(h.by_class.leak);
  j["holders"] = std::move(holders);
  j["holders_left_out"] = tallyJson(h.holders_left_out);
  json& storages = j["storages"];
  storages["found"] = tallyJson(h.storages.found);
  storages["not_matched"] = tallyJson(h.storages.not_matched);
  storages["same_block"] = tallyJson(h.storages.same_block);
  return j;
}

Holder readHolder(const JsonFields& f, const json& j, const std::string& c) {
  Holder h;
  h.path = f.string(j, c, "path");
  h.bytes = f.bytes(j, c, "bytes");
  h.count = f.u64(j, c, "count");
  h.storage_bytes = f.bytes(j, c, "storage_bytes");
  h.address = f.u64(j, c, "address");
  h.role = f.name(j, c, "role", kRoles);
  h.cls = f.name(j, c, "class", kClasses);
  h.rule = f.string(j, c, "rule");
  f.each(j, c, "via_graph", [&](const json& node, const std::string& nc) {
    h.via_graph.push_back(f.string(node, nc));
  });
  h.shared = f.boolean(j, c, "shared");
  h.stack = f.u32(j, c, "stack");
  h.where = f.string(j, c, "where");
  return h;
}

HeldBy readCensusEntry(const JsonFields& f, const json& j, const std::string& c) {
  HeldBy h;
  h.device = f.u32(j, c, "device");
  h.timestamp = f.u64(j, c, "timestamp");
  h.step = f.u32(j, c, "step");
  h.objects = f.u64(j, c, "objects");
  h.duration_ns = f.u64(j, c, "duration_ns");
  h.complete = f.boolean(j, c, "complete");
  h.allocated = f.bytes(j, c, "allocated");
  h.held = readTally(f, j, c, "held");
  h.not_seen = readTally(f, j, c, "not_seen");
  h.not_seen_reason = f.string(j, c, "not_seen_reason");
  const std::string bc = JsonFields::field(c, "by_class");
  const json& by_class = f.object(j, c, "by_class");
  h.by_class.persistent = readTally(f, by_class, bc, "persistent");
  h.by_class.inter_iteration = readTally(f, by_class, bc, "inter_iteration");
  h.by_class.leak = readTally(f, by_class, bc, "leak");
  f.each(j, c, "holders", [&](const json& holder, const std::string& hc) {
    h.holders.push_back(readHolder(f, holder, hc));
  });
  h.holders_left_out = readTally(f, j, c, "holders_left_out");
  if (f.optional(j, c, "storages") != nullptr) {
    const std::string sc = JsonFields::field(c, "storages");
    const json& storages = f.object(j, c, "storages");
    h.storages.found = readTally(f, storages, sc, "found");
    h.storages.not_matched = readTally(f, storages, sc, "not_matched");
    h.storages.same_block = readTally(f, storages, sc, "same_block");
  }
  return h;
}

}  // namespace

json heldByJson(const std::vector<HeldBy>& held_by) {
  json out = json::array();
  for (const HeldBy& h : held_by) out.push_back(censusEntryJson(h));
  return out;
}

json censusJson(const CensusCount& census) {
  json outside = json::array();
  for (const CensusOutside& o : census.outside) {
    outside.push_back({{"timestamp", o.timestamp}, {"device", o.device}, {"step", o.step}});
  }
  return {{"taken", census.taken},
          {"in_idle_windows", census.in_idle_windows},
          {"outside", std::move(outside)}};
}

std::vector<HeldBy> readHeldBy(const JsonFields& f, const json& row, const std::string& context) {
  std::vector<HeldBy> out;
  if (f.optional(row, context, "held_by") == nullptr) return out;  // added within memfloor.report/2
  f.each(row, context, "held_by", [&](const json& census, const std::string& c) {
    out.push_back(readCensusEntry(f, census, c));
  });
  return out;
}

CensusCount readCensus(const JsonFields& f, const json& run, const std::string& context) {
  CensusCount out;
  if (f.optional(run, context, "census") == nullptr) return out;  // added within memfloor.report/2
  const std::string c = JsonFields::field(context, "census");
  const json& census = f.object(run, context, "census");
  out.taken = f.u32(census, c, "taken");
  out.in_idle_windows = f.u32(census, c, "in_idle_windows");
  f.each(census, c, "outside", [&](const json& o, const std::string& oc) {
    out.outside.push_back(
        {f.u64(o, oc, "timestamp"), f.u32(o, oc, "device"), f.u32(o, oc, "step")});
  });
  return out;
}

}  // namespace memfloor::report

// Names of the report's enums, as written in report.json.
#include "analysis/report.h"

#include <utility>

#ifndef MEMFLOOR_VERSION
#define MEMFLOOR_VERSION "0.0.0"
#endif

namespace memfloor::analysis {

std::string_view toolVersion() { return MEMFLOOR_VERSION; }

RetentionClass RetainedTally::dominant() const {
  if (inter_iteration.bytes >= leak.bytes && inter_iteration.bytes >= persistent.bytes) {
    return RetentionClass::kInterIteration;
  }
  return leak.bytes >= persistent.bytes ? RetentionClass::kLeak : RetentionClass::kPersistent;
}

std::string_view toString(RetentionClass c) {
  switch (c) {
    case RetentionClass::kInterIteration:
      return "inter_iteration";
    case RetentionClass::kLeak:
      return "leak";
    case RetentionClass::kPersistent:
      return "persistent";
  }
  return "unknown";
}

Tally PeakTally::total() const {
  Tally out = iteration;
  out += earlier_iteration;
  out += inter_iteration;
  out += leak;
  out += persistent;
  return out;
}

PeakClass PeakTally::dominant() const {
  const std::pair<PeakClass, const Tally*> classes[] = {
      {PeakClass::kIteration, &iteration},
      {PeakClass::kEarlierIteration, &earlier_iteration},
      {PeakClass::kInterIteration, &inter_iteration},
      {PeakClass::kLeak, &leak},
      {PeakClass::kPersistent, &persistent}};
  auto most = classes[0];
  for (const auto& c : classes) {
    if (c.second->bytes > most.second->bytes) most = c;
  }
  return most.first;
}

std::string_view toString(PeakClass c) {
  switch (c) {
    case PeakClass::kIteration:
      return "iteration";
    case PeakClass::kEarlierIteration:
      return "earlier_iteration";
    case PeakClass::kInterIteration:
      return toString(RetentionClass::kInterIteration);
    case PeakClass::kLeak:
      return toString(RetentionClass::kLeak);
    case PeakClass::kPersistent:
      return toString(RetentionClass::kPersistent);
  }
  return "unknown";
}

std::string_view toString(TrendVerdict v) {
  switch (v) {
    case TrendVerdict::kUnknown:
      return "unknown";
    case TrendVerdict::kStable:
      return "stable";
    case TrendVerdict::kGrowing:
      return "growing";
  }
  return "unknown";
}

std::string_view toString(IterationSource s) {
  switch (s) {
    case IterationSource::kMarkers:
      return "markers";
    case IterationSource::kDetected:
      return "detected";
    case IterationSource::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace memfloor::analysis

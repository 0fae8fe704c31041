// Names of the report's enums, as written in report.json.
#include "report/model.h"

#include <cstddef>
#include <utility>

#include "common/version.h"

namespace memfloor::report {

std::string_view toolVersion() { return kVersion; }

namespace {

// The class holding the most bytes; ties go to the first listed.
template <typename Class, size_t N>
Class mostBytes(const std::pair<Class, const Tally*> (&classes)[N]) {
  auto most = classes[0];
  for (const auto& c : classes) {
    if (c.second->bytes > most.second->bytes) most = c;
  }
  return most.first;
}

}  // namespace

RetentionClass RetainedTally::dominant() const {
  const std::pair<RetentionClass, const Tally*> classes[] = {
      {RetentionClass::kInterIteration, &inter_iteration},
      {RetentionClass::kLeak, &leak},
      {RetentionClass::kPersistent, &persistent},
      {RetentionClass::kCached, &cached}};
  return mostBytes(classes);
}

Tally& RetainedTally::of(RetentionClass c) {
  switch (c) {
    case RetentionClass::kInterIteration:
      return inter_iteration;
    case RetentionClass::kLeak:
      return leak;
    case RetentionClass::kCached:
      return cached;
    case RetentionClass::kPersistent:
      break;
  }
  return persistent;
}

std::string_view toString(RetentionClass c) {
  switch (c) {
    case RetentionClass::kInterIteration:
      return "inter_iteration";
    case RetentionClass::kLeak:
      return "leak";
    case RetentionClass::kPersistent:
      return "persistent";
    case RetentionClass::kCached:
      return "cached";
  }
  return "unknown";
}

RetainedTally& RetainedTally::operator+=(const RetainedTally& o) {
  inter_iteration += o.inter_iteration;
  leak += o.leak;
  persistent += o.persistent;
  cached += o.cached;
  return *this;
}

PeakTally& PeakTally::operator+=(const PeakTally& o) {
  iteration += o.iteration;
  earlier_iteration += o.earlier_iteration;
  inter_iteration += o.inter_iteration;
  leak += o.leak;
  persistent += o.persistent;
  cached += o.cached;
  return *this;
}

Tally PeakTally::total() const {
  Tally out = iteration;
  out += earlier_iteration;
  out += inter_iteration;
  out += leak;
  out += persistent;
  out += cached;
  return out;
}

PeakClass PeakTally::dominant() const {
  const std::pair<PeakClass, const Tally*> classes[] = {
      {PeakClass::kIteration, &iteration},
      {PeakClass::kEarlierIteration, &earlier_iteration},
      {PeakClass::kInterIteration, &inter_iteration},
      {PeakClass::kLeak, &leak},
      {PeakClass::kPersistent, &persistent},
      {PeakClass::kCached, &cached}};
  return mostBytes(classes);
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
    case PeakClass::kCached:
      return toString(RetentionClass::kCached);
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
    case IterationSource::kSteps:
      return "steps";
    case IterationSource::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace memfloor::report

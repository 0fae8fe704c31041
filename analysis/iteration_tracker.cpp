// IterationTracker: range bookkeeping per domain, the cached name match, and training steps.
#include "analysis/iteration_tracker.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "common/error.h"
#include "common/name_pattern.h"
#include "common/printable.h"

namespace memfloor::analysis {

using trace::MarkerType;

namespace {

// An NVTX domain as messages name it: "" is the default one.
std::string describeDomain(std::string_view name) {
  return name.empty() ? std::string("the default domain") : fmt::format("domain '{}'", name);
}

}  // namespace

IterationTracker::IterationTracker(std::optional<std::string_view> pattern, std::string domain)
    : domain_(std::move(domain)) {
  if (!pattern) return;
  std::shared_ptr<const re2::RE2> compiled = compileNamePattern(*pattern);
  if (!compiled->ok()) {
    throw Error("invalid iteration pattern '" + std::string(*pattern) + "': " + compiled->error());
  }
  pattern_ = std::move(compiled);
}

bool IterationTracker::usePattern(std::string_view pattern, std::string& why) {
  if (!pattern_) {
    why = "iterations are detected here, not named";
    return false;
  }
  if (!spans_.empty() || depth_ > 0 || steps_ > 0) {
    why = "it comes after the first iteration";
    return false;
  }
  std::shared_ptr<const re2::RE2> compiled = compileNamePattern(pattern);
  if (!compiled->ok()) {
    why = compiled->error();
    return false;
  }
  pattern_ = std::move(compiled);
  match_cache_.clear();  // names seen so far were asked of the old pattern
  return true;
}

bool IterationTracker::matches(std::string_view name) const {
  return pattern_ && matchesName(*pattern_, name);
}

// Ids whose definition has not arrived yet are not cached: they may still be defined.
bool IterationTracker::inIterationDomain(trace::StringId domain, const symbols::Symbols& symbols) {
  if (domain == trace::kNoId) return domain_.empty();
  if (auto it = domain_cache_.find(domain); it != domain_cache_.end()) return it->second;
  const std::string_view text = symbols.string(domain);
  const bool result = text == domain_;
  if (!text.empty()) domain_cache_.emplace(domain, result);
  return result;
}

bool IterationTracker::matches(const trace::Marker& marker, const symbols::Symbols& symbols) {
  if (!pattern_) return false;
  const bool in_domain = inIterationDomain(marker.domain, symbols);
  if (!in_domain && other_domain_matches_ > 0 && marker.domain != other_domain_) return false;
  bool result = false;
  if (auto it = match_cache_.find(marker.name); it != match_cache_.end()) {
    result = it->second;
  } else {
    std::string_view text = symbols.string(marker.name);
    result = !text.empty() && matches(text);
    if (!text.empty()) match_cache_.emplace(marker.name, result);
  }
  if (in_domain) {
    in_domain_matches_ += result ? 1 : 0;
    return result;
  }
  if (!result) return false;
  // A matching range of another domain: said at the end if the iteration domain has none.
  if (other_domain_matches_++ == 0) {
    other_domain_ = marker.domain;
    other_domain_name_ = common::printable(symbols.string(marker.domain).substr(0, kNameShown));
  }
  return false;
}

void IterationTracker::warn(std::string message) {
  if (warnings_ != nullptr) warnings_->add(std::move(message));
}

void IterationTracker::warnUnmatched(const trace::Marker& m, const symbols::Symbols& symbols) {
  ++unmatched_ends_;
  const std::string_view domain = symbols.string(m.domain);
  const std::string in = describeDomain(domain);
  if (m.type == MarkerType::kPop) {
    warn(fmt::format("marker pop t={} thread={}: no range of its thread is open in {}; ignored",
                     m.timestamp, m.thread, in));
  } else {
    warn(fmt::format("marker end t={} id={}: no range with that id is open in {}; ignored",
                     m.timestamp, m.id, in));
  }
}

Boundary IterationTracker::open(bool matching, const trace::Marker& marker,
                                const symbols::Symbols& symbols) {
  if (!matching) return Boundary::kNone;
  if (origin_ == IterationOrigin::kSteps) {  // steps came first: the analysis replays for markers
    ++markers_after_steps_;
    return Boundary::kNone;
  }
  origin_ = IterationOrigin::kMarkers;
  if (depth_++ > 0) return Boundary::kNone;
  beginSpan(std::string(symbols.string(marker.name)), marker.thread, marker.timestamp);
  return Boundary::kBegin;
}

Boundary IterationTracker::close(bool matching, const trace::Marker& marker) {
  if (!matching || origin_ != IterationOrigin::kMarkers) return Boundary::kNone;
  if (--depth_ > 0) return Boundary::kNone;
  endSpan(marker.timestamp);
  return Boundary::kEnd;
}

void IterationTracker::beginSpan(std::string name, uint64_t thread, uint64_t ns) {
  spans_.push_back({std::move(name), thread, ns, ns, false});
}

void IterationTracker::endSpan(uint64_t ns) {
  spans_.back().end_ns = ns;
  spans_.back().complete = true;
}

void IterationTracker::endAt(uint64_t ns) {
  assert(!pattern_ && "detected iterations are cut on a tracker without a pattern");
  assert(depth_ == 1 && "no detected iteration is open");
  depth_ = 0;
  endSpan(ns);
}

void IterationTracker::beginAt(uint64_t ns) {
  assert(!pattern_ && "detected iterations are cut on a tracker without a pattern");
  assert(depth_ == 0 && "an iteration is open");
  depth_ = 1;
  beginSpan("detected", 0, ns);
}

void IterationTracker::keep(const Open& range, uint64_t end_ns, bool nested,
                            const symbols::Symbols& symbols) {
  if (!keep_ranges_) return;
  ranges_.push_back(
      {std::string(symbols.string(range.name)), range.thread, range.start_ns, end_ns, nested});
}

Boundary IterationTracker::onStart(const trace::Marker& marker, const symbols::Symbols& symbols) {
  bool matching = matches(marker, symbols);
  Open range{matching, marker.name, marker.thread, marker.timestamp};
  auto [it, inserted] = starts_.try_emplace({marker.domain, marker.id}, range);
  if (inserted) return open(matching, marker, symbols);
  // The same id started again before its end: the earlier range never got one. Close it here so
  // that a lost end cannot hold an iteration open for the rest of the trace.
  ++unclosed_ranges_;
  warn(fmt::format("marker start t={} id={}: a range with that id is still open; it ends here",
                   marker.timestamp, marker.id));
  bool was_matching = it->second.matching;
  it->second = range;
  if (was_matching && matching) return Boundary::kNone;  // one iteration continues
  Boundary b = close(was_matching, marker);
  return b == Boundary::kNone ? open(matching, marker, symbols) : b;
}

Boundary IterationTracker::onMarker(const trace::Marker& marker, const symbols::Symbols& symbols) {
  switch (marker.type) {
    case MarkerType::kPush: {
      bool matching = matches(marker, symbols);
      pushes_[{marker.domain, marker.thread}].push_back(
          {matching, marker.name, marker.thread, marker.timestamp});
      return open(matching, marker, symbols);
    }
    case MarkerType::kPop: {
      auto it = pushes_.find({marker.domain, marker.thread});
      if (it == pushes_.end() || it->second.empty()) {
        warnUnmatched(marker, symbols);
        return Boundary::kNone;
      }
      Open range = it->second.back();
      bool matching = range.matching;
      keep(range, marker.timestamp, true, symbols);
      it->second.pop_back();
      if (it->second.empty()) pushes_.erase(it);
      return close(matching, marker);
    }
    case MarkerType::kStart:
      return onStart(marker, symbols);
    case MarkerType::kEnd: {
      auto it = starts_.find({marker.domain, marker.id});
      if (it == starts_.end()) {
        warnUnmatched(marker, symbols);
        return Boundary::kNone;
      }
      bool matching = it->second.matching;
      keep(it->second, marker.timestamp, false, symbols);
      starts_.erase(it);
      return close(matching, marker);
    }
    case MarkerType::kInstant:
      return Boundary::kNone;
  }
  return Boundary::kNone;
}

// A step's begin opens an iteration unless one is open (its end was lost: the two steps become
// one iteration); its end closes the open step of its number. Every other case is a warning.
Boundary IterationTracker::onStep(const trace::Step& step) {
  ++steps_;
  if (step.phase == trace::StepPhase::kBegin) seen_step_ = std::max(seen_step_, step.step);
  if (!pattern_ || origin_ == IterationOrigin::kMarkers) return Boundary::kNone;
  origin_ = IterationOrigin::kSteps;
  if (step.phase == trace::StepPhase::kBegin) {
    const std::optional<uint32_t> last = last_step_;
    last_step_ = step.step;
    if (open_step_) {
      warn(
          fmt::format("step begin t={} step={}: step {} has not ended (its end record is "
                      "missing); both are one iteration",
                      step.timestamp, step.step, *open_step_));
      open_step_ = step.step;
      return Boundary::kNone;
    }
    if (last && step.step <= *last) {
      warn(fmt::format("step begin t={} step={}: out of order, after step {}; taken as it comes",
                       step.timestamp, step.step, *last));
    }
    open_step_ = step.step;
    depth_ = 1;
    beginSpan(fmt::format("step {}", step.step), step.thread, step.timestamp);
    return Boundary::kBegin;
  }
  if (open_step_ != step.step) {
    warn(!open_step_ ? fmt::format("step end t={} step={}: no step is open; ignored",
                                   step.timestamp, step.step)
                     : fmt::format("step end t={} step={}: out of order, step {} is open; ignored",
                                   step.timestamp, step.step, *open_step_));
    return Boundary::kNone;
  }
  open_step_.reset();
  depth_ = 0;
  endSpan(step.timestamp);
  return Boundary::kEnd;
}

bool IterationTracker::finish(uint64_t end_ns) {
  if (in_domain_matches_ == 0 && other_domain_matches_ > 0) {
    const std::string ours =
        describeDomain(common::printable(std::string_view(domain_).substr(0, kNameShown)));
    const std::string theirs = describeDomain(other_domain_name_);
    warn(
        fmt::format("no range in the iteration domain ({}) matches the iteration pattern; {} "
                    "ranges that match it are in {}: name that domain to take them",
                    ours, other_domain_matches_, theirs));
  }
  for (const auto& [key, stack] : pushes_) unclosed_ranges_ += stack.size();
  unclosed_ranges_ += starts_.size();
  pushes_.clear();
  starts_.clear();
  std::stable_sort(ranges_.begin(), ranges_.end(), [](const MarkerRange& a, const MarkerRange& b) {
    return a.start_ns < b.start_ns;
  });
  if (depth_ == 0) return false;
  depth_ = 0;
  open_step_.reset();
  spans_.back().end_ns = end_ns;
  spans_.back().complete = false;
  return true;
}

}  // namespace memfloor::analysis

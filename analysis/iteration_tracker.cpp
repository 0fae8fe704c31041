// IterationTracker: range bookkeeping and the cached name match.
#include "analysis/iteration_tracker.h"

#include <re2/re2.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "common/error.h"

namespace memfloor::analysis {

using trace::MarkerType;

IterationTracker::IterationTracker(std::optional<std::string_view> pattern) {
  if (!pattern) return;
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  auto compiled =
      std::make_shared<const RE2>(re2::StringPiece(pattern->data(), pattern->size()), options);
  if (!compiled->ok()) {
    throw Error("invalid iteration pattern '" + std::string(*pattern) + "': " + compiled->error());
  }
  pattern_ = std::move(compiled);
}

bool IterationTracker::matches(std::string_view name) const {
  return pattern_ && RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *pattern_);
}

bool IterationTracker::matches(trace::StringId name, const symbols::Symbols& symbols) {
  if (auto it = match_cache_.find(name); it != match_cache_.end()) return it->second;
  std::string_view text = symbols.string(name);
  bool result = !text.empty() && matches(text);
  // An id whose definition has not arrived yet is not cached: it may still be defined.
  if (!text.empty()) match_cache_.emplace(name, result);
  return result;
}

Boundary IterationTracker::open(bool matching, const trace::Marker& marker,
                                const symbols::Symbols& symbols) {
  if (!matching) return Boundary::kNone;
  if (depth_++ > 0) return Boundary::kNone;
  beginSpan(std::string(symbols.string(marker.name)), marker.thread, marker.timestamp);
  return Boundary::kBegin;
}

Boundary IterationTracker::close(bool matching, const trace::Marker& marker) {
  if (!matching) return Boundary::kNone;
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

Boundary IterationTracker::onMarker(const trace::Marker& marker, const symbols::Symbols& symbols) {
  switch (marker.type) {
    case MarkerType::kPush: {
      bool matching = matches(marker.name, symbols);
      pushes_[marker.thread].push_back({matching, marker.name, marker.thread, marker.timestamp});
      return open(matching, marker, symbols);
    }
    case MarkerType::kPop: {
      auto it = pushes_.find(marker.thread);
      if (it == pushes_.end() || it->second.empty()) {
        ++unmatched_ends_;
        return Boundary::kNone;
      }
      Open range = it->second.back();
      bool matching = range.matching;
      keep(range, marker.timestamp, true, symbols);
      it->second.pop_back();
      if (it->second.empty()) pushes_.erase(it);
      return close(matching, marker);
    }
    case MarkerType::kStart: {
      bool matching = matches(marker.name, symbols);
      Open range{matching, marker.name, marker.thread, marker.timestamp};
      auto [it, inserted] = starts_.try_emplace(marker.id, range);
      if (!inserted) {
        // The same id started again before its end: the earlier range never got one. Close it
        // here so that a lost end cannot hold an iteration open for the rest of the trace.
        ++unclosed_ranges_;
        bool was_matching = it->second.matching;
        it->second = range;
        if (was_matching && matching) return Boundary::kNone;  // one iteration continues
        Boundary b = close(was_matching, marker);
        return b == Boundary::kNone ? open(matching, marker, symbols) : b;
      }
      return open(matching, marker, symbols);
    }
    case MarkerType::kEnd: {
      auto it = starts_.find(marker.id);
      if (it == starts_.end()) {
        ++unmatched_ends_;
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

bool IterationTracker::finish(uint64_t end_ns) {
  for (const auto& [thread, stack] : pushes_) unclosed_ranges_ += stack.size();
  unclosed_ranges_ += starts_.size();
  pushes_.clear();
  starts_.clear();
  std::stable_sort(ranges_.begin(), ranges_.end(), [](const MarkerRange& a, const MarkerRange& b) {
    return a.start_ns < b.start_ns;
  });
  if (depth_ == 0) return false;
  depth_ = 0;
  spans_.back().end_ns = end_ns;
  spans_.back().complete = false;
  return true;
}

}  // namespace memfloor::analysis

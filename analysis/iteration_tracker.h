// IterationTracker: marker ranges -> iterations (nested ranges, push/pop per thread, start/end).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/report.h"
#include "symbols/symbols.h"
#include "trace/records.h"

namespace re2 {
class RE2;
}

namespace memfloor::analysis {

// RE2 syntax, matched case-insensitively against the whole marker name: "iteration", "iter",
// "step", "train_step", optionally followed by separators and a number ("Iteration 3", "step_12").
inline constexpr std::string_view kDefaultIterationPattern =
    R"((iteration|iter|step|train_step)([\s_:#=./-]*\d+)?)";

struct IterationSpan {
  std::string name;  // of the range that opened it
  uint64_t thread = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool complete = false;  // closed by its own end marker (not by the end of the trace)
};

enum class Boundary : uint8_t { kNone, kBegin, kEnd };

// An iteration is a maximal stretch of time during which at least one matching range is open, on
// any thread: the outermost matching range defines it, matching ranges nested in it (or
// overlapping it from another thread) only extend it, and non-matching ranges ("forward") are
// ignored. Push/pop nest per thread; start/end pair by range id across threads. Instant marks are
// ignored. The regex runs once per distinct name id, never per event.
class IterationTracker {
 public:
  // Throws memfloor::Error naming the pattern when RE2 rejects it (bad syntax, backreferences,
  // lookaround, or larger than RE2's memory budget).
  // Without a pattern no marker defines an iteration: beginAt and endAt alone cut them (detected
  // iterations), while ranges are still tracked.
  explicit IterationTracker(std::optional<std::string_view> pattern);

  // Keeps every closed range (for exports); off by default.
  void keepRanges(bool keep) { keep_ranges_ = keep; }
  const std::vector<MarkerRange>& ranges() const { return ranges_; }

  Boundary onMarker(const trace::Marker& marker, const symbols::Symbols& symbols);

  // Iterations found without markers (analysis/period_detector.h): ends the open one at ns, then
  // begins one there. Only for a tracker without a pattern.
  void endAt(uint64_t ns);
  void beginAt(uint64_t ns);

  // Counts ranges still open and ends an open iteration at end_ns (incomplete); true if it did.
  bool finish(uint64_t end_ns);

  bool inIteration() const { return depth_ > 0; }
  uint32_t started() const { return static_cast<uint32_t>(spans_.size()); }
  const std::vector<IterationSpan>& iterations() const { return spans_; }
  uint64_t unmatchedEnds() const { return unmatched_ends_; }
  uint64_t unclosedRanges() const { return unclosed_ranges_; }

  bool matches(std::string_view name) const;

 private:
  bool matches(trace::StringId name, const symbols::Symbols& symbols);
  Boundary open(bool matching, const trace::Marker& marker, const symbols::Symbols& symbols);
  Boundary close(bool matching, const trace::Marker& marker);
  void beginSpan(std::string name, uint64_t thread, uint64_t ns);
  void endSpan(uint64_t ns);

  std::shared_ptr<const re2::RE2> pattern_;  // linear-time matching: no pattern can hang or recurse
  std::unordered_map<trace::StringId, bool> match_cache_;
  struct Open {
    bool matching = false;
    trace::StringId name = trace::kNoId;
    uint64_t thread = 0;
    uint64_t start_ns = 0;
  };
  void keep(const Open& range, uint64_t end_ns, bool nested, const symbols::Symbols& symbols);

  std::unordered_map<uint64_t, std::vector<Open>> pushes_;  // per thread: innermost last
  std::unordered_map<uint64_t, Open> starts_;               // open start/end ranges by id
  uint32_t depth_ = 0;  // matching ranges open now, over all threads
  std::vector<IterationSpan> spans_;
  uint64_t unmatched_ends_ = 0;
  uint64_t unclosed_ranges_ = 0;
  bool keep_ranges_ = false;
  std::vector<MarkerRange> ranges_;
};

}  // namespace memfloor::analysis

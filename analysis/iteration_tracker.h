// IterationTracker: marker ranges or training steps -> iterations (ranges per domain and thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/record_warnings.h"
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
  std::string name;  // of the range that opened it ("step 7" for a training step)
  uint64_t thread = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool complete = false;  // closed by its own end marker (not by the end of the trace)
};

enum class Boundary : uint8_t { kNone, kBegin, kEnd };

// Where the iterations come from (docs/design.md, "Iterations"): ranges of the iteration domain
// whose names match the pattern; else, in a Python process, the training steps the companion saw
// (step records); else (the analysis' business, not the tracker's) a period of the allocations.
enum class IterationOrigin : uint8_t { kNone, kMarkers, kSteps };

// An iteration is a maximal stretch of time during which at least one matching range is open, on
// any thread: the outermost matching range defines it, matching ranges nested in it (or
// overlapping it from another thread) only extend it, and non-matching ranges ("forward") are
// ignored. Ranges are kept per domain: push/pop nest per thread and domain, start/end pair by
// domain and range id across threads, and only the iteration domain's ranges (NVTX's default one
// unless named) can match, so another library's ranges (NCCL's, a profiler's) never open or close
// an iteration. Instant marks are ignored. The regex runs once per distinct name id, never per
// event.
//
// Step records make the iterations when no marker has matched before the first of them: each
// step's begin (its first forward) opens one, its end (its last optimizer step) closes it. The
// first to come decides; markers that match after steps have decided are counted
// (markersAfterSteps()), and the analysis replays with markersOnly() then, since markers win.
class IterationTracker {
 public:
  // Throws memfloor::Error naming the pattern when RE2 rejects it (bad syntax, backreferences,
  // lookaround, or larger than RE2's memory budget).
  // Without a pattern no marker defines an iteration: beginAt and endAt alone cut them (detected
  // iterations), while ranges are still tracked; step records are ignored.
  // `domain`: the NVTX domain of the iteration ranges ("" the default domain).
  explicit IterationTracker(std::optional<std::string_view> pattern, std::string domain = {});

  // Matches `pattern` from here on instead of the constructor's: the pattern the trace records
  // (hook.iteration_pattern). Only before any marker matched or step began, and only for a
  // tracker with a pattern (not one that detects iterations); false, and nothing changed, then
  // or when RE2 rejects it (`why` says so).
  bool usePattern(std::string_view pattern, std::string& why);

  // Keeps every closed range (for exports); off by default.
  void keepRanges(bool keep) { keep_ranges_ = keep; }
  const std::vector<MarkerRange>& ranges() const { return ranges_; }
  // Step records are ignored: the replay after markersAfterSteps().
  void markersOnly() { origin_ = IterationOrigin::kMarkers; }
  // Where a record cannot be taken as it is, a warning says so (not owned; may be null).
  void warnInto(RecordWarnings* warnings) { warnings_ = warnings; }

  Boundary onMarker(const trace::Marker& marker, const symbols::Symbols& symbols);
  Boundary onStep(const trace::Step& step);

  // Iterations found without markers (analysis/period_detector.h): ends the open one at ns, then
  // begins one there. Only for a tracker without a pattern.
  void endAt(uint64_t ns);
  void beginAt(uint64_t ns);

  // Counts ranges still open and ends an open iteration at end_ns (incomplete); true if it did.
  bool finish(uint64_t end_ns);

  bool inIteration() const { return depth_ > 0; }
  uint32_t started() const { return static_cast<uint32_t>(spans_.size()); }
  const std::vector<IterationSpan>& iterations() const { return spans_; }
  IterationOrigin origin() const { return origin_; }
  uint64_t steps() const { return steps_; }         // step records seen (taken or not)
  uint32_t lastStep() const { return seen_step_; }  // the largest step number begun so far
  uint64_t markersAfterSteps() const { return markers_after_steps_; }
  uint64_t unmatchedEnds() const { return unmatched_ends_; }
  uint64_t unclosedRanges() const { return unclosed_ranges_; }

  bool matches(std::string_view name) const;

 private:
  // Push/pop stacks are per domain and thread; start/end ranges per domain and id.
  struct RangeKey {
    trace::StringId domain = trace::kNoId;
    uint64_t value = 0;  // the thread or the range id
    bool operator==(const RangeKey&) const = default;
  };
  struct RangeKeyHash {
    static constexpr uint64_t kGoldenRatio = 0x9e3779b97f4a7c15ull;  // spreads the domain's bits
    size_t operator()(const RangeKey& k) const {
      return std::hash<uint64_t>{}(k.value ^ (uint64_t{k.domain} * kGoldenRatio));
    }
  };
  struct Open {
    bool matching = false;
    trace::StringId name = trace::kNoId;
    uint64_t thread = 0;
    uint64_t start_ns = 0;
  };

  bool matches(const trace::Marker& marker, const symbols::Symbols& symbols);
  bool inIterationDomain(trace::StringId domain, const symbols::Symbols& symbols);
  Boundary open(bool matching, const trace::Marker& marker, const symbols::Symbols& symbols);
  Boundary close(bool matching, const trace::Marker& marker);
  Boundary onStart(const trace::Marker& marker, const symbols::Symbols& symbols);
  void beginSpan(std::string name, uint64_t thread, uint64_t ns);
  void endSpan(uint64_t ns);
  void keep(const Open& range, uint64_t end_ns, bool nested, const symbols::Symbols& symbols);
  void warn(std::string message);
  void warnUnmatched(const trace::Marker& marker, const symbols::Symbols& symbols);

  std::shared_ptr<const re2::RE2> pattern_;  // linear-time matching: no pattern can hang or recurse
  std::string domain_;                       // of the iteration ranges: "" the default one
  std::unordered_map<trace::StringId, bool> match_cache_;
  std::unordered_map<trace::StringId, bool> domain_cache_;
  // Matching ranges opened in the iteration domain, and in the first other domain that has any,
  // with its name (printable, cut to kNameShown bytes): the warning when the domain has none.
  static constexpr size_t kNameShown = 200;
  uint64_t in_domain_matches_ = 0;
  uint64_t other_domain_matches_ = 0;
  trace::StringId other_domain_ = trace::kNoId;
  std::string other_domain_name_;
  std::unordered_map<RangeKey, std::vector<Open>, RangeKeyHash> pushes_;  // innermost last
  std::unordered_map<RangeKey, Open, RangeKeyHash> starts_;               // open start/end ranges
  uint32_t depth_ = 0;  // matching ranges open now, over all threads (or 1: a step is open)
  std::vector<IterationSpan> spans_;
  IterationOrigin origin_ = IterationOrigin::kNone;
  uint64_t steps_ = 0;
  // Every step number is valid, 0 included (the companion counts from 0 or 1 as the loop does).
  std::optional<uint32_t> open_step_;  // the training step open now
  std::optional<uint32_t> last_step_;  // the last step begun
  uint32_t seen_step_ = 0;             // the largest step begun, whatever made the iterations
  uint64_t markers_after_steps_ = 0;
  uint64_t unmatched_ends_ = 0;
  uint64_t unclosed_ranges_ = 0;
  bool keep_ranges_ = false;
  std::vector<MarkerRange> ranges_;
  RecordWarnings* warnings_ = nullptr;
};

}  // namespace memfloor::analysis

// Tests of IterationTracker: the default pattern, nesting, threads, push/pop and start/end.
#include "analysis/iteration_tracker.h"

#include <catch2/catch.hpp>
#include <map>

#include "common/error.h"

namespace memfloor::analysis {
namespace {

using trace::MarkerType;

// Feeds markers by name; names are interned on the fly.
struct Feed {
  IterationTracker tracker{kDefaultIterationPattern};
  symbols::Symbols symbols;
  trace::StringId next = 1;

  RecordWarnings warnings;
  std::string domain;  // of the markers fed: "" the default one

  std::map<std::string, trace::StringId, std::less<>> ids;  // a trace interns by text

  trace::StringId intern(std::string_view text) {
    if (auto it = ids.find(text); it != ids.end()) return it->second;
    symbols.add(trace::StringDef{next, std::string(text)});
    ids.emplace(std::string(text), next);
    return next++;
  }
  Boundary marker(MarkerType type, uint64_t ts, std::string_view name = {}, uint64_t thread = 1,
                  uint64_t id = 0) {
    trace::Marker m;
    m.timestamp = ts;
    m.thread = thread;
    m.id = id;
    m.type = type;
    if (!name.empty()) m.name = intern(name);
    if (!domain.empty()) m.domain = intern(domain);
    tracker.warnInto(&warnings);
    return tracker.onMarker(m, symbols);
  }
  Boundary step(trace::StepPhase phase, uint64_t ts, uint32_t number, uint32_t optimizers = 0) {
    tracker.warnInto(&warnings);
    return tracker.onStep({ts, 1, number, optimizers, phase});
  }
  Boundary stepBegin(uint64_t ts, uint32_t number) {
    return step(trace::StepPhase::kBegin, ts, number);
  }
  Boundary stepEnd(uint64_t ts, uint32_t number) {
    return step(trace::StepPhase::kEnd, ts, number, 1);
  }
  Boundary push(uint64_t ts, std::string_view name, uint64_t thread = 1) {
    return marker(MarkerType::kPush, ts, name, thread);
  }
  Boundary pop(uint64_t ts, uint64_t thread = 1) {
    return marker(MarkerType::kPop, ts, {}, thread);
  }
  Boundary start(uint64_t ts, uint64_t id, std::string_view name, uint64_t thread = 1) {
    return marker(MarkerType::kStart, ts, name, thread, id);
  }
  Boundary end(uint64_t ts, uint64_t id, uint64_t thread = 1) {
    return marker(MarkerType::kEnd, ts, {}, thread, id);
  }
};

TEST_CASE("The default pattern matches iteration-like names only", "[iteration_tracker]") {
  IterationTracker t{kDefaultIterationPattern};
  for (const char* yes : {"iteration", "Iteration 3", "ITER_12", "step", "step-7", "train_step",
                          "train_step 100", "iteration: 4", "step#2", "iter5"}) {
    INFO(yes);
    CHECK(t.matches(yes));
  }
  for (const char* no : {"forward", "optimizer step", "steps", "iteration 3 forward", "stepper",
                         "train", "", "backward_step"}) {
    INFO(no);
    CHECK_FALSE(t.matches(no));
  }
}

TEST_CASE("An invalid pattern is a user error", "[iteration_tracker]") {
  CHECK_THROWS_AS(IterationTracker("(unclosed"), Error);
  // RE2 has no backreferences or lookaround: refused by name, not matched by another engine.
  CHECK_THROWS_WITH(IterationTracker("(a)\\1"),
                    Catch::Contains("invalid iteration pattern '(a)\\1'"));
  CHECK_THROWS_AS(IterationTracker("step(?=1)"), Error);
}

TEST_CASE("Long names and patterns that backtrack match in linear time", "[iteration_tracker]") {
  // A name that recursed once per character in a backtracking engine (a stack overflow).
  const std::string name = "iteration" + std::string(50000, '_') + "1";
  CHECK(IterationTracker{kDefaultIterationPattern}.matches(name));
  CHECK_FALSE(IterationTracker{kDefaultIterationPattern}.matches(name + "x"));
  CHECK(IterationTracker{"iteration.*"}.matches(name));
  CHECK(IterationTracker{"A*"}.matches(std::string(100000, 'a')));
  // Exponential in a backtracking engine: (a+)+b on a run of a's without the b.
  CHECK_FALSE(IterationTracker{"(a+)+b"}.matches(std::string(5000, 'a')));
}

TEST_CASE("Without a pattern, only beginAt and endAt cut iterations", "[iteration_tracker]") {
  Feed f;
  f.tracker = IterationTracker(std::nullopt);
  f.tracker.keepRanges(true);
  CHECK_FALSE(f.tracker.matches("iteration 1"));
  CHECK(f.push(10, "iteration 1") == Boundary::kNone);  // a range, not an iteration
  CHECK(f.pop(20) == Boundary::kNone);
  CHECK(f.tracker.started() == 0);
  CHECK(f.tracker.ranges().size() == 1);
  f.tracker.beginAt(30);
  CHECK(f.tracker.inIteration());
  f.tracker.endAt(45);
  f.tracker.beginAt(50);
  REQUIRE(f.tracker.started() == 2);
  CHECK(f.tracker.iterations()[0].name == "detected");
  CHECK(f.tracker.iterations()[0].start_ns == 30);
  CHECK(f.tracker.iterations()[0].end_ns == 45);
  CHECK(f.tracker.iterations()[0].complete);
  CHECK(f.tracker.finish(60));  // the trace ended inside the second
  CHECK_FALSE(f.tracker.iterations()[1].complete);
}

TEST_CASE("Nested ranges: the outermost matching range is the iteration", "[iteration_tracker]") {
  Feed f;
  CHECK(f.push(10, "iteration 1") == Boundary::kBegin);
  CHECK(f.push(20, "forward") == Boundary::kNone);
  CHECK(f.push(25, "step") == Boundary::kNone);  // matching, nested: no new iteration
  CHECK(f.pop(30) == Boundary::kNone);
  CHECK(f.pop(40) == Boundary::kNone);
  CHECK(f.pop(50) == Boundary::kEnd);
  CHECK(f.push(60, "forward") == Boundary::kNone);
  CHECK(f.pop(70) == Boundary::kNone);
  REQUIRE(f.tracker.iterations().size() == 1);
  const IterationSpan& span = f.tracker.iterations()[0];
  CHECK(span.name == "iteration 1");
  CHECK(span.start_ns == 10);
  CHECK(span.end_ns == 50);
  CHECK(span.complete);
}

TEST_CASE("Push/pop nest per thread", "[iteration_tracker]") {
  Feed f;
  GIVEN("thread 1 in an iteration and thread 2 with its own ranges") {
    CHECK(f.push(10, "step 1", 1) == Boundary::kBegin);
    CHECK(f.push(12, "data", 2) == Boundary::kNone);
    THEN("thread 2's pop closes thread 2's range, not the iteration") {
      CHECK(f.pop(15, 2) == Boundary::kNone);
      CHECK(f.tracker.inIteration());
      CHECK(f.pop(20, 1) == Boundary::kEnd);
    }
  }
  GIVEN("overlapping iteration ranges on two threads") {
    CHECK(f.push(10, "step 1", 1) == Boundary::kBegin);
    CHECK(f.push(15, "step 1", 2) == Boundary::kNone);
    CHECK(f.pop(20, 1) == Boundary::kNone);
    THEN("the iteration lasts until the last of them closes") {
      CHECK(f.pop(30, 2) == Boundary::kEnd);
      REQUIRE(f.tracker.iterations().size() == 1);
      CHECK(f.tracker.iterations()[0].end_ns == 30);
    }
  }
}

TEST_CASE("Start/end pair by id across threads", "[iteration_tracker]") {
  Feed f;
  CHECK(f.start(10, 7, "iteration 1", 1) == Boundary::kBegin);
  CHECK(f.start(12, 8, "forward", 2) == Boundary::kNone);
  CHECK(f.end(14, 8, 1) == Boundary::kNone);
  CHECK(f.end(20, 7, 2) == Boundary::kEnd);
  CHECK(f.start(30, 9, "iteration 2", 2) == Boundary::kBegin);
  CHECK(f.end(40, 9, 1) == Boundary::kEnd);
  REQUIRE(f.tracker.started() == 2);
  CHECK(f.tracker.iterations()[1].name == "iteration 2");
  CHECK(f.tracker.iterations()[1].thread == 2);
}

TEST_CASE("Unmatched ends and unclosed ranges are counted", "[iteration_tracker]") {
  Feed f;
  CHECK(f.pop(5) == Boundary::kNone);
  CHECK(f.end(6, 99) == Boundary::kNone);
  CHECK(f.tracker.unmatchedEnds() == 2);
  f.push(10, "iteration 1");
  f.push(11, "forward");
  f.start(12, 3, "comm");
  CHECK(f.tracker.finish(100));
  CHECK(f.tracker.unclosedRanges() == 3);
  REQUIRE(f.tracker.iterations().size() == 1);
  CHECK(f.tracker.iterations()[0].end_ns == 100);
  CHECK_FALSE(f.tracker.iterations()[0].complete);
  CHECK_FALSE(f.tracker.inIteration());
}

TEST_CASE("A start id reused before its end closes the earlier range", "[iteration_tracker]") {
  Feed f;
  CHECK(f.start(10, 1, "iteration 1") == Boundary::kBegin);
  CHECK(f.start(20, 1, "forward") == Boundary::kEnd);  // the lost end of "iteration 1"
  CHECK(f.start(30, 1, "iteration 2") == Boundary::kBegin);
  CHECK(f.start(40, 1, "iteration 3") == Boundary::kNone);  // one iteration continues
  CHECK(f.end(50, 1) == Boundary::kEnd);
  CHECK(f.tracker.unclosedRanges() == 3);
  CHECK(f.tracker.started() == 2);
}

TEST_CASE("Instant marks and names defined after use are not iterations", "[iteration_tracker]") {
  Feed f;
  CHECK(f.marker(MarkerType::kInstant, 5, "iteration 1") == Boundary::kNone);
  trace::Marker m;
  m.type = MarkerType::kPush;
  m.name = 1000;  // not defined (yet)
  CHECK(f.tracker.onMarker(m, f.symbols) == Boundary::kNone);
  f.symbols.add(trace::StringDef{1000, "step 1"});
  m.timestamp = 10;
  CHECK(f.tracker.onMarker(m, f.symbols) == Boundary::kBegin);  // the late definition counts
}

TEST_CASE("Another domain's ranges never open or close an iteration", "[iteration_tracker]") {
  Feed f;
  CHECK(f.push(10, "iteration 0") == Boundary::kBegin);
  f.domain = "NCCL";
  CHECK(f.push(11, "ncclAllReduce") == Boundary::kNone);
  CHECK(f.push(12, "iteration 9") == Boundary::kNone);  // a matching name in another domain
  CHECK(f.pop(13) == Boundary::kNone);                  // NCCL's pop closes NCCL's range
  f.domain.clear();
  CHECK(f.pop(20) == Boundary::kEnd);  // the default domain's pop closes "iteration 0"
  f.domain = "NCCL";
  CHECK(f.start(25, 5, "iteration 3") == Boundary::kNone);
  f.domain.clear();
  CHECK(f.start(30, 5, "iteration 1") == Boundary::kBegin);  // range ids are per domain
  f.domain = "NCCL";
  CHECK(f.end(35, 5, 1) == Boundary::kNone);
  f.domain.clear();
  CHECK(f.end(40, 5, 1) == Boundary::kEnd);
  REQUIRE(f.tracker.iterations().size() == 2);
  CHECK(f.tracker.iterations()[0].end_ns == 20);
  CHECK(f.tracker.iterations()[1].start_ns == 30);
  CHECK(f.tracker.finish(50) == false);
  CHECK(f.tracker.unclosedRanges() == 1);  // NCCL's range left open never held an iteration
  CHECK(f.warnings.kept().empty());
}

TEST_CASE("A named domain's ranges are the iterations, the default domain's are not",
          "[iteration_tracker]") {
  Feed f;
  f.tracker = IterationTracker(kDefaultIterationPattern, "train");
  CHECK(f.push(10, "iteration 0") == Boundary::kNone);
  f.domain = "train";
  CHECK(f.push(11, "step 1") == Boundary::kBegin);
  CHECK(f.pop(20) == Boundary::kEnd);
}

TEST_CASE("An iteration domain no matching range is in is a warning naming the one that has them",
          "[iteration_tracker]") {
  Feed f;
  f.tracker = IterationTracker(kDefaultIterationPattern, "trian");  // a typo
  f.domain = "train";
  for (uint64_t i = 0; i < 3; ++i) {
    CHECK(f.push(10 * i, "iteration " + std::to_string(i)) == Boundary::kNone);
    CHECK(f.pop(10 * i + 5) == Boundary::kNone);
  }
  f.domain = "NCCL\x1b[2J";  // another domain with a match comes after: the first is named
  CHECK(f.push(40, "iteration 9") == Boundary::kNone);
  CHECK(f.tracker.finish(50) == false);
  REQUIRE(f.warnings.kept().size() == 1);
  CHECK(f.warnings.kept()[0] ==
        "no range in the iteration domain (domain 'trian') matches the iteration pattern; 3 "
        "ranges that match it are in domain 'train': name that domain to take them");
  AND_THEN("one matching range in the iteration domain is enough: no warning") {
    Feed g;
    g.tracker = IterationTracker(kDefaultIterationPattern, "train");
    g.domain = "other";
    g.push(1, "iteration 0");
    g.domain = "train";
    g.push(2, "iteration 1");
    g.pop(3);
    g.tracker.finish(4);
    CHECK(g.warnings.kept().empty());
  }
}

TEST_CASE("A pop with no push is a warning that names it", "[iteration_tracker]") {
  Feed f;
  CHECK(f.push(10, "iteration 0", 1) == Boundary::kBegin);
  CHECK(f.pop(12, 2) == Boundary::kNone);  // thread 2 pushed nothing: thread 1's stack is intact
  f.domain = "NCCL";
  CHECK(f.end(14, 99, 1) == Boundary::kNone);
  f.domain.clear();
  CHECK(f.pop(20, 1) == Boundary::kEnd);
  CHECK(f.tracker.unmatchedEnds() == 2);
  REQUIRE(f.warnings.kept().size() == 2);
  CHECK(f.warnings.kept()[0] ==
        "marker pop t=12 thread=2: no range of its thread is open in the default domain; ignored");
  CHECK(f.warnings.kept()[1] ==
        "marker end t=14 id=99: no range with that id is open in domain 'NCCL'; ignored");
}

TEST_CASE("Training steps are the iterations when no marker matched first", "[iteration_tracker]") {
  Feed f;
  CHECK(f.push(5, "forward") == Boundary::kNone);  // a range that is no iteration
  CHECK(f.stepBegin(10, 1) == Boundary::kBegin);
  CHECK(f.pop(12) == Boundary::kNone);
  CHECK(f.stepEnd(20, 1) == Boundary::kEnd);
  CHECK(f.stepBegin(30, 2) == Boundary::kBegin);
  CHECK(f.stepEnd(40, 2) == Boundary::kEnd);
  CHECK(f.stepBegin(50, 3) == Boundary::kBegin);
  CHECK(f.tracker.finish(60));  // the last step never ended: incomplete
  CHECK(f.tracker.origin() == IterationOrigin::kSteps);
  REQUIRE(f.tracker.iterations().size() == 3);
  CHECK(f.tracker.iterations()[1].name == "step 2");
  CHECK(f.tracker.iterations()[1].start_ns == 30);
  CHECK(f.tracker.iterations()[1].end_ns == 40);
  CHECK_FALSE(f.tracker.iterations()[2].complete);
  CHECK(f.warnings.kept().empty());
  CHECK(f.tracker.markersAfterSteps() == 0);
}

TEST_CASE("Markers win over steps", "[iteration_tracker]") {
  GIVEN("a matching marker first") {
    Feed f;
    CHECK(f.push(5, "iteration 0") == Boundary::kBegin);
    CHECK(f.stepBegin(10, 1) == Boundary::kNone);
    CHECK(f.stepEnd(20, 1) == Boundary::kNone);
    CHECK(f.pop(25) == Boundary::kEnd);
    CHECK(f.tracker.origin() == IterationOrigin::kMarkers);
    CHECK(f.tracker.steps() == 2);
  }
  GIVEN("a step first: the matching markers after it are counted for a replay") {
    Feed f;
    CHECK(f.stepBegin(10, 1) == Boundary::kBegin);
    CHECK(f.push(12, "iteration 0") == Boundary::kNone);
    CHECK(f.pop(15) == Boundary::kNone);
    CHECK(f.stepEnd(20, 1) == Boundary::kEnd);
    CHECK(f.tracker.markersAfterSteps() == 1);
    AND_THEN("a tracker for markers only ignores the steps") {
      Feed g;
      g.tracker.markersOnly();
      CHECK(g.stepBegin(10, 1) == Boundary::kNone);
      CHECK(g.push(12, "iteration 0") == Boundary::kBegin);
      CHECK(g.pop(15) == Boundary::kEnd);
      CHECK(g.stepEnd(20, 1) == Boundary::kNone);
    }
  }
}

TEST_CASE("Step records out of order are warnings that name them", "[iteration_tracker]") {
  Feed f;
  CHECK(f.stepEnd(5, 1) == Boundary::kNone);  // no step begun
  CHECK(f.stepBegin(10, 1) == Boundary::kBegin);
  CHECK(f.stepEnd(15, 7) == Boundary::kNone);    // another step's end
  CHECK(f.stepBegin(20, 2) == Boundary::kNone);  // step 1's end is missing: one iteration
  CHECK(f.stepEnd(30, 2) == Boundary::kEnd);
  CHECK(f.stepBegin(40, 2) == Boundary::kBegin);  // a number that does not grow
  CHECK(f.stepEnd(50, 2) == Boundary::kEnd);
  REQUIRE(f.tracker.iterations().size() == 2);
  CHECK(f.tracker.iterations()[0].end_ns == 30);
  const std::vector<std::string>& w = f.warnings.kept();
  REQUIRE(w.size() == 4);
  CHECK(w[0] == "step end t=5 step=1: no step is open; ignored");
  CHECK(w[1] == "step end t=15 step=7: out of order, step 1 is open; ignored");
  CHECK(w[2] ==
        "step begin t=20 step=2: step 1 has not ended (its end record is missing); both are one "
        "iteration");
  CHECK(w[3] == "step begin t=40 step=2: out of order, after step 2; taken as it comes");
}

TEST_CASE("Step 0 is a step like any other", "[iteration_tracker]") {
  // A loop that counts from 0: begin, end, begin of step 0 are two iterations, not a step left
  // open (step 0 was once also "no step open", and the second begin a span with no end).
  Feed f;
  CHECK(f.stepBegin(10, 0) == Boundary::kBegin);
  CHECK(f.stepEnd(20, 0) == Boundary::kEnd);
  CHECK(f.stepBegin(30, 0) == Boundary::kBegin);
  CHECK(f.stepEnd(40, 0) == Boundary::kEnd);
  REQUIRE(f.tracker.iterations().size() == 2);
  CHECK(f.tracker.iterations()[1].start_ns == 30);
  REQUIRE(f.warnings.kept().size() == 1);
  CHECK(f.warnings.kept()[0] ==
        "step begin t=30 step=0: out of order, after step 0; taken as it comes");
}

TEST_CASE("Warnings past the first few are counted", "[iteration_tracker]") {
  Feed f;
  for (uint64_t i = 0; i < RecordWarnings::kKept + 5; ++i) f.pop(10 + i);
  CHECK(f.warnings.kept().size() == RecordWarnings::kKept);
  CHECK(f.warnings.leftOut() == 5);
}

}  // namespace
}  // namespace memfloor::analysis

// The 1F1B order: warm-up/steady/cool-down counts per stage and a valid one-process order (no GPU).
#include "pipeline_schedule.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

namespace refmodel {
namespace {

TEST_CASE("1F1B counts: stage r warms up with p - r - 1 forwards") {
  const StageCounts first = oneFOneBCounts(4, 8, 0);
  CHECK(first.warmup == 3);
  CHECK(first.steady == 5);
  CHECK(first.cooldown == 3);
  const StageCounts last = oneFOneBCounts(4, 8, 3);
  CHECK(last.warmup == 0);
  CHECK(last.steady == 8);
  CHECK(last.cooldown == 0);
  const StageCounts few = oneFOneBCounts(4, 2, 0);  // fewer micro-batches than stages
  CHECK(few.warmup == 2);
  CHECK(few.steady == 0);
}

TEST_CASE("1F1B stage order and in-flight micro-batches") {
  const auto order = oneFOneBStageOrder(3, 4, 0);
  std::vector<std::string> names;
  for (const auto& s : order) names.push_back(toString(s));
  CHECK(names ==
        std::vector<std::string>{"F0@0", "F1@0", "F2@0", "B0@0", "F3@0", "B1@0", "B2@0", "B3@0"});
  for (int p : {1, 2, 4}) {
    for (int r = 0; r < p; ++r) {
      int in_flight = 0;
      int most = 0;
      for (const auto& s : oneFOneBStageOrder(p, 6, r)) {
        in_flight += s.kind == StepKind::kForward ? 1 : -1;
        most = std::max(most, in_flight);
      }
      CHECK(most == p - r);  // w + 1 activations held at most
    }
  }
}

TEST_CASE("the one-process order respects every dependency") {
  for (int p : {1, 2, 3, 4}) {
    for (int m : {1, 2, 5, 8}) {
      const auto order = oneFOneBGlobalOrder(p, m);
      REQUIRE(order.size() == static_cast<std::size_t>(2 * p * m));
      std::map<std::tuple<int, int, int>, std::size_t> position;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const auto& s = order[i];
        position[{s.stage, static_cast<int>(s.kind), s.micro_batch}] = i;
      }
      for (int r = 0; r < p; ++r) {
        for (int k = 0; k < m; ++k) {
          const auto f = position.at({r, 0, k});
          const auto b = position.at({r, 1, k});
          CHECK(f < b);
          if (r > 0) CHECK(position.at({r - 1, 0, k}) < f);
          if (r < p - 1) CHECK(position.at({r + 1, 1, k}) < b);
        }
      }
    }
  }
}

}  // namespace
}  // namespace refmodel

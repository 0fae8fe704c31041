// The 1F1B order: warm-up/steady/cool-down counts per stage, a valid one-process order, and rank
// programs whose transfers match and cannot deadlock (no GPU).
#include "pipeline_schedule.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <tuple>

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

// Runs every stage's rank program against the others with blocking transfers (a send completes only
// once its peer posted the matching receive, as NCCL's large sends do): a group completes when each
// of its transfers has its counterpart posted, and a rank waits on its group. Returns false on a
// deadlock. Counterparts match by position on their directed channel.
bool programsComplete(const std::vector<std::vector<RankAction>>& programs) {
  const int p = static_cast<int>(programs.size());
  using Channel = std::pair<int, int>;  // (from, to)
  std::map<Channel, int> sends_posted, recvs_posted;
  std::vector<std::size_t> cursor(programs.size(), 0);
  std::vector<bool> group_posted(programs.size(), false);
  std::vector<std::vector<std::pair<Channel, int>>> waiting(programs.size());  // (channel, ordinal)
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int r = 0; r < p; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      while (cursor[ri] < programs[ri].size()) {
        const RankAction& action = programs[ri][cursor[ri]];
        if (action.isCompute()) {
          ++cursor[ri];
          progressed = true;
          continue;
        }
        if (!group_posted[ri]) {
          waiting[ri].clear();
          for (const Transfer& t : action.transfers) {
            const int peer = t.peer(r);
            const Channel channel = t.send ? Channel{r, peer} : Channel{peer, r};
            waiting[ri].push_back({channel, (t.send ? sends_posted : recvs_posted)[channel]++});
          }
          group_posted[ri] = true;
          progressed = true;
        }
        // A transfer's counterpart is posted once the other side's count on the channel passed it.
        bool complete = true;
        for (std::size_t i = 0; i < action.transfers.size(); ++i) {
          const auto& [channel, ordinal] = waiting[ri][i];
          complete &= (action.transfers[i].send ? recvs_posted : sends_posted)[channel] > ordinal;
        }
        if (!complete) break;
        group_posted[ri] = false;
        ++cursor[ri];
        progressed = true;
      }
    }
  }
  for (std::size_t r = 0; r < programs.size(); ++r) {
    if (cursor[r] < programs[r].size()) return false;
  }
  return true;
}

TEST_CASE("rank programs: inputs arrive before use, transfers match, no deadlock") {
  for (int p : {1, 2, 3, 4, 6}) {
    for (int m : {1, 2, 3, 5, 8}) {
      INFO("stages " << p << " micro-batches " << m);
      std::vector<std::vector<RankAction>> programs;
      std::map<std::pair<int, int>, std::vector<int>> sent, received;  // channel -> micro-batches
      for (int r = 0; r < p; ++r) {
        programs.push_back(oneFOneBRankProgram(p, m, r));
        std::vector<ScheduleStep> computes;
        std::set<std::pair<int, int>> have;  // (kind, micro-batch) received or computed here
        for (const RankAction& a : programs.back()) {
          if (a.isCompute()) {
            computes.push_back(a.step);
            const bool forward = a.step.kind == StepKind::kForward;
            const bool needs_input = forward ? r > 0 : r < p - 1;
            if (needs_input) CHECK(have.count({static_cast<int>(a.step.kind), a.step.micro_batch}));
            have.insert({static_cast<int>(a.step.kind) + 2, a.step.micro_batch});
            continue;
          }
          CHECK(a.transfers.size() <= 2);
          for (const Transfer& t : a.transfers) {
            const int peer = t.peer(r);
            REQUIRE(peer >= 0);
            REQUIRE(peer < p);
            if (t.send) {
              CHECK(have.count({static_cast<int>(t.kind) + 2, t.micro_batch}));  // after its step
              sent[{r, peer}].push_back(t.micro_batch);
            } else {
              have.insert({static_cast<int>(t.kind), t.micro_batch});
              received[{peer, r}].push_back(t.micro_batch);
            }
            // a group talks to one peer only
            CHECK(a.transfers.front().peer(r) == peer);
          }
        }
        CHECK(computes == oneFOneBStageOrder(p, m, r));
      }
      CHECK(sent == received);
      CHECK(programsComplete(programs));
    }
  }
}

TEST_CASE("rank programs: two stages, four micro-batches, as Megatron posts them") {
  const auto text = [](int stage) {
    std::string out;
    for (const RankAction& a : oneFOneBRankProgram(2, 4, stage)) out += toString(a, stage) + " ";
    return out;
  };
  CHECK(text(0) ==
        "F0@0 sendF0>1 F1@0 sendF1>1+recvB0<1 B0@0 F2@0 sendF2>1+recvB1<1 B1@0 F3@0 "
        "sendF3>1+recvB2<1 B2@0 recvB3<1 B3@0 ");
  CHECK(text(1) ==
        "recvF0<0 F0@1 B0@1 sendB0>0+recvF1<0 F1@1 B1@1 sendB1>0+recvF2<0 F2@1 B2@1 "
        "sendB2>0+recvF3<0 F3@1 B3@1 sendB3>0 ");
}

TEST_CASE("the deadlock check finds a deadlock") {
  // Both ranks send first and receive after, each alone: each send waits for a receive that is
  // queued behind the other rank's send.
  const std::vector<std::vector<RankAction>> crossed = {
      {{{Transfer{true, StepKind::kForward, 0}}, {}},
       {{Transfer{false, StepKind::kBackward, 0}}, {}}},
      {{{Transfer{true, StepKind::kBackward, 0}}, {}},
       {{Transfer{false, StepKind::kForward, 0}}, {}}}};
  CHECK_FALSE(programsComplete(crossed));
}

}  // namespace
}  // namespace refmodel

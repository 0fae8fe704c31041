// PeriodDetector: per-signature gap statistics and the choice of the period.
#include "analysis/period_detector.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace memfloor::analysis {

void PeriodDetector::Gaps::add(double gap) {
  ++n;
  const double period = this->period();
  if (votes > 0 && std::abs(gap - period) <= kTolerance * period) {
    ++votes;
    ++agreed;
    sum += gap;
  } else if (votes > 0) {
    --votes;
  } else {  // no candidate left: this gap is the new one
    votes = 1;
    agreed = 1;
    sum = gap;
  }
}

void PeriodDetector::onAlloc(MemoryKey key, trace::StackId stack, uint64_t size,
                             uint64_t timestamp) {
  const Signature::Key k{size, key.device, stack, static_cast<uint8_t>(key.kind)};
  Signature* s = signatures_.find(k);
  if (s == nullptr) {
    if (signatures_.size() >= kMaxSignatures) return;
    bool inserted = false;
    s = &signatures_.findOrInsert(k, inserted);
    s->first_ns = timestamp;
  }
  const uint32_t i = s->count;  // this occurrence's index
  // Events come in timestamp order: no gap is negative.
  for (uint32_t m = 1; m <= kMaxLag && m <= i; ++m) {
    s->gaps[m - 1].add(static_cast<double>(timestamp - s->recent[(i - m) % kMaxLag]));
  }
  s->recent[i % kMaxLag] = timestamp;
  ++s->count;
}

std::optional<DetectedPeriod> PeriodDetector::choose() const {
  struct Anchor {
    DetectedPeriod period;
    uint64_t first_ns = 0;
    double regular_ns = 0;  // the time its agreeing gaps cover (regularStretch)
  };
  std::vector<Anchor> candidates;
  double longest = 0;
  signatures_.forEach([&](const Signature& s) {
    // The signature's lag: of its regular lags, not a harmonic of a shorter one (k times the lag,
    // k times the period), the one most gaps agree with; then the longer (a burst of k
    // allocations per period is also about regular at lag k - 1, less so).
    uint32_t best = 0;
    for (uint32_t m = 1; m <= kMaxLag && s.count >= kMinCycles * m; ++m) {
      const Gaps& g = s.gaps[m - 1];
      // Gaps of no time are no loop: allocations made at one instant (a snapshot's state, made at
      // its trace's start) would otherwise cut an iteration per allocation.
      if (!g.regular() || g.period() < 1.0) continue;
      bool harmonic = false;
      for (uint32_t d = 1; d < m && !harmonic; ++d) {
        const Gaps& shorter = s.gaps[d - 1];
        const double multiple = shorter.period() * m / d;
        harmonic = m % d == 0 && s.count >= kMinCycles * d && shorter.regular() &&
                   std::abs(g.period() - multiple) <= kTolerance * multiple;
      }
      if (harmonic) continue;
      if (best == 0 || g.agreement() >= s.gaps[best - 1].agreement()) best = m;
    }
    if (best == 0) return;
    const Gaps& gaps = s.gaps[best - 1];
    Anchor& a = candidates.emplace_back();
    DetectedPeriod& p = a.period;
    p.key = {s.k.device, static_cast<trace::MemoryKind>(s.k.kind)};
    p.stack = s.k.stack;
    p.size = s.k.size;
    p.every = best;
    p.occurrences = s.count;
    p.period_ns = static_cast<uint64_t>(std::llround(gaps.period()));
    p.regular_permille = static_cast<uint32_t>(std::lround(gaps.agreement() * 1000));
    a.first_ns = s.first_ns;
    a.regular_ns = gaps.regularStretch(best);
    longest = std::max(longest, a.regular_ns);
  });
  // A regular stretch much shorter than the longest (a set-up loop) is not the training loop. The
  // stretch is the time the agreeing gaps cover, not first to last occurrence: a signature that
  // also came in a long warm-up step would otherwise look longer than the loop itself, and which
  // signatures pass would depend on how much of the warm-up the trace holds. Among the rest: the
  // most periods, then the most regular, then the earliest; the key decides exact ties, so that
  // the choice never depends on the table's order.
  auto rank = [](const Anchor& a) {
    const DetectedPeriod& p = a.period;
    return std::make_tuple(-static_cast<int64_t>(p.occurrences / p.every),
                           -static_cast<int64_t>(p.regular_permille), a.first_ns, p.key.device,
                           p.key.kind, p.stack, p.size);
  };
  const Anchor* best = nullptr;
  for (const Anchor& a : candidates) {
    if (a.regular_ns < longest / 2) continue;
    if (best == nullptr || rank(a) < rank(*best)) best = &a;
  }
  if (best == nullptr) return std::nullopt;
  return best->period;
}

}  // namespace memfloor::analysis

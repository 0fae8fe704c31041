// PeriodDetector: per-signature gap statistics and the choice of the period.
#include "reports/period_detector.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace memfloor::reports {

void PeriodDetector::Gaps::add(double gap) {
  ++n;
  const double delta = gap - mean;
  mean += delta / n;
  m2 += delta * (gap - mean);
}

double PeriodDetector::Gaps::variation() const {
  return mean > 0 ? std::sqrt(m2 / n) / mean : INFINITY;
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
  s->last_ns = timestamp;
  ++s->count;
}

std::optional<DetectedPeriod> PeriodDetector::choose() const {
  struct Anchor {
    DetectedPeriod period;
    uint64_t first_ns = 0;
    uint64_t last_ns = 0;
  };
  std::vector<Anchor> candidates;
  uint64_t longest = 0;
  signatures_.forEach([&](const Signature& s) {
    // The smallest regular lag is the period: its multiples are regular too.
    const double single = s.gaps[0].variation();
    for (uint32_t m = 1; m <= kMaxLag && s.count >= kMinCycles * m; ++m) {
      const double variation = s.gaps[m - 1].variation();
      if (!(variation <= kMaxGapVariation)) continue;
      // Sums of m random gaps vary about 1/sqrt(m) as much as one: a longer lag must do better.
      if (m > 1 && !(variation <= kLagGain * single / std::sqrt(m))) continue;
      Anchor& a = candidates.emplace_back();
      DetectedPeriod& p = a.period;
      p.key = {s.k.device, static_cast<trace::MemoryKind>(s.k.kind)};
      p.stack = s.k.stack;
      p.size = s.k.size;
      p.every = m;
      p.occurrences = s.count;
      p.period_ns = static_cast<uint64_t>(std::llround(s.gaps[m - 1].mean));
      p.gap_variation_permille = static_cast<uint32_t>(std::lround(variation * 1000));
      a.first_ns = s.first_ns;
      a.last_ns = s.last_ns;
      longest = std::max(longest, s.last_ns - s.first_ns);
      break;
    }
  });
  // The key decides exact ties, so that the choice never depends on the table's order.
  auto rank = [](const Anchor& a) {
    const DetectedPeriod& p = a.period;
    return std::make_tuple(-static_cast<int64_t>(p.occurrences / p.every), a.first_ns, p.key.device,
                           p.key.kind, p.stack, p.size);
  };
  const Anchor* best = nullptr;
  for (const Anchor& a : candidates) {
    if (2 * (a.last_ns - a.first_ns) < longest) continue;
    if (best == nullptr || rank(a) < rank(*best)) best = &a;
  }
  if (best == nullptr) return std::nullopt;
  return best->period;
}

}  // namespace memfloor::reports

// PeriodDetector: the period of a trace without iteration markers, from an allocation that recurs
// at regular times (docs/design.md, "Detected iterations"). IdleCuts then finds where to cut.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "reports/flat_table.h"
#include "reports/report.h"
#include "trace/records.h"

namespace memfloor::reports {

// An iteration repeats its allocations, but an allocation need not come once per iteration: one
// per micro-batch comes k times, at gaps that alternate. So the detector follows, per allocation
// signature (device, memory kind, stack, size), the gaps between each occurrence and the m-th one
// before it for every lag m up to kMaxLag (Welford: mean and spread); the smallest lag whose gaps
// are regular gives the signature's period. A steady random stream is regular at long lags too
// (the law of large numbers), so a lag m > 1 must beat that by kLagGain. O(kMaxLag) per allocation;
// memory bounded by kMaxSignatures.
class PeriodDetector {
 public:
  static constexpr uint32_t kMaxLag = 8;
  static constexpr size_t kMaxSignatures = size_t{1} << 14;  // later new ones are ignored
  // Gaps whose standard deviation exceeds this share of their mean are not a period.
  static constexpr double kMaxGapVariation = 0.25;
  // At a lag m > 1, also at most this share of what m random gaps would give (single / sqrt(m)).
  static constexpr double kLagGain = 0.5;
  static constexpr uint32_t kMinCycles = 3;

  void onAlloc(MemoryKey key, trace::StackId stack, uint64_t size, uint64_t timestamp);

  // Each signature with at least kMinCycles * m occurrences, for its smallest lag m whose gaps are
  // regular, is a candidate. Candidates covering less than half the time of the longest are
  // dropped (a set-up loop); of the rest, the one with the most periods wins, then the earliest.
  // Empty when there is no candidate.
  std::optional<DetectedPeriod> choose() const;

 private:
  struct Gaps {  // Welford's running mean and sum of squared deviations
    uint32_t n = 0;
    double mean = 0;
    double m2 = 0;
    void add(double gap);
    double variation() const;  // standard deviation / mean
  };

  struct Signature {
    struct Key {
      uint64_t size;
      uint32_t device;
      trace::StackId stack;
      uint8_t kind;
      bool operator==(const Key&) const = default;
    };
    Key k{};
    bool used = false;
    uint32_t count = 0;
    uint64_t first_ns = 0;
    uint64_t last_ns = 0;
    std::array<uint64_t, kMaxLag> recent{};  // occurrence i's time at [i % kMaxLag]
    std::array<Gaps, kMaxLag> gaps{};        // [m - 1]: time of occurrence i minus of i - m

    Key key() const { return k; }
    void setKey(const Key& key) {
      k = key;
      used = true;
    }
    bool empty() const { return !used; }
    static uint64_t hash(const Key& key) {
      return mixHash(key.size ^ (uint64_t{key.stack} << 20) ^ (uint64_t{key.device} << 40) ^
                     (uint64_t{key.kind} << 58));
    }
  };

  FlatTable<Signature> signatures_{64};
};

}  // namespace memfloor::reports

// PeriodDetector: the period of a trace without iteration markers, from an allocation that recurs
// at regular times (docs/design.md, "Detected iterations"). IdleCuts then finds where to cut.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/flat_table.h"
#include "analysis/report.h"
#include "trace/records.h"

namespace memfloor::analysis {

// An iteration repeats its allocations, but an allocation need not come once per iteration: one
// per micro-batch comes k times, at gaps that alternate. So the detector follows, per allocation
// signature (device, memory kind, stack, size), the gaps between each occurrence and the m-th one
// before it for every lag m up to kMaxLag (choose() says which lag gives the period). Regular: a
// majority vote (Boyer-Moore) with a tolerance finds the gap most of them agree on, within
// kTolerance of their mean, and those that agree outnumber the others by at least half of all gaps
// (about 3 in 4 agree). Warm-up and stalls are outliers and only cost votes; sums of m random gaps
// are no period, as they spread more than kTolerance. O(kMaxLag) per allocation; memory bounded by
// kMaxSignatures.
class PeriodDetector {
 public:
  static constexpr uint32_t kMaxLag = 8;
  static constexpr size_t kMaxSignatures = size_t{1} << 14;  // later new ones are ignored
  static constexpr double kTolerance = 0.1;                  // of the period
  static constexpr uint32_t kMinCycles = 3;

  void onAlloc(MemoryKey key, trace::StackId stack, uint64_t size, uint64_t timestamp);

  // Each signature is a candidate with one of its regular lags m (at least kMinCycles * m
  // occurrences): not a harmonic of a shorter regular lag, the one most gaps agree with.
  // Candidates whose agreeing gaps cover less than half the time of the longest are dropped (a
  // set-up loop); of the rest, the one with the most periods wins, then the most regular, then the
  // earliest.
  // Empty when there is no candidate.
  std::optional<DetectedPeriod> choose() const;

 private:
  struct Gaps {
    uint32_t n = 0;       // gaps seen
    int32_t votes = 0;    // for `period`: agreeing minus disagreeing since it was chosen
    uint32_t agreed = 0;  // since it was chosen
    double sum = 0;       // of those that agreed
    void add(double gap);
    double period() const { return agreed > 0 ? sum / agreed : 0; }
    double agreement() const { return n > 0 ? static_cast<double>(agreed) / n : 0; }
    bool regular() const { return votes > 0 && 2 * static_cast<uint32_t>(votes) >= n; }
    // At lag m each agreeing gap spans one period and overlaps the m - 1 before it: together they
    // cover about agreed / m periods.
    double regularStretch(uint32_t m) const { return sum / m; }
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
    std::array<uint64_t, kMaxLag> recent{};  // occurrence i's time at [i % kMaxLag]
    std::array<Gaps, kMaxLag> gaps{};        // [m - 1]: time of occurrence i minus of i - m

    Key key() const { return k; }
    void setKey(const Key& key) {
      k = key;
      used = true;
    }
    bool empty() const { return !used; }
    // The fields spread over the word before mixing: stack ids below 2^20, devices below 2^18.
    static constexpr unsigned kStackShift = 20, kDeviceShift = 40, kKindShift = 58;
    static uint64_t hash(const Key& key) {
      return mixHash(key.size ^ (uint64_t{key.stack} << kStackShift) ^
                     (uint64_t{key.device} << kDeviceShift) ^ (uint64_t{key.kind} << kKindShift));
    }
  };

  FlatTable<Signature> signatures_{64};
};

}  // namespace memfloor::analysis

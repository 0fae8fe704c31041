// RecordWarnings: what the analysis could not take as the records say, record by record.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memfloor::analysis {

// Each warning names one record (its type, time, thread or id, as `memfloor trace to-text` writes
// them), says what is wrong with it and what the analysis did instead. The first kKept are kept; a
// trace damaged throughout only counts the rest.
class RecordWarnings {
 public:
  static constexpr size_t kKept = 20;

  void add(std::string message) {
    if (kept_.size() < kKept) {
      kept_.push_back(std::move(message));
    } else {
      ++left_out_;
    }
  }
  const std::vector<std::string>& kept() const { return kept_; }
  uint64_t leftOut() const { return left_out_; }

 private:
  std::vector<std::string> kept_;
  uint64_t left_out_ = 0;
};

}  // namespace memfloor::analysis

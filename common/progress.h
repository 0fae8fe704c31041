// Progress: a counter line on a terminal ("analyze: 37/256 traces"), redrawn in place while long
// work runs, for the commands whose work takes more than a moment.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>

namespace memfloor::common {

class Progress {
 public:
  // Nothing is drawn before the work has run this long: quick work stays quiet.
  static constexpr std::chrono::milliseconds kDelay{1500};
  // The least time between two redraws: a line redrawn more often than about ten times a second
  // flickers, and the writes cost the workers.
  static constexpr std::chrono::milliseconds kInterval{100};

  struct Options {
    std::chrono::milliseconds delay = kDelay;
    std::chrono::milliseconds interval = kInterval;
    // Drawn only when `fd` is a terminal: a log or a pipe gets no carriage returns. False only
    // for tests, which read what is drawn from a pipe.
    bool terminal_only = true;
  };

  // `label` opens the line, `unit` names what is counted ("traces"). The work starts now.
  explicit Progress(std::string label, std::string unit, int fd = STDERR_FILENO)
      : Progress(std::move(label), std::move(unit), fd, Options{}) {}
  Progress(std::string label, std::string unit, int fd, Options options);
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` finished. Thread-safe; cheap when nothing is drawn. The last count is
  // always drawn when the line is shown; counts arriving out of order never move it back.
  void update(size_t done, size_t total);

  // Clears the line, if one was drawn, so what is printed next starts at the left; later updates
  // draw nothing. Thread-safe; the destructor calls it.
  void finish();

 private:
  void draw(size_t done, size_t total);  // under mutex_

  std::string label_;
  std::string unit_;
  int fd_;
  Options options_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point drawn_at_{};
  size_t drawn_width_ = 0;  // characters of the line on the terminal; 0: none drawn
  size_t done_ = 0;
  bool finished_ = false;
};

}  // namespace memfloor::common

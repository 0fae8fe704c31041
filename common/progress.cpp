// Progress: when to draw the counter line, and clearing it.
#include "common/progress.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/write_all.h"

namespace memfloor::common {

Progress::Progress(std::string label, std::string unit, int fd, Options options)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      fd_(fd),
      options_(options),
      enabled_(!options.terminal_only || ::isatty(fd) == 1),
      start_(std::chrono::steady_clock::now()) {}

void Progress::update(size_t done, size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < options_.delay) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  done_ = std::max(done_, done);
  // The first line, the last count, or once the interval has passed since the last redraw.
  if (drawn_width_ != 0 && done_ < total && now - drawn_at_ < options_.interval) return;
  drawn_at_ = now;
  draw(done_, total);
}

void Progress::draw(size_t done, size_t total) {
  std::string line = fmt::format("{}: {}/{} {}", label_, done, total, unit_);
  const size_t width = line.size();
  // Blanks over what is left of a longer line before: counts only grow, but totals may differ.
  if (width < drawn_width_) line.append(drawn_width_ - width, ' ');
  line.insert(0, 1, '\r');
  // A progress line that cannot be written is not worth stopping the work for.
  (void)writeAll(fd_, line.data(), line.size());
  drawn_width_ = std::max(drawn_width_, width);
}

void Progress::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (drawn_width_ == 0) return;
  const std::string blank = "\r" + std::string(drawn_width_, ' ') + "\r";
  (void)writeAll(fd_, blank.data(), blank.size());
}

}  // namespace memfloor::common

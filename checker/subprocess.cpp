// A child process through common/process.h, its two output pipes read until both are closed.
#include "checker/subprocess.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "common/error.h"
#include "common/process.h"

namespace memfloor::checker {
namespace {

// Appends `data` to `to` (up to `max` bytes kept).
void keep(std::string_view data, std::string& to, std::size_t max, bool& truncated) {
  const std::size_t room = max - std::min(max, to.size());
  const std::size_t kept = std::min(room, data.size());
  to.append(data.data(), kept);
  if (kept < data.size()) truncated = true;
}

// The same into pieces of kOutPieceBytes, each allocated once; `kept` counts the bytes kept.
void keep(std::string_view data, PiecewiseText& to, std::size_t& kept, std::size_t max,
          bool& truncated) {
  const std::size_t keep = std::min(max - std::min(max, kept), data.size());
  for (std::size_t done = 0; done < keep;) {
    if (to.pieces.empty() || to.pieces.back().size() == kOutPieceBytes) {
      to.pieces.emplace_back().reserve(kOutPieceBytes);
    }
    std::string& piece = to.pieces.back();
    const std::size_t part = std::min(keep - done, kOutPieceBytes - piece.size());
    piece.append(data.data() + done, part);
    done += part;
  }
  kept += keep;
  if (keep < data.size()) truncated = true;
}

}  // namespace

std::size_t PiecewiseText::size() const {
  std::size_t total = 0;
  for (const std::string& piece : pieces) total += piece.size();
  return total;
}

std::string PiecewiseText::joined() const {
  std::string text;
  text.reserve(size());
  for (const std::string& piece : pieces) text += piece;
  return text;
}

SubprocessResult runSubprocess(const std::vector<std::string>& argv, std::size_t max_out) {
  if (argv.empty()) throw Error("cannot run a program: no command given");
  common::ProgramOptions options;
  options.redirects = {common::Redirect::null(), common::Redirect::pipe(),
                       common::Redirect::pipe()};
  common::Process child = common::startProgram(argv, options);
  if (!child.started()) throw Error("cannot run '" + argv[0] + "': " + child.error());
  SubprocessResult result;
  bool err_truncated = false;
  std::size_t out_kept = 0;
  const int error = common::readUntilEnd(
      child.pipe(common::kStdout).get(),
      [&](std::string_view data) {
        keep(data, result.out, out_kept, max_out, result.out_truncated);
      },
      child.pipe(common::kStderr).get(),
      [&](std::string_view data) {
        keep(data, result.err, kMaxSubprocessErrBytes, err_truncated);
      });
  if (error != 0) {
    child.kill(SIGKILL);
    child.wait();
    throw Error("cannot read the output of '" + argv[0] + "': " + std::strerror(error));
  }
  const common::ExitStatus status = child.wait();
  result.exit_code = status.exit_code;
  result.signal = status.signal;
  return result;
}

}  // namespace memfloor::checker

// The one exception type of the offline side (trace readers, analysis, reports, checker, cli): bad
// input, with a message a user can act on. The hook and the trace writer never throw.
#pragma once

#include <stdexcept>
#include <string_view>

#include "common/printable.h"

namespace memfloor {

// Thrown on unusable input (a file that is not a trace, a newer major version, a malformed text
// line...). The message names the file and what is wrong; the command line maps it to exit code 2.
// The hook and the trace writer never throw.
class Error : public std::runtime_error {
 public:
  // The message keeps its control bytes as \xNN (common/printable.h): it quotes paths and tokens
  // from untrusted input, what() is a C string that a NUL would cut short, and an escape sequence
  // must not reach the user's terminal. Line breaks and tabs stay: a message may quote a child's
  // standard error whole (the memfloor command line prints every message on one line anyway).
  explicit Error(std::string_view message)
      : std::runtime_error(common::printableExcept(message, "\n\t")) {}
};

}  // namespace memfloor

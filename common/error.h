// The one exception type of the offline side (trace readers, analysis, reports, checker, cli): bad
// input, with a message a user can act on. Header-only; the hook and the trace writer never throw.
#pragma once

#include <stdexcept>

namespace memfloor {

// Thrown on unusable input (a file that is not a trace, a newer major version, a malformed text
// line...). The message names the file and what is wrong; the command line maps it to exit code 2.
// The hook and the trace writer never throw.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace memfloor

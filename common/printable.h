// Text from an input (paths, names, tokens) made safe to print on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace memfloor::common {

// `text` with control bytes (C0, DEL, and C1 as UTF-8 encodes them) written as \xNN, so that an
// input cannot move the cursor or change a terminal's state; other bytes as they are.
std::string printable(std::string_view text);
// The same, leaving the control bytes in `keep` as they are (for an escaper of its own: "\r\n").
std::string printableExcept(std::string_view text, std::string_view keep);

}  // namespace memfloor::common

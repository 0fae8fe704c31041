// Text from a trace made safe to print.
#include "common/printable.h"

#include <fmt/format.h>

#include <iterator>

namespace memfloor::common {
namespace {

constexpr unsigned char kDelete = 0x7f;
constexpr unsigned char kC1Lead = 0xc2;  // UTF-8 of U+0080..U+009F: 0xc2 0x80..0x9f
constexpr unsigned char kC1First = 0x80;
constexpr unsigned char kC1Last = 0x9f;

}  // namespace

std::string printable(std::string_view text) { return printableExcept(text, {}); }

std::string printableExcept(std::string_view text, std::string_view keep) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](unsigned char c) {
    fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < ' ' || c == kDelete) && keep.find(text[i]) == std::string_view::npos) {
      escape(c);
    } else if (c < ' ' || c == kDelete) {
      out += text[i];
    } else if (c == kC1Lead && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= kC1First &&
               static_cast<unsigned char>(text[i + 1]) <= kC1Last) {
      escape(c);
      escape(static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace memfloor::common

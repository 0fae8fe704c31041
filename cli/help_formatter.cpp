// The help text's formatter.
#include "cli/help_formatter.h"

#include <string_view>

namespace memfloor::cli {

std::string withoutFlagValues(const std::string& names) {
  std::string out;
  bool in_value = false;
  for (const char c : names) {
    if (c == '{') in_value = true;
    if (!in_value) out += c;
    if (c == '}') in_value = false;
  }
  return out;
}

std::string withoutTextBeforeChoices(const std::string& opts) {
  constexpr std::string_view kText = "TEXT:{";
  std::string out = opts;
  for (size_t at = out.find(kText); at != std::string::npos; at = out.find(kText, at)) {
    out.erase(at, kText.size() - 1);  // keeps the '{'
  }
  return out;
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  return withoutFlagValues(CLI::Formatter::make_option_name(opt, is_positional));
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  return withoutTextBeforeChoices(CLI::Formatter::make_option_opts(opt));
}

}  // namespace memfloor::cli

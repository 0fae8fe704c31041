// The help text's formatter: CLI11's, without the value a flag stores written after its name
// ("--no-table{false}": the description says what the flag does), and with a choice's type its
// choices ("{async,native}", not "TEXT:{async,native}"). Every other option names its type
// (FILE, DIR, GLOB, ...) where it is declared.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace memfloor::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
};

// `names` without the "{...}" after each name: "--strict, --lax{false}" -> "--strict, --lax".
std::string withoutFlagValues(const std::string& names);

// `opts` without the "TEXT:" before a choice's list: " TEXT:{a,b}=a" -> " {a,b}=a".
std::string withoutTextBeforeChoices(const std::string& opts);

}  // namespace memfloor::cli

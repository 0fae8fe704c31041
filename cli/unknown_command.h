// What memfloor says of a word where a command belongs and names none: "unknown command
// 'analyse'; did you mean 'analyze'?", the nearest command by edit distance, else the list.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace memfloor::cli {

// The edits (insert, delete, replace a character, swap two adjacent ones) that turn `a` into `b`:
// the optimal string alignment distance.
std::size_t editDistance(std::string_view a, std::string_view b);

// The name in `names` nearest to `word`, where it is near enough to be a typo of it (at most one
// edit in a word of up to 4 characters, two in a longer one); "" when none is, or two are
// equally near.
std::string nearestName(std::string_view word, const std::vector<std::string>& names);

// Checks the command words of `args` (argv without the program's name) against `app`'s
// subcommands, down through the subcommands that themselves require one (`trace to-text`).
// Throws memfloor::Error naming the first word that is no command where one is required; an
// option (a word starting with '-') ends the check, and CLI11 judges the rest.
void checkCommandWords(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace memfloor::cli

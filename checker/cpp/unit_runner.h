// Runs the fact collector over translation units: from a compilation database (optionally on
// several threads) or from files compiled with fixed arguments (tests).
#pragma once

#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"

namespace clang::tooling {
class CompilationDatabase;
}

namespace memfloor::checker {

struct UnitErrors {
  std::vector<std::string> messages;  // "file: what went wrong", one per unit that failed
};

// Facts of `files` (all files of `database` when empty), merged. Units that do not parse are named
// in `errors` and the others go on.
Facts collectFacts(const clang::tooling::CompilationDatabase& database,
                   std::vector<std::string> files, const Config& config, unsigned jobs,
                   UnitErrors& errors);

// The same for files compiled with `arguments` (e.g. {"-std=c++17"}), without a database.
Facts collectFacts(const std::vector<std::string>& files, const std::vector<std::string>& arguments,
                   const Config& config, UnitErrors& errors, unsigned jobs = 1);

}  // namespace memfloor::checker

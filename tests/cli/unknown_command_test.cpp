// Tests of cli/unknown_command: the edit distance, the nearest command, and the message for a word
// that names no command.
#include "cli/unknown_command.h"

#include <catch2/catch.hpp>

#include "common/error.h"

using namespace memfloor;
using Catch::Matchers::Equals;

namespace {

// memfloor's shape: commands at the top, `trace` with its own required subcommand.
struct Commands {
  CLI::App app{"test"};
  Commands() {
    app.require_subcommand(1);
    for (const char* name : {"analyze", "trace", "run", "gate", "report", "export", "demo"}) {
      app.add_subcommand(name, "");
    }
    CLI::App* trace = app.get_subcommand("trace");
    trace->require_subcommand(1);
    for (const char* name : {"from-text", "to-text", "symbolize"}) trace->add_subcommand(name, "");
  }
};

std::string messageFor(const std::vector<std::string>& args) {
  const Commands commands;
  try {
    cli::checkCommandWords(commands.app, args);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("editDistance counts inserts, deletes, replacements and adjacent swaps") {
  CHECK(cli::editDistance("analyze", "analyze") == 0);
  CHECK(cli::editDistance("analyse", "analyze") == 1);   // replaced
  CHECK(cli::editDistance("anlyze", "analyze") == 1);    // deleted
  CHECK(cli::editDistance("analyzee", "analyze") == 1);  // inserted
  CHECK(cli::editDistance("anaylze", "analyze") == 1);   // swapped
  CHECK(cli::editDistance("", "run") == 3);
  CHECK(cli::editDistance("gate", "") == 4);
  CHECK(cli::editDistance("report", "export") == 2);
}

TEST_CASE("nearestName takes a typo's command, and none that is far or ambiguous") {
  const std::vector<std::string> names = {"analyze", "run", "gate", "report", "export"};
  CHECK(cli::nearestName("analyse", names) == "analyze");
  CHECK(cli::nearestName("anlyze", names) == "analyze");
  CHECK(cli::nearestName("rnu", names) == "run");
  CHECK(cli::nearestName("xyz", names).empty());        // 3 edits from run
  CHECK(cli::nearestName("reprt", names) == "report");  // 1 from report, 2 from export
  CHECK(cli::nearestName("eport", names).empty());      // 1 from report and from export: ambiguous
  CHECK(cli::nearestName("summarize", names).empty());
}

TEST_CASE("checkCommandWords names the mistyped command and the one it means") {
  CHECK_THAT(messageFor({"analyse", "x"}),
             Equals("unknown command 'analyse'; did you mean 'analyze'?"));
  CHECK_THAT(messageFor({"anlyze", "x"}),
             Equals("unknown command 'anlyze'; did you mean 'analyze'?"));
  CHECK_THAT(messageFor({"trace", "to-txt", "a.mftrace"}),
             Equals("unknown command 'trace to-txt'; did you mean 'trace to-text'?"));
  CHECK_THAT(messageFor({"frobnicate"}),
             Equals("unknown command 'frobnicate' (commands: analyze, trace, run, gate, report, "
                    "export, demo; see memfloor --help)"));
}

TEST_CASE("checkCommandWords leaves commands, options and a command's arguments to CLI11") {
  CHECK(messageFor({}).empty());
  CHECK(messageFor({"--version"}).empty());
  CHECK(messageFor({"analyze", "analyse.mftrace"}).empty());  // analyze takes no subcommand
  CHECK(messageFor({"trace", "to-text", "run.mftrace"}).empty());
  CHECK(messageFor({"trace", "--help"}).empty());
}

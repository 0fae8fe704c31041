// Tests of cli/help_formatter: what the help keeps of CLI11's option names and types.
#include "cli/help_formatter.h"

#include <catch2/catch.hpp>

using namespace memfloor;

TEST_CASE("withoutFlagValues drops the value a flag stores after its name") {
  CHECK(cli::withoutFlagValues("--no-table{false}") == "--no-table");
  CHECK(cli::withoutFlagValues("--fail-on-new-findings, --allow-new-findings{false}") ==
        "--fail-on-new-findings, --allow-new-findings");
  CHECK(cli::withoutFlagValues("-o, --output") == "-o, --output");
}

TEST_CASE("withoutTextBeforeChoices shows a choice's type as its choices") {
  CHECK(cli::withoutTextBeforeChoices(" TEXT:{async,native}") == " {async,native}");
  CHECK(cli::withoutTextBeforeChoices(" TEXT:{auto,none}=auto") == " {auto,none}=auto");
  CHECK(cli::withoutTextBeforeChoices(" FILE REQUIRED") == " FILE REQUIRED");
}

TEST_CASE("HelpFormatter draws a negated flag without its value and a choice without TEXT") {
  CLI::App app{"test"};
  app.formatter(std::make_shared<cli::HelpFormatter>());
  bool table = true;
  std::string mode;
  app.add_flag("!--no-table", table, "do not print the table");
  app.add_option("--mode", mode, "how")->check(CLI::IsMember({"a", "b"}));
  const std::string help = app.help();
  CHECK_THAT(help, Catch::Matchers::Contains("--no-table "));
  CHECK_THAT(help, !Catch::Matchers::Contains("{false}"));
  CHECK_THAT(help, Catch::Matchers::Contains("--mode {a,b}"));
}

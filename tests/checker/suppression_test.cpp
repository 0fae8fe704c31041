// Tests of in-source suppressions and baselines.
#include "checker/suppression.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace memfloor::checker {
namespace {

Finding at(const std::string& file, int line, const std::string& rule) {
  Finding f;
  f.rule = rule;
  f.loc = {file, line, 3, 0};
  f.function = "L::f";
  f.field = "m_";
  f.message = "'m_' something";
  return f;
}

TEST_CASE("A suppression names rules, or all of them", "[suppression]") {
  CHECK(suppresses("x = 1;  // memfloor-check: ignore[MF002]", "MF002"));
  CHECK_FALSE(suppresses("x = 1;  // memfloor-check: ignore[MF002]", "MF001"));
  CHECK(suppresses("// memfloor-check: ignore[MF001, MF004]", "MF004"));
  CHECK(suppresses("// memfloor-check: ignore", "MF003"));
  CHECK(suppresses("// memfloor-check: ignore[*]", "MF003"));
  CHECK_FALSE(suppresses("// memfloor-check ignore[MF001]", "MF001"));
}

TEST_CASE("Suppressions apply on the line and the line below", "[suppression]") {
  const auto file = (std::filesystem::temp_directory_path() /
                     ("memfloor-suppress-" + std::to_string(::getpid()) + ".cpp"))
                        .string();
  std::ofstream(file) << "// memfloor-check: ignore[MF001]\n"
                         "a();\n"
                         "b();  // memfloor-check: ignore[MF002]\n"
                         "c();\n";
  std::vector<Finding> findings{at(file, 2, "MF001"), at(file, 2, "MF002"), at(file, 3, "MF002"),
                                at(file, 4, "MF002")};
  CHECK(dropSuppressed(findings) == 3);
  REQUIRE(findings.size() == 1);
  CHECK(findings.front().loc.line == 2);
  CHECK(findings.front().rule == "MF002");
}

TEST_CASE("A baseline drops accepted findings even after lines move", "[suppression]") {
  std::vector<Finding> findings{at("/repo/a.cpp", 10, "MF001"), at("/repo/a.cpp", 20, "MF002")};
  Finding moved = findings.front();
  moved.loc.line = 50;
  const std::set<std::string> accepted{fingerprint(moved, "/repo")};
  CHECK(dropBaselined(findings, accepted, "/repo") == 1);
  REQUIRE(findings.size() == 1);
  CHECK(findings.front().rule == "MF002");
  CHECK(fingerprint(findings.front(), "/repo") == fingerprint(findings.front(), "/repo/"));
}

}  // namespace
}  // namespace memfloor::checker

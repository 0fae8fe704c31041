// Tests of --fix: edits applied once each, from the end of the file.
#include "checker/fixit_apply.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memfloor::checker {
namespace {

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("Fix-its are inserted once each, later offsets first", "[fixit]") {
  const auto file = (std::filesystem::temp_directory_path() /
                     ("memfloor-fixit-" + std::to_string(::getpid()) + ".cpp"))
                        .string();
  std::ofstream(file) << "  a->use();\n  b->use();\n";
  Finding first;
  first.fixits = {{{file, 1, 12, 11}, 0, "\n  a = nullptr;"}};
  Finding second;
  second.fixits = {{{file, 2, 12, 23}, 0, "\n  b = nullptr;"}};
  const std::vector<Finding> findings{first, second, first};
  CHECK(applyFixits(findings) == 2);
  CHECK(slurp(file) == "  a->use();\n  a = nullptr;\n  b->use();\n  b = nullptr;\n");
}

TEST_CASE("Edits outside the text are skipped, whatever their offsets and lengths", "[fixit]") {
  // Offsets come from facts documents (--facts): nothing in them may reach past the text.
  std::string text = "abcdef";
  const std::vector<FixIt> fixits{
      {{"f.cpp", 1, 1, -1}, 0, "X"},        {{"f.cpp", 1, 1, 7}, 0, "X"},
      {{"f.cpp", 1, 1, 2}, -1, "X"},        {{"f.cpp", 1, 1, INT32_MAX}, INT32_MAX, "X"},
      {{"f.cpp", 1, 1, 4}, INT32_MAX, "X"}, {{"f.cpp", 1, 1, 6}, 0, "!"},
      {{"f.cpp", 1, 1, 1}, 2, "-"}};
  CHECK(applyFixitsToText(text, fixits) == 2);
  CHECK(text == "a-def!");
}

}  // namespace
}  // namespace memfloor::checker

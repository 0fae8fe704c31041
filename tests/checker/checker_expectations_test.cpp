// Runs the checker on every annotated input of testdata/checker (each .cpp is one program, each
// directory another) and compares the findings with the expectations written inline:
//   code();  // expect: MF001 MF004{{part of the message}}
// Missing and unexpected findings both fail. `// config: {...}` in an input sets its configuration.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "checker/cpp/unit_runner.h"
#include "checker/fixit_apply.h"
#include "checker/python_front_end.h"
#include "checker/rules/rule.h"
#include "checker/suppression.h"

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

struct Expected {
  std::string file;
  int line = 0;
  std::string rule;
  std::string part;  // must occur in the message
};

struct Program {
  std::vector<std::string> files;
  std::vector<Expected> expected;
  std::string config_json;
};

Program readProgram(const std::vector<fs::path>& files) {
  static const std::regex kExpect(R"((?://|#) expect: (.*)$)");
  static const std::regex kItem(R"((MF\d\d\d)(\{\{(.*?)\}\})?)");
  static const std::regex kConfig(R"(^(?://|#) config: (.*)$)");
  Program program;
  for (const fs::path& file : files) {
    program.files.push_back(fs::canonical(file).string());
    std::ifstream in(file);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      if (std::regex_search(line, m, kConfig)) program.config_json = m[1];
      if (!std::regex_search(line, m, kExpect)) continue;
      const std::string items = m[1];
      for (std::sregex_iterator it(items.begin(), items.end(), kItem), end; it != end; ++it) {
        program.expected.push_back({program.files.back(), number, (*it)[1], (*it)[3]});
      }
    }
  }
  return program;
}

Config configOf(const Program& program) {
  if (program.config_json.empty()) return Config{};
  const fs::path path = fs::temp_directory_path() /
                        ("memfloor-check-test-config-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << program.config_json;
  return loadConfig(path);
}

std::vector<Finding> check(const Program& program, const Config& config) {
  UnitErrors errors;
  const std::string include = "-I" MEMFLOOR_TESTDATA_DIR "/checker";
  Facts facts = collectFacts(program.files, {"-std=c++17", include}, config, errors);
  INFO("unit errors: " << (errors.messages.empty() ? "" : errors.messages.front()));
  CHECK(errors.messages.empty());
  std::vector<Finding> findings = runRules(facts, config);
  dropSuppressed(findings);
  return findings;
}

std::string describe(const Finding& f) {
  std::ostringstream out;
  out << fs::path(f.loc.file).filename().string() << ":" << f.loc.line << ": " << f.rule << " "
      << f.message;
  return out.str();
}

void compare(const Program& program, const std::vector<Finding>& findings) {
  std::vector<bool> used(program.expected.size(), false);
  for (const Finding& f : findings) {
    bool matched = false;
    for (std::size_t i = 0; i < program.expected.size() && !matched; ++i) {
      const Expected& e = program.expected[i];
      if (used[i] || e.file != f.loc.file || e.line != f.loc.line || e.rule != f.rule) continue;
      INFO("message of " << describe(f));
      CHECK(f.message.find(e.part) != std::string::npos);
      used[i] = matched = true;
    }
    if (!matched) FAIL_CHECK("unexpected finding: " << describe(f));
  }
  for (std::size_t i = 0; i < program.expected.size(); ++i) {
    const Expected& e = program.expected[i];
    if (!used[i]) {
      FAIL_CHECK("missing finding: " << fs::path(e.file).filename().string() << ":" << e.line
                                     << ": " << e.rule);
    }
  }
}

// The programs under `dir`: each file with `extension`, and each directory (its files with the
// extension, in its subdirectories too when `recursive`) as one program.
std::vector<std::vector<fs::path>> programsIn(const fs::path& dir, const std::string& extension,
                                              bool recursive) {
  std::vector<std::vector<fs::path>> programs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == extension) {
      programs.push_back({entry.path()});
    } else if (entry.is_directory()) {
      std::vector<fs::path> files;
      const auto add = [&](const fs::directory_entry& f) {
        if (f.path().extension() == extension) files.push_back(f.path());
      };
      if (recursive) {
        std::for_each(fs::recursive_directory_iterator(entry.path()), {}, add);
      } else {
        std::for_each(fs::directory_iterator(entry.path()), {}, add);
      }
      std::sort(files.begin(), files.end());
      if (!files.empty()) programs.push_back(files);  // python/ holds no C++ program
    }
  }
  std::sort(programs.begin(), programs.end());
  return programs;
}

std::vector<std::vector<fs::path>> inputs() {
  return programsIn(MEMFLOOR_TESTDATA_DIR "/checker", ".cpp", false);
}

TEST_CASE("Every annotated input gives exactly the expected findings", "[checker]") {
  const auto programs = inputs();
  REQUIRE(programs.size() >= 8);
  for (const auto& files : programs) {
    DYNAMIC_SECTION(files.front().parent_path().filename().string()
                    << "/" << files.front().filename().string()) {
      const Program program = readProgram(files);
      compare(program, check(program, configOf(program)));
    }
  }
}

TEST_CASE("A belief learned in one unit applies in another, also through saved facts",
          "[checker]") {
  const Program program = readProgram({MEMFLOOR_TESTDATA_DIR "/checker/cross_tu/base_layer.cpp",
                                       MEMFLOOR_TESTDATA_DIR "/checker/cross_tu/hc_layer.cpp"});
  const Config config;
  Facts merged;
  for (const std::string& file : program.files) {
    UnitErrors errors;
    Facts unit = collectFacts({file}, {"-std=c++17"}, config, errors);
    REQUIRE(errors.messages.empty());
    merged.merge(factsFromJson(toJson(unit)));  // each unit on its own, through the JSON form
  }
  std::vector<Finding> findings = runRules(merged, config);
  compare(program, findings);
}

TEST_CASE("Units on several threads give the same facts as on one", "[checker]") {
  std::vector<std::string> files;
  for (const auto& files_of : inputs()) {
    for (const fs::path& f : files_of) files.push_back(f.string());
  }
  files.erase(
      std::remove_if(files.begin(), files.end(),
                     [](const std::string& f) { return f.find("real_std") != std::string::npos; }),
      files.end());
  const std::string include = "-I" MEMFLOOR_TESTDATA_DIR "/checker";
  UnitErrors errors;
  const Facts one = collectFacts(files, {"-std=c++17", include}, Config{}, errors, 1);
  const Facts four = collectFacts(files, {"-std=c++17", include}, Config{}, errors, 4);
  CHECK(errors.messages.empty());
  CHECK(one.units.size() == files.size());
  CHECK(runRules(one, Config{}).size() == runRules(four, Config{}).size());
  CHECK(one.calls.size() == four.calls.size());
}

TEST_CASE("MF001 fix-its write the teacher's release for this site's handle", "[checker]") {
  const auto fixOn = [](const std::string& input, int line) {
    const Program program = readProgram({MEMFLOOR_TESTDATA_DIR "/checker/" + input});
    for (const Finding& f : check(program, Config{})) {
      if (f.rule == "MF001" && f.loc.line == line && !f.fixits.empty()) return f.fixits.front();
    }
    return FixIt{};
  };
  const FixIt seed1 = fixOn("seed_offload_manager.cpp", 64);
  CHECK(seed1.replacement == "\n      mlp_norm_manager_ = nullptr;");
  CHECK(seed1.loc.line == 64);  // at the end of the line, after its trailing comment
  const FixIt seed2 = fixOn("seed_combined_1f1b.cpp", 52);
  CHECK(seed2.replacement == "\n    chain.loss_node->releaseState();");
  CHECK(fixOn("mf001_release_idioms.cpp", 86).replacement == "\n    unique_.reset();");
}

TEST_CASE("A unit that does not parse is named and the others go on", "[checker]") {
  const fs::path bad = fs::temp_directory_path() / "memfloor-check-bad.cpp";
  std::ofstream(bad) << "struct Tensor {};\nint f( {\n";
  UnitErrors errors;
  const std::string good = MEMFLOOR_TESTDATA_DIR "/checker/seed_offload_manager.cpp";
  const std::string include = "-I" MEMFLOOR_TESTDATA_DIR "/checker";
  Facts facts = collectFacts({bad.string(), good}, {"-std=c++17", include}, Config{}, errors);
  REQUIRE(errors.messages.size() == 1);
  CHECK(errors.messages.front().find("memfloor-check-bad.cpp: not checked: ") != std::string::npos);
  CHECK_FALSE(runRules(facts, Config{}).empty());
}

}  // namespace
}  // namespace memfloor::checker

namespace memfloor::checker {
namespace {

// The Python programs: each .py file of testdata/checker/python, and each directory there (its
// packages, recursively) as one program.
std::vector<std::vector<fs::path>> pythonInputs() {
  return programsIn(MEMFLOOR_TESTDATA_DIR "/checker/python", ".py", true);
}

std::vector<Finding> checkPython(const Program& program, const Config& config) {
  std::vector<std::string> errors;
  const PythonOptions options{MEMFLOOR_PYTHON3, MEMFLOOR_PYFACTS_DIR, 1, {}};
  Facts facts = collectPythonFacts(program.files, config, options, errors);
  INFO("front end errors: " << (errors.empty() ? "" : errors.front()));
  CHECK(errors.empty());
  CHECK(facts.units.size() == program.files.size());
  std::vector<Finding> findings = runRules(facts, config);
  dropSuppressed(findings);
  return findings;
}

TEST_CASE("Every annotated Python input gives exactly the expected findings", "[checker]") {
  const auto programs = pythonInputs();
  REQUIRE(programs.size() >= 8);
  for (const auto& files : programs) {
    DYNAMIC_SECTION(files.front().filename().string()) {
      const Program program = readProgram(files);
      REQUIRE_FALSE(program.expected.empty());
      compare(program, checkPython(program, configOf(program)));
    }
  }
}

// A fix-it is offered only where it is safe as it is: each annotated input's fix-its applied to a
// copy of it, the copy parses (the front end reads it without an error) and, checked again with
// MF004 on, gives neither the fixed finding nor an MF004 on the member it released.
TEST_CASE("Python fix-its parse and leave neither their finding nor an MF004 behind", "[checker]") {
  const fs::path base = fs::canonical(MEMFLOOR_TESTDATA_DIR "/checker/python");
  const fs::path scratch =
      fs::temp_directory_path() / ("memfloor-check-fixits-" + std::to_string(::getpid()));
  std::size_t applied = 0;
  for (const auto& files : pythonInputs()) {
    const Program program = readProgram(files);
    Config config = configOf(program);
    std::vector<Finding> fixed = checkPython(program, config);
    std::erase_if(fixed, [](const Finding& f) { return f.fixits.empty(); });
    if (fixed.empty()) continue;
    INFO("the program of " << files.front().filename().string());
    {
      fs::remove_all(scratch);
      const auto copied = [&](const std::string& file) {
        return (scratch / fs::path(file).lexically_relative(base)).string();
      };
      Program copy;
      for (const std::string& file : program.files) {
        copy.files.push_back(copied(file));
        fs::create_directories(fs::path(copy.files.back()).parent_path());
        fs::copy_file(file, copy.files.back());
      }
      for (Finding& f : fixed) {
        for (FixIt& x : f.fixits) x.loc.file = copied(x.loc.file);
      }
      applied += applyFixits(fixed);
      config.mf004_python = true;
      for (const Finding& after : checkPython(copy, config)) {
        for (const Finding& f : fixed) {
          INFO(describe(f) << "\nafter its fix-it: " << describe(after));
          const bool member = after.field == f.field && fs::path(after.loc.file).filename() ==
                                                            fs::path(f.loc.file).filename();
          CHECK_FALSE((member && (after.rule == "MF004" ||
                                  (after.rule == f.rule && after.function == f.function))));
        }
      }
    }
  }
  fs::remove_all(scratch);
  CHECK(applied >= 4);
}

}  // namespace
}  // namespace memfloor::checker

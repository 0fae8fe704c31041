// libFuzzer target: the readers of memfloor-check that take untrusted bytes. The first byte picks
// one: 0 a .memfloor-check.json (checker/config.h), 1 a facts document (--facts, checker/facts.h),
// 2 a findings document as a baseline (--baseline, checker/findings_json.h), 3 suppression
// comments in a source file (checker/suppression.h), 4 the Python front end's output
// (checker/python_front_end.h). The facts of 1 and 4 then go through the rules, the three outputs
// and the fix-its (applied to the input's text, in memory). Each reader must either accept the
// input or throw memfloor::Error; what it accepts must read back the same. The facts readers' fast
// path (checker/facts_reader.h) must read an input only as the DOM reader does.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"
#include "checker/facts_reader.h"
#include "checker/finding.h"
#include "checker/findings_json.h"
#include "checker/fixit_apply.h"
#include "checker/python_front_end.h"
#include "checker/rules/rule.h"
#include "checker/sarif.h"
#include "checker/suppression.h"
#include "checker/text_output.h"
#include "common/error.h"
#include "common/json_input.h"

namespace {

using namespace memfloor::checker;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

// A file in memory (memfd), rewritten for each input: nothing is left on disk. Its name under
// /proc/self/fd opens it as a regular file, which is what the loaders read. `slot` keeps two
// files apart (the input, and what was written from it).
std::string scratchFile(const std::string& bytes, int slot = 0) {
  static const int fds[2] = {::memfd_create("memfloor_fuzz_in", MFD_CLOEXEC),
                             ::memfd_create("memfloor_fuzz_out", MFD_CLOEXEC)};
  const int fd = fds[slot];
  if (fd < 0 || ::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    std::perror("fuzz_checker_inputs: memfd");
    std::abort();
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

// What was written from an accepted input must read back: an error there is a finding.
template <typename Read>
auto readBack(const char* what, Read read) {
  try {
    return read();
  } catch (const memfloor::Error& e) {
    std::fprintf(stderr, "fuzz check failed: %s refused what was written: %s\n", what, e.what());
    std::abort();
  }
}

// A configuration that loads gives every key back, and that reads back as the same one.
void checkConfig(const std::string& bytes) {
  const std::string text = toJson(loadConfig(scratchFile(bytes))).dump();
  const Config again = readBack("loadConfig", [&] { return loadConfig(scratchFile(text, 1)); });
  if (toJson(again).dump() != text) fail("config round trip");
}

// What the fast path reads, the DOM reader reads the same: `dom` reads `bytes` through the DOM.
template <typename Dom>
void checkFastPath(const Facts* fast, const Dom& dom) {
  if (fast == nullptr) return;  // the DOM reader's answer is the answer
  const Facts facts = readBack("the DOM reader (the fast path read it)", dom);
  if (toJson(facts).dump() != toJson(*fast).dump()) fail("fast path and DOM disagree");
}

// What any facts document goes through after it is read: JSON and back, the rules, the outputs
// (which must read back: the baseline's fingerprints) and the fix-its on `text`.
void checkFacts(const Facts& facts, std::string text) {
  const std::string json = toJson(facts).dump();
  const Facts again = readBack(
      "factsFromJson", [&] { return factsFromJson(nlohmann::json::parse(json), "written"); });
  if (toJson(again).dump() != json) fail("facts round trip");
  const std::vector<Finding> findings = runRules(facts, Config{});
  const std::string root = "/src";
  const nlohmann::json document = findingsToJson(findings, {"unit.cpp: error"}, root);
  std::set<std::string> fingerprints;
  for (const Finding& f : findings) fingerprints.insert(fingerprint(f, root));
  const std::string written = document.dump();
  if (readBack("readBaseline", [&] { return readBaseline(scratchFile(written, 1)); }) !=
      fingerprints) {
    fail("findings round trip");
  }
  toSarif(findings, allRules(), root).dump();
  formatText(findings, root, /*snippets=*/false);
  std::vector<FixIt> fixits;
  for (const Finding& f : findings) fixits.insert(fixits.end(), f.fixits.begin(), f.fixits.end());
  applyFixitsToText(text, fixits);
}

// Every line against each rule, then findings on every line of the file (and around it).
void checkSuppressions(const std::string& bytes) {
  const std::string file = scratchFile(bytes);
  const std::vector<std::string> rules{"MF001", "MF002", "MF003", "MF004", "*", ""};
  std::vector<Finding> findings;
  int line = 1;
  std::size_t begin = 0;
  for (std::size_t end = bytes.find('\n'); begin <= bytes.size(); end = bytes.find('\n', begin)) {
    const std::string text =
        bytes.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    for (const std::string& rule : rules) suppresses(text, rule);
    Finding f;
    f.rule = rules[static_cast<std::size_t>(line) % rules.size()];
    f.loc = {file, line, 1, 0};
    findings.push_back(f);
    ++line;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  for (int at : {-1, 0, line, line + 1, INT32_MAX, INT32_MIN}) {
    Finding f;
    f.rule = "MF001";
    f.loc = {file, at, 1, 0};
    findings.push_back(f);
  }
  const std::size_t before = findings.size();
  if (dropSuppressed(findings) + findings.size() != before) fail("suppressed count");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0:
        checkConfig(bytes);
        break;
      case 1: {
        const std::optional<Facts> fast = readFactsText(bytes);
        checkFastPath(fast ? &*fast : nullptr, [&] {
          return factsFromJson(memfloor::common::parseJson(bytes, "fuzz.json"));
        });
        checkFacts(loadFacts(scratchFile(bytes)), bytes);
        break;
      }
      case 2:
        readBaseline(scratchFile(bytes));
        break;
      case 3:
        checkSuppressions(bytes);
        break;
      case 4: {
        const std::optional<FrontEndOutput> fast = readFrontEndText(bytes, kPyFactsSchema);
        checkFastPath(fast ? &fast->facts : nullptr, [&] {
          return factsFromJson(memfloor::common::parseJson(bytes, "fuzz.json").at("facts"));
        });
        std::vector<std::string> errors;
        checkFacts(readPythonFacts(bytes, "fuzz.json", errors), bytes);
        break;
      }
    }
  } catch (const memfloor::Error&) {
    // a clear error is the expected answer to bad input
  }
  return 0;
}

// Runs the Python front end: its command line, its exit status and the document it prints.
#include "checker/python_front_end.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "checker/facts_reader.h"
#include "checker/subprocess.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "common/json_input.h"
#include "common/parts.h"

namespace memfloor::checker {
namespace {

namespace fs = std::filesystem;

constexpr common::JsonSchema kEnvelope{kPyFactsSchema, "Python front end output",
                                       "use the Python front end of this memfloor-check"};
constexpr const char* kPackageMain = "memfloor_pyfacts/main.py";
// Run with -I (no user site, no PYTHON* variables, no script directory on sys.path) and -S (no
// site module: the front end needs the standard library only, and the .pth files of the site
// packages run their own code at start, a quarter of the interpreter's start-up here): the front
// end directory goes first on sys.path, then main(argv) decides the exit status.
constexpr const char* kBootstrap =
    "import sys; sys.path.insert(0, sys.argv[1]); from memfloor_pyfacts.main import main; "
    "sys.exit(main(sys.argv[2:]))";

bool holdsFrontEnd(const fs::path& dir) {
  return common::holdsPart(common::Part::kCheckerPython, dir);
}

std::string frontEndDir(const PythonOptions& options) {
  if (options.front_end_dir.empty()) return findPythonFrontEnd();
  if (!holdsFrontEnd(options.front_end_dir)) {
    throw Error("the Python front end is not in '" + options.front_end_dir + "': no " +
                kPackageMain + " there");
  }
  return options.front_end_dir;
}

std::vector<std::string> frontEndArgv(const std::vector<std::string>& paths, const Config& config,
                                      const PythonOptions& options, const std::string& dir) {
  std::vector<std::string> argv{options.python,
                                "-I",
                                "-S",
                                "-c",
                                kBootstrap,
                                dir,
                                "--config-json",
                                toJson(config).dump(),
                                "--jobs",
                                std::to_string(std::max(1u, options.jobs))};
  for (const std::string& glob : options.excludes) {
    argv.emplace_back("--exclude");
    argv.push_back(glob);
  }
  argv.emplace_back("--");
  argv.insert(argv.end(), paths.begin(), paths.end());
  return argv;
}

// `message`, then the front end's standard error when it wrote any.
std::string withStderr(std::string message, std::string err) {
  while (!err.empty() && std::isspace(static_cast<unsigned char>(err.back()))) err.pop_back();
  if (!err.empty()) message += "; its standard error:\n" + err;
  return message;
}

}  // namespace

std::string findPythonFrontEnd() {
  const fs::path bin = common::selfDir();
  const fs::path dir = common::findPart(common::Part::kCheckerPython, bin);
  if (!dir.empty()) return dir.string();
  throw Error("the Python front end is not installed: no " + std::string(kPackageMain) + " in " +
              common::describeCandidates(common::Part::kCheckerPython, bin));
}

namespace {

Facts take(FrontEndOutput read, std::vector<std::string>& errors) {
  errors.insert(errors.end(), std::make_move_iterator(read.errors.begin()),
                std::make_move_iterator(read.errors.end()));
  return std::move(read.facts);
}

// Through the DOM: for a document not in the form the front end writes (facts_reader.h), the DOM
// reader's answer, or its message.
Facts readThroughDom(std::string out, const std::string& name, std::vector<std::string>& errors) {
  nlohmann::json doc = common::parseJsonDocument(out, kEnvelope, name);
  std::string().swap(out);  // the text, ten times the sources, is not kept beside its document
  const common::JsonFields f(name);
  f.member(doc, "", "facts");  // there: moved out below, not copied
  std::vector<std::string> errs = f.strings(doc, "", "errors");
  f.u64(doc, "", "files");  // counts: checked, not used
  f.u64(doc, "", "bytes");
  Facts facts = factsFromJson(std::move(doc.at("facts")), name);
  errors.insert(errors.end(), std::make_move_iterator(errs.begin()),
                std::make_move_iterator(errs.end()));
  return facts;
}

}  // namespace

Facts readPythonFacts(std::string out, const std::string& name, std::vector<std::string>& errors) {
  if (std::optional<FrontEndOutput> read = readFrontEndText(out, kPyFactsSchema)) {
    return take(std::move(*read), errors);
  }
  return readThroughDom(std::move(out), name, errors);
}

Facts collectPythonFacts(const std::vector<std::string>& paths, const Config& config,
                         const PythonOptions& options, std::vector<std::string>& errors) {
  if (paths.empty()) return Facts{};
  const std::string dir = frontEndDir(options);
  SubprocessResult run;
  try {
    run = runSubprocess(frontEndArgv(paths, config, options, dir), common::kMaxJsonInputBytes);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; name the Python interpreter with --python");
  }
  const std::string who = "the Python front end (" + dir + ")";
  if (run.signal != 0) {
    throw Error(withStderr(who + " was ended by signal " + std::to_string(run.signal), run.err));
  }
  if (run.exit_code != 0) {
    throw Error(
        withStderr(who + " failed with exit status " + std::to_string(run.exit_code), run.err));
  }
  if (run.out_truncated) {
    throw Error(withStderr(
        who + " wrote more than " + std::to_string(common::kMaxJsonInputBytes) + " bytes",
        run.err));
  }
  try {
    // Read where the pieces are: joined only for the DOM reader.
    if (std::optional<FrontEndOutput> read = readFrontEndText(run.out.pieces, kPyFactsSchema)) {
      return take(std::move(*read), errors);
    }
    return readThroughDom(run.out.joined(), who + ": its output", errors);
  } catch (const Error& e) {
    throw Error(withStderr(e.what(), run.err));
  }
}

}  // namespace memfloor::checker

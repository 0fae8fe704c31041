// memfloor-check-clang: memfloor-check with Clang's front end. memfloor-check hands it the command
// lines that need Clang (run_request.h): it parses them with LLVM's CommonOptionsParser, collects
// facts over the compilation database and the Python sources, and reports.
#include <clang/Tooling/CommonOptionsParser.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "checker/cpp/compilation_database.h"
#include "checker/cpp/unit_runner.h"
#include "checker/input_split.h"
#include "checker/run_request.h"
#include "common/error.h"
#include "common/printable.h"
#include "common/version.h"

namespace {

namespace cl = llvm::cl;
cl::OptionCategory category("memfloor-check options");
cl::opt<std::string> format("format", cl::desc("text (default), json or sarif"), cl::init("text"),
                            cl::cat(category));
cl::opt<std::string> config_path("config",
                                 cl::desc("configuration file (default: the nearest "
                                          ".memfloor-check.json above the first source)"),
                                 cl::cat(category));
cl::opt<std::string> baseline("baseline", cl::desc("findings document of accepted findings"),
                              cl::cat(category));
cl::opt<bool> fix("fix", cl::desc("apply the fix-its"), cl::cat(category));
cl::opt<unsigned> jobs("j", cl::desc("translation units in parallel"), cl::init(1),
                       cl::cat(category));
cl::opt<std::string> root("root", cl::desc("file names are written relative to it (default: cwd)"),
                          cl::cat(category));
cl::opt<std::string> emit_facts("emit-facts", cl::desc("write the merged facts here"),
                                cl::cat(category));
cl::list<std::string> load_facts("facts", cl::desc("merge a facts file before the rules run"),
                                 cl::cat(category));
cl::opt<std::string> python("python",
                            cl::desc("the Python interpreter of the Python front end (default: "
                                     "python3 on PATH)"),
                            cl::init("python3"), cl::cat(category));
cl::list<std::string> exclude("exclude",
                              cl::desc("leave out Python files and directories matching this glob "
                                       "(repeatable; added to python_exclude)"),
                              cl::cat(category));

// The -p value as last parsed.
std::string buildPath() {
  const auto& registered = cl::getRegisteredOptions();
  auto it = registered.find("p");
  return it == registered.end() ? "" : static_cast<cl::opt<std::string>*>(it->second)->getValue();
}

// CommonOptionsParser loads no database when no file is named. Then the files are all those of the
// -p database, and the options are parsed again with them so that --extra-arg applies to them.
std::vector<std::string> databaseFiles() {
  const std::string dir = buildPath();
  return memfloor::checker::loadCompilationDatabase(dir.empty() ? "." : dir)->getAllFiles();
}

llvm::Expected<clang::tooling::CommonOptionsParser> parse(std::vector<const char*>& args) {
  int argc = static_cast<int>(args.size());
  return clang::tooling::CommonOptionsParser::create(
      argc, args.data(), category, cl::ZeroOrMore,
      "Flags members and node objects that keep device memory after their last use.\n");
}

// The option `name` takes the next argument as its value (`-p DIR`, `--format json`).
bool takesValue(std::string_view name) {
  const auto& registered = cl::getRegisteredOptions();
  auto it = registered.find(llvm::StringRef(name.data(), name.size()));
  return it != registered.end() && it->second->getValueExpectedFlag() == cl::ValueRequired;
}

// CommonOptionsParser runs "without flags" (and says so) when the database it looks for for the
// named files is missing or does not load. So before it looks, the command line is parsed with a
// `--` added (a fixed database: no lookup) and the database it would use is loaded here, strictly
// (throws Error). With `--` already there the files are compiled with what follows it, as always.
void requireDatabase(std::vector<const char*> args) {
  if (std::find_if(args.begin(), args.end(),
                   [](const char* a) { return a == std::string("--"); }) != args.end()) {
    return;
  }
  args.push_back("--");
  auto probe = parse(args);
  if (!probe) {
    llvm::consumeError(probe.takeError());  // the real parse reports it
    return;
  }
  const std::vector<std::string>& files = probe->getSourcePathList();
  if (files.empty()) return;
  const std::string dir = buildPath();
  if (dir.empty()) {
    memfloor::checker::findCompilationDatabase(files.front());
  } else {
    memfloor::checker::loadCompilationDatabase(dir);
  }
}

// Python inputs apart from the rest. CommonOptionsParser declares -p and --extra-arg when it
// first runs: an empty command line is parsed first so that they are known.
memfloor::checker::InputSplit splitArguments(int argc, const char** argv) {
  std::vector<const char*> program{argv[0]};
  if (auto parsed = parse(program); !parsed) llvm::consumeError(parsed.takeError());
  return memfloor::checker::splitInputs({argv, argv + argc}, takesValue);
}

// LLVM writes --help and --version to llvm::outs() and exits; at exit a stream that lost a write
// reports a fatal error and aborts the process. Registered after outs() is made, this runs before
// its destructor: the loss is said in one line and is exit code 2, as for the findings.
void exitOnLostLlvmOutput() {
  llvm::raw_fd_ostream& out = llvm::outs();
  out.flush();
  if (!out.has_error()) return;
  llvm::errs() << "memfloor-check: error: standard output: cannot write: " << out.error().message()
               << "\n";
  out.clear_error();
  ::_exit(2);  // exit() again from an exit handler is undefined
}

}  // namespace

int main(int argc, const char** argv) {
  llvm::outs();
  std::atexit(exitOnLostLlvmOutput);
  // --version names memfloor's version, not the LLVM it links.
  cl::SetVersionPrinter([](llvm::raw_ostream& os) { os << memfloor::kVersion << "\n"; });
  const memfloor::checker::InputSplit split = splitArguments(argc, argv);
  const std::vector<std::string>& python_inputs = split.python_inputs;
  std::vector<const char*> args;
  for (const std::string& a : split.args) args.push_back(a.c_str());
  try {
    requireDatabase(args);
  } catch (const memfloor::Error& e) {
    std::cerr << "memfloor-check: error: " << memfloor::common::printable(e.what()) << "\n";
    return 2;
  }
  auto parser = parse(args);
  std::vector<std::string> all;
  if (parser && parser->getSourcePathList().empty() && load_facts.empty() &&
      python_inputs.empty()) {
    try {
      all = databaseFiles();
    } catch (const memfloor::Error& e) {
      std::cerr << "memfloor-check: error: " << memfloor::common::printable(e.what()) << "\n";
      return 2;
    }
    if (all.empty()) {
      std::cerr << "memfloor-check: error: no file named and the compilation database has no "
                   "files (use -p BUILD_DIR)\n";
      return 2;
    }
    auto at = std::find_if(args.begin(), args.end(),
                           [](const char* a) { return a == std::string("--"); });
    for (const std::string& f : all) at = std::next(args.insert(at, f.c_str()));
    parser = parse(args);
  }
  if (!parser) {
    llvm::errs() << "memfloor-check: error: " << llvm::toString(parser.takeError()) << "\n";
    return 2;
  }
  namespace mf = memfloor::checker;
  const std::vector<std::string>& files = parser->getSourcePathList();
  const mf::RunRequest request{.format = format,
                               .config_path = config_path,
                               .baseline = baseline,
                               .fix = fix,
                               .jobs = jobs,
                               .root = root,
                               .emit_facts = emit_facts,
                               .load_facts = {load_facts.begin(), load_facts.end()},
                               .python = python,
                               .excludes = {exclude.begin(), exclude.end()},
                               .python_inputs = python_inputs,
                               .cpp_files = files};
  return mf::runCheck(request, [&](const mf::Config& config, std::vector<std::string>& errors) {
    mf::UnitErrors unit_errors;
    mf::Facts facts = mf::collectFacts(parser->getCompilations(), files, config, jobs, unit_errors);
    errors.insert(errors.end(), unit_errors.messages.begin(), unit_errors.messages.end());
    return facts;
  });
}

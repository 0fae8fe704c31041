// memfloor run: sets up the injection, runs the program, lists (and optionally analyzes) traces.
#include "cli/run_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <system_error>

#include "analysis/iteration_tracker.h"
#include "cli/analyze_command.h"
#include "cli/child_process.h"
#include "cli/command.h"
#include "cli/diagnostic.h"
#include "cli/hook_check.h"
#include "common/error.h"
#include "common/parts.h"
#include "common/run_settings.h"

extern char** environ;

namespace memfloor::cli {

namespace fs = std::filesystem;

namespace {

using run_settings::kCensusModes;  // --census, or a list of steps
using run_settings::kStackModes;   // --stacks

bool isFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string envValue(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& e : env) {
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=') {
      return e.substr(name.size() + 1);
    }
  }
  return {};
}

void setEnv(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&](const std::string& e) {
    return e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=';
  });
  env.push_back(name + "=" + value);
}

std::set<std::string> traceFiles(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("memfloor.", 0) == 0 && name.size() > 8 &&
        name.compare(name.size() - 8, 8, ".mftrace") == 0) {
      names.insert(name);
    }
  }
  return names;
}

// "auto", "every", "off" or optimizer steps counted from 1, comma-separated ("2,10").
bool isCensusSchedule(const std::string& text) {
  if (std::find(std::begin(kCensusModes), std::end(kCensusModes), text) != std::end(kCensusModes)) {
    return true;
  }
  static const std::regex kSteps("0*[1-9][0-9]{0,8}(,0*[1-9][0-9]{0,8})*");
  return std::regex_match(text, kSteps);
}

void validate(const RunRequest& request) {
  if (request.command.empty()) throw Error("run: no command given (memfloor run -- CMD ARGS...)");
  if (std::find(std::begin(kStackModes), std::end(kStackModes), request.stacks) ==
      std::end(kStackModes)) {
    throw Error(fmt::format("run: --stacks must be auto, python, native or none, not '{}'",
                            request.stacks));
  }
  if (!request.torch_allocator.empty() && request.torch_allocator != "async" &&
      request.torch_allocator != "native") {
    throw Error(fmt::format("run: --torch-allocator must be async or native, not '{}'",
                            request.torch_allocator));
  }
  if (!isCensusSchedule(request.census)) {
    throw Error(fmt::format(
        "run: --census must be auto, every, off or optimizer steps such as 2,10 (positive "
        "integers, comma-separated), not '{}'",
        request.census));
  }
  static const std::regex kSize("[0-9]+[kKmMgG]?");
  if (!request.buffer_size.empty() && !std::regex_match(request.buffer_size, kSize)) {
    throw Error(
        fmt::format("run: --buffer-size must be a size such as 8m, not '{}'", request.buffer_size));
  }
  if (!request.iteration_pattern.empty()) {
    try {
      analysis::IterationTracker check(request.iteration_pattern);
    } catch (const Error& e) {
      throw Error(fmt::format("run: --iteration-pattern: {}", e.what()));
    }
  }
}

}  // namespace

std::string findHook(const std::string& explicit_path) {
  if (!explicit_path.empty()) return isFile(explicit_path) ? explicit_path : std::string();
  if (const char* env = std::getenv(run_settings::kHookPath); env != nullptr && *env != '\0') {
    return isFile(env) ? std::string(env) : std::string();
  }
  return common::findPart(common::Part::kHook, common::selfDir()).string();
}

std::string findCompanion() {
  std::error_code ec;
  if (const char* env = std::getenv(run_settings::kCompanionDir); env != nullptr && *env != '\0') {
    return common::holdsPart(common::Part::kCompanion, env) ? fs::weakly_canonical(env, ec).string()
                                                            : std::string();
  }
  return common::findPart(common::Part::kCompanion, common::selfDir()).string();
}

std::vector<std::string> tracedEnvironment(const RunRequest& request, const std::string& hook,
                                           const std::string& output_dir,
                                           const std::vector<std::string>& base,
                                           std::vector<std::string>& notes) {
  std::vector<std::string> env = base;
  if (std::string old = envValue(env, "CUDA_INJECTION64_PATH"); !old.empty() && old != hook) {
    notes.push_back(
        fmt::format("replacing CUDA_INJECTION64_PATH={} (one injection at a time)", old));
  }
  setEnv(env, "CUDA_INJECTION64_PATH", hook);
  // NVTX ranges reach CUPTI only through NVTX injection; the hook forwards it to its libcupti.
  if (std::string old = envValue(env, "NVTX_INJECTION64_PATH"); !old.empty() && old != hook) {
    notes.push_back(fmt::format(
        "NVTX_INJECTION64_PATH={} is kept: NVTX ranges reach memfloor only if it forwards to CUPTI",
        old));
  } else {
    setEnv(env, "NVTX_INJECTION64_PATH", hook);
  }
  setEnv(env, run_settings::kOutputDir, output_dir);
  setEnv(env, run_settings::kStacks, request.stacks);
  setEnv(env, run_settings::kCensus, request.census);
  if (request.modules) setEnv(env, run_settings::kModules, "1");  // else the program's own setting
  if (!request.buffer_size.empty()) setEnv(env, run_settings::kBufferSize, request.buffer_size);
  if (!request.iteration_pattern.empty()) {
    setEnv(env, run_settings::kIterationPattern, request.iteration_pattern);
  }
  // The companion sees torch.cuda.nvtx's ranges only, which are the default domain's.
  if (!request.iteration_domain.empty()) {
    setEnv(env, run_settings::kIterationDomain, request.iteration_domain);
  }
  // The companion's census waits for an iteration range around an optimizer step to close.
  setEnv(env, run_settings::kCensusRanges,
         request.iteration_pattern.empty() ? std::string(analysis::kDefaultIterationPattern)
                                           : request.iteration_pattern);
  if (!request.companion_dir.empty()) {
    // Python imports the companion's sitecustomize first; it runs the one it shadows.
    std::string path = envValue(env, "PYTHONPATH");
    setEnv(env, "PYTHONPATH",
           path.empty() ? request.companion_dir : request.companion_dir + ":" + path);
  }
  if (request.torch_allocator == "async") {
    // PyTorch reads PYTORCH_CUDA_ALLOC_CONF (and, from 2.9, PYTORCH_ALLOC_CONF).
    std::string user = envValue(env, "PYTORCH_CUDA_ALLOC_CONF");
    if (user.empty()) user = envValue(env, "PYTORCH_ALLOC_CONF");
    if (!user.empty()) {
      notes.push_back(fmt::format(
          "--torch-allocator async: PYTORCH_CUDA_ALLOC_CONF is already set ('{}'); left as is",
          user));
    } else {
      setEnv(env, "PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync");
      notes.push_back(
          "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync (one record per tensor; "
          "--torch-allocator async)");
    }
  }
  return env;
}

int runTraced(const RunRequest& given) {
  validate(given);
  RunRequest request = given;
  if (request.companion) {
    request.companion_dir = findCompanion();
    if (request.companion_dir.empty() && !request.quiet) {
      fmt::print(stderr,
                 "memfloor: the Python companion is not next to memfloor (set {}); Python "
                 "processes are traced without it\n",
                 run_settings::kCompanionDir);
    }
  }
  std::string hook = findHook(request.hook_path);
  if (hook.empty()) {
    fmt::print(
        stderr,
        "memfloor: error: cannot find libmemfloor_hook.so ({}); build it "
        "(MEMFLOOR_BUILD_HOOK=ON) or pass --hook PATH or set MEMFLOOR_HOOK\n",
        request.hook_path.empty()
            ? "looked in " + common::describeCandidates(common::Part::kHook, common::selfDir())
            : "no file at " + request.hook_path);
    return kExitError;
  }
  if (!request.quiet) {
    if (std::string why = hookLoadError(hook); !why.empty()) {
      printWarning(hookLoadAdvice(hook, why));
    }
  }
  std::error_code ec;
  fs::create_directories(request.output_dir, ec);
  if (ec || !fs::is_directory(request.output_dir)) {
    printError(fmt::format("cannot create output directory {}: {}", request.output_dir,
                           ec ? ec.message() : "not a directory"));
    return kExitError;
  }
  fs::path dir = fs::absolute(request.output_dir, ec).lexically_normal();
  std::set<std::string> before = traceFiles(dir);

  std::vector<std::string> base;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) base.emplace_back(*e);
  std::vector<std::string> notes;
  std::vector<std::string> env = tracedEnvironment(request, hook, dir.string(), base, notes);
  if (!request.quiet) {
    for (const std::string& note : notes) fmt::print(stderr, "memfloor: {}\n", note);
  }
  std::fflush(stdout);
  std::fflush(stderr);

  ChildResult child = runChild(request.command, env);
  if (!child.started) {
    printError(child.error);
    return kExitError;
  }
  std::vector<std::string> fresh;
  for (const std::string& name : traceFiles(dir)) {
    if (before.count(name) == 0) fresh.push_back((dir / name).string());
  }
  if (!request.quiet) {
    if (child.signal != 0) {
      fmt::print(stderr, "memfloor: {} was ended by signal {} ({})\n", request.command[0],
                 child.signal, strsignal(child.signal));
    }
    if (fresh.empty()) {
      fmt::print(stderr,
                 "memfloor: no trace was written to {} (the program made no CUDA call, or the "
                 "hook said why above)\n",
                 dir.string());
    } else {
      fmt::print(stderr, "memfloor: {} trace{} in {}:\n", fresh.size(),
                 fresh.size() == 1 ? "" : "s", dir.string());
      for (const std::string& path : fresh) fmt::print(stderr, "  {}\n", path);
    }
  }
  if (request.analyze && !fresh.empty()) {
    AnalyzeRequest analyze;
    analyze.traces.trace_paths = fresh;
    analyze.report_path = (dir / "report.json").string();
    if (!request.iteration_pattern.empty()) {
      analyze.traces.options.iteration_pattern = request.iteration_pattern;
    }
    analyze.traces.options.iteration_domain = request.iteration_domain;
    analyze.traces.options.site_patterns = request.site_patterns;
    try {
      std::fflush(stdout);
      analyzeTraceFile(analyze);
      fmt::print(stderr, "memfloor: report: {}\n", analyze.report_path);
    } catch (const Error& e) {
      printError(e.what());
      if (child.exit_code == 0) return kExitError;
    }
  }
  return child.exit_code;
}

void addRunCommand(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<RunRequest>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a program under the CUPTI allocation tracer: memfloor run [options] -- CMD ARGS");
  cmd->add_option("-o,--output-dir", request->output_dir,
                  "directory for the traces, one per process (created)")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--stacks", request->stacks,
                  "allocation call stacks: auto (Python frames in Python 3.11/3.12 processes, "
                  "with native ones under them but for cudaMallocAsync; native elsewhere), python, "
                  "native (return addresses, symbolized offline; under "
                  "the Python frames in Python processes) or none (lowest overhead)")
      ->check(
          CLI::IsMember(std::vector<std::string>(std::begin(kStackModes), std::end(kStackModes))))
      ->capture_default_str();
  cmd->add_option("--iteration-pattern", request->iteration_pattern,
                  "regex naming the iteration markers (recorded in the trace; used by --analyze)")
      ->type_name("REGEX");
  cmd->add_option("--iteration-domain", request->iteration_domain,
                  "the NVTX domain of the iteration markers (used by --analyze)")
      ->type_name("NAME");
  cmd->add_option("--buffer-size", request->buffer_size, "CUPTI activity buffer size (e.g. 8m)")
      ->type_name("SIZE");
  cmd->add_option("--torch-allocator", request->torch_allocator,
                  "async: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync (one record per tensor) "
                  "unless already set")
      ->check(CLI::IsMember({"async", "native"}));
  cmd->add_option("--census", request->census,
                  "in Python processes, which Python paths hold PyTorch's tensors, taken right "
                  "after optimizer steps: auto (steps 2, 4, 8, 16...), every, off, or the steps "
                  "(2,10)")
      ->type_name("WHEN")
      ->capture_default_str();
  cmd->add_flag("--modules", request->modules,
                "in Python processes, each allocation made under an nn.Module's forward or "
                "backward carries the module's path in the model (model.transformer.h.3.attn), "
                "and the report sums each peak by module; costs a few percent of step time "
                "(docs/python-companion.md)");
  cmd->add_option("--hook", request->hook_path, "path to libmemfloor_hook.so")->type_name("FILE");
  cmd->add_flag(
      "!--no-companion", request->companion,
      "no Python companion (PyTorch's allocator blocks and censuses are then not recorded)");
  cmd->add_flag("--analyze", request->analyze, "analyze each new trace and print the floor table");
  addSitePatternOptions(*cmd, request->site_patterns, "; with --analyze");
  cmd->add_flag("-q,--quiet", request->quiet, "no notes on stderr");
  // Everything from the program's name on (or after --) belongs to the program, its options too.
  // CLI11 2.1 has no such positional: the declared one rejects every value (validate_positionals),
  // so the program's name is "unrecognized" and prefix_command hands it and all that follows to
  // remaining(); the unfilled positional also keeps "--" here rather than in the parent app.
  static std::vector<std::string> never_filled;
  cmd->add_option("command", never_filled, "the program and its arguments (after --)")
      ->type_name("CMD ARGS...")
      ->check(CLI::Validator([](std::string&) { return std::string("verbatim"); }, ""));
  cmd->validate_positionals();
  cmd->prefix_command();
  cmd->callback([cmd, request, &exit_code] {
    request->command = cmd->remaining();
    if (!request->command.empty() && request->command.front() == "--") {
      request->command.erase(request->command.begin());
    }
    exit_code = runTraced(*request);
  });
}

}  // namespace memfloor::cli

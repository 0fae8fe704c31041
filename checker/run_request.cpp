// One memfloor-check run from its request, and the command lines memfloor-check serves without
// Clang.
#include "checker/run_request.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string_view>

#include "checker/checker.h"
#include "checker/input_split.h"
#include "checker/python_front_end.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/printable.h"

namespace memfloor::checker {
namespace {

enum class Takes : uint8_t { kNothing, kValue, kValues };

struct OptionSpec {
  std::string_view name;
  Takes takes;
};

// memfloor-check's own options (cpp/clang_main.cpp declares them for LLVM's parser).
constexpr std::array<OptionSpec, 10> kOptions{{{"format", Takes::kValue},
                                               {"config", Takes::kValue},
                                               {"baseline", Takes::kValue},
                                               {"fix", Takes::kNothing},
                                               {"j", Takes::kValue},
                                               {"root", Takes::kValue},
                                               {"emit-facts", Takes::kValue},
                                               {"facts", Takes::kValues},
                                               {"python", Takes::kValue},
                                               {"exclude", Takes::kValues}}};

// A count as LLVM reads an unsigned option: only plain decimal is read the same way here (LLVM
// takes "010" as octal and "0x10" as hexadecimal).
std::optional<unsigned> plainCount(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text.front() == '0')) return std::nullopt;
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Sets `name` to `value` in `request`; false where LLVM's parser would not read it the same way.
bool set(RunRequest& request, std::string_view name, std::string value,
         std::vector<std::string_view>& seen) {
  if (name == "facts") {
    request.load_facts.push_back(std::move(value));
    return true;
  }
  if (name == "exclude") {
    request.excludes.push_back(std::move(value));
    return true;
  }
  if (std::find(seen.begin(), seen.end(), name) != seen.end()) return false;  // "only once"
  seen.push_back(name);
  if (name == "j") {
    const std::optional<unsigned> jobs = plainCount(value);
    if (!jobs) return false;
    request.jobs = *jobs;
    return true;
  }
  if (value.empty()) return false;
  if (name == "format") request.format = std::move(value);
  if (name == "config") request.config_path = std::move(value);
  if (name == "baseline") request.baseline = std::move(value);
  if (name == "root") request.root = std::move(value);
  if (name == "emit-facts") request.emit_facts = std::move(value);
  if (name == "python") request.python = std::move(value);
  return true;
}

// An error for each directory among `inputs` that gave the Python front end nothing to check: no
// unit and no unit error lies in it (it holds no .py file, or every one is excluded). Without it,
// a mistyped or empty directory would pass as a clean check of 0 units.
void addEmptyDirectories(const std::vector<std::string>& inputs, const Facts& facts,
                         std::vector<std::string>& unit_errors) {
  namespace fs = std::filesystem;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) continue;  // a file is a unit or an error already
    // The files the front end walked are named absolute and normalized (os.path.abspath), and
    // so are its errors about them ("<path>: what is wrong").
    std::string dir = fs::absolute(input, ec).lexically_normal().string();
    if (!dir.ends_with('/')) dir += '/';
    const auto under = [&dir](const std::string& path) { return path.starts_with(dir); };
    if (std::none_of(facts.units.begin(), facts.units.end(), under) &&
        std::none_of(unit_errors.begin(), unit_errors.end(), under)) {
      unit_errors.push_back(input +
                            ": no Python source (.py) to check in this directory (none there, "
                            "or every one excluded)");
    }
  }
}

}  // namespace

std::optional<RunRequest> requestWithoutClang(const std::vector<std::string>& argv) {
  RunRequest request;
  std::vector<std::string_view> seen;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--" || arg.starts_with('@')) return std::nullopt;
    if (arg.size() > 1 && arg.front() == '-') {
      std::string_view name(arg);
      name.remove_prefix(name.starts_with("--") ? 2 : 1);
      const std::size_t equals = name.find('=');
      const bool inline_value = equals != std::string_view::npos;
      const std::string_view key = name.substr(0, equals);
      const auto spec = std::find_if(kOptions.begin(), kOptions.end(),
                                     [&](const OptionSpec& o) { return o.name == key; });
      if (spec == kOptions.end()) return std::nullopt;
      if (spec->takes == Takes::kNothing) {
        if (inline_value || std::find(seen.begin(), seen.end(), key) != seen.end()) {
          return std::nullopt;
        }
        seen.push_back(key);
        request.fix = true;
        continue;
      }
      std::string value;
      if (inline_value) {
        value = std::string(name.substr(equals + 1));
      } else if (i + 1 < argv.size() && argv[i + 1] != "--") {
        value = argv[++i];
      } else {
        return std::nullopt;  // LLVM says the value is missing
      }
      if (!set(request, key, std::move(value), seen)) return std::nullopt;
    } else if (isPythonInput(arg)) {
      request.python_inputs.push_back(arg);
    } else {
      return std::nullopt;  // a C++ source, or a name for the Clang binary to judge
    }
  }
  if (request.python_inputs.empty() && request.load_facts.empty()) {
    return std::nullopt;  // the compilation database's files
  }
  return request;
}

int runCheck(const RunRequest& request, const CppFacts& cpp) {
  common::StandardOutput standard_output;
  try {
    const OutputFormat output_format = parseOutputFormat(request.format);  // before any work
    const std::string& first = !request.cpp_files.empty()       ? request.cpp_files.front()
                               : !request.python_inputs.empty() ? request.python_inputs.front()
                                                                : std::string(".");
    Config config = resolveConfig(request.config_path, first);
    config.python_exclude.insert(config.python_exclude.end(), request.excludes.begin(),
                                 request.excludes.end());
    std::vector<std::string> unit_errors;
    // No C++ source: no compilation database was loaded (Python inputs or --facts only).
    Facts facts = request.cpp_files.empty() || !cpp ? Facts{} : cpp(config, unit_errors);
    const PythonOptions python_options{request.python, "", request.jobs, config.python_exclude};
    facts.merge(collectPythonFacts(request.python_inputs, config, python_options, unit_errors));
    addEmptyDirectories(request.python_inputs, facts, unit_errors);
    const CheckOptions options{output_format, request.root,       request.baseline,
                               request.fix,   request.emit_facts, request.load_facts};
    const int verdict =
        finishCheck(std::move(facts), config, options, unit_errors, std::cout, std::cerr);
    standard_output.check();  // findings lost to a full disk are not a verdict
    return verdict;
  } catch (const Error& e) {
    // Names from the command line or a walk, the front end's standard error: escaped, line by line.
    std::cerr << "memfloor-check: error: " << common::printableExcept(e.what(), "\n") << "\n";
    return 2;
  }
}

}  // namespace memfloor::checker

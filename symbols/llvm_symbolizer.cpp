// LlvmSymbolizer: finding the debug file, running llvm-symbolizer, reading its JSON lines.
#include "symbols/llvm_symbolizer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/file_descriptor.h"
#include "common/process.h"
#include "common/write_all.h"
#include "symbols/elf_build_id.h"
#include "symbols/elf_symbols.h"

namespace memfloor::symbols {
namespace {

namespace fs = std::filesystem;

std::string findOnPath(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (std::string path = common::findProgramByName(name); !path.empty()) return path;
  }
  return {};
}

// Runs `argv` (argv[0] a path) with `input` on its stdin, from a file rather than a pipe: writing
// it never waits on a child that waits to be read. Returns its stdout ("" when it could not run or
// failed).
std::string runFiltered(const std::vector<std::string>& argv, const std::string& input) {
  char input_path[] = "/tmp/memfloor-symbolize-XXXXXX";
  common::Fd in(::mkostemp(input_path, O_CLOEXEC));  // other threads' children never get it
  if (!in.valid()) return {};
  ::unlink(input_path);
  if (common::writeAll(in.get(), input.data(), input.size()) != 0 ||
      ::lseek(in.get(), 0, SEEK_SET) != 0) {
    return {};
  }
  common::ProgramOptions options;
  options.program = argv[0];
  options.redirects = {common::Redirect::fromFd(in.get()), common::Redirect::pipe(),
                       common::Redirect::null()};
  common::Process child = common::startProgram(argv, options);
  in.reset();
  if (!child.started()) return {};
  std::string output;
  common::readUntilEnd(child.pipe(common::kStdout).get(),
                       [&](std::string_view data) { output += data; });
  return child.wait().exit_code == 0 ? output : std::string{};
}

}  // namespace

LlvmSymbolizer::LlvmSymbolizer(SymbolizerOptions options)
    : options_(std::move(options)),
      program_(options_.program.empty() ? findOnPath({"llvm-symbolizer-14", "llvm-symbolizer"})
                                        : options_.program) {}

std::string LlvmSymbolizer::findFile(std::string_view module_path,
                                     std::string_view build_id) const {
  std::vector<std::string> candidates;
  std::string file_name = fs::path(module_path).filename().string();
  for (const std::string& dir : options_.debug_dirs) {
    if (build_id.size() > 2) {
      std::string prefix =
          fmt::format("{}/.build-id/{}/{}", dir, build_id.substr(0, 2), build_id.substr(2));
      candidates.push_back(prefix + ".debug");
      candidates.push_back(prefix);
    }
    if (!file_name.empty()) candidates.push_back(dir + "/" + file_name);
  }
  if (!module_path.empty()) candidates.emplace_back(module_path);
  for (const std::string& candidate : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    if (build_id.empty() || elfBuildIdOfFile(candidate) == build_id) return candidate;
  }
  return {};
}

std::vector<std::vector<SourceLocation>> LlvmSymbolizer::resolve(
    std::string_view module_path, std::string_view build_id, const std::vector<uint64_t>& offsets) {
  std::string file = findFile(module_path, build_id);
  modules_[std::string(module_path)] = file;
  if (file.empty() || offsets.empty())
    return std::vector<std::vector<SourceLocation>>(offsets.size());
  if (!available()) return nameByElfSymbols(elfFunctionsOfFile(file), offsets);
  std::string input;
  // Return addresses point after the call: one byte back is inside the calling instruction.
  for (uint64_t offset : offsets) input += fmt::format("{:#x}\n", offset > 0 ? offset - 1 : 0);
  std::string output = runFiltered({program_, "--obj=" + file, "--output-style=JSON", "--inlining",
                                    "--demangle", "--relativenames"},
                                   input);
  return parseSymbolizerJson(output, offsets.size());
}

std::vector<std::vector<SourceLocation>> parseSymbolizerJson(std::string_view output,
                                                             size_t expected) {
  std::vector<std::vector<SourceLocation>> chains(expected);
  size_t index = 0;
  size_t begin = 0;
  while (index < expected && begin < output.size()) {
    size_t end = output.find('\n', begin);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    std::vector<SourceLocation>& chain = chains[index++];
    if (!j.is_object() || !j.contains("Symbol") || !j["Symbol"].is_array()) continue;
    for (const nlohmann::json& s : j["Symbol"]) {
      if (!s.is_object()) continue;
      SourceLocation loc;
      if (auto f = s.find("FunctionName"); f != s.end() && f->is_string()) loc.function = *f;
      if (auto f = s.find("FileName"); f != s.end() && f->is_string()) loc.file = *f;
      if (auto l = s.find("Line"); l != s.end() && l->is_number_unsigned()) {
        loc.line = l->get<uint32_t>();
      }
      if (loc.function == "??") loc.function.clear();
      if (loc.file == "??") loc.file.clear();
      if (!loc.function.empty()) chain.push_back(std::move(loc));
    }
  }
  return chains;
}

}  // namespace memfloor::symbols

// LlvmSymbolizer: finding the debug file, running llvm-symbolizer, reading its JSON lines.
#include "symbols/llvm_symbolizer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "symbols/elf_build_id.h"
#include "symbols/elf_symbols.h"

extern char** environ;

namespace memfloor::symbols {
namespace {

namespace fs = std::filesystem;

std::string findOnPath(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::vector<std::string> list;
  for (std::string dir; std::getline(dirs, dir, ':');) list.push_back(dir.empty() ? "." : dir);
  for (const std::string& name : names) {
    for (const std::string& dir : list) {
      std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return {};
}

// Runs `argv` with `input` on its stdin; returns its stdout ("" when it could not run or failed).
std::string runFiltered(const std::vector<std::string>& argv, const std::string& input) {
  char input_path[] = "/tmp/memfloor-symbolize-XXXXXX";
  int in_fd = ::mkstemp(input_path);
  if (in_fd < 0) return {};
  ::unlink(input_path);
  bool written = ::write(in_fd, input.data(), input.size()) == static_cast<ssize_t>(input.size());
  int out_pipe[2];
  if (!written || ::lseek(in_fd, 0, SEEK_SET) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_fd);
    return {};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_fd);
  ::close(out_pipe[1]);
  std::string output;
  if (rc == 0) {
    char buffer[65536];
    for (ssize_t n; (n = ::read(out_pipe[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      output.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(out_pipe[0]);
  if (rc != 0) return {};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? output : std::string{};
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

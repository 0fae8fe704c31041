// LlvmSymbolizer: resolves return addresses offline with llvm-symbolizer (one process per module);
// where it is not installed, names the functions from the file's ELF symbol table
// (symbols/elf_symbols.h: function names only, no file or line).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/symbols.h"

namespace memfloor::symbols {

struct SymbolizerOptions {
  std::string program;  // "" finds llvm-symbolizer-14, then llvm-symbolizer, on PATH
  std::vector<std::string> debug_dirs;  // searched before the module's own path, see findFile()
};

class LlvmSymbolizer : public FrameResolver {
 public:
  explicit LlvmSymbolizer(SymbolizerOptions options);

  // False when no llvm-symbolizer was found: resolve() then reads the ELF symbol tables.
  bool available() const { return !program_.empty(); }
  const std::string& program() const { return program_; }

  std::vector<std::vector<SourceLocation>> resolve(std::string_view module_path,
                                                   std::string_view build_id,
                                                   const std::vector<uint64_t>& offsets) override;

  // The file whose debug information describes the module: in each debug dir,
  // .build-id/<xx>/<rest>.debug, .build-id/<xx>/<rest>, then <dir>/<the module's file name>; then
  // the module's own path. A candidate counts only when its build id equals the trace's (any file
  // when the trace recorded none). "" when none does.
  std::string findFile(std::string_view module_path, std::string_view build_id) const;

  // Modules asked for and the files they resolved to ("" none): for the report's notes.
  const std::map<std::string, std::string>& modules() const { return modules_; }

 private:
  SymbolizerOptions options_;
  std::string program_;
  std::map<std::string, std::string> modules_;
};

// Parses llvm-symbolizer's --output-style=JSON output: one JSON object per line, in input order.
// Lines that are not such objects give empty chains; "??" names are dropped.
std::vector<std::vector<SourceLocation>> parseSymbolizerJson(std::string_view output,
                                                             size_t expected);

}  // namespace memfloor::symbols

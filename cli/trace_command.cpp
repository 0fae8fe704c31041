// memfloor trace from-text / to-text / symbolize: convert traces between their binary and text
// forms, and resolve their frames and rewrite their paths.
#include <fmt/core.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/diagnostic.h"
#include "common/error.h"
#include "common/output_file.h"
#include "symbols/llvm_symbolizer.h"
#include "symbols/prefix_map.h"
#include "symbols/trace_symbolize.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/text.h"
#include "trace/trace_file.h"
#include "trace/writer.h"

namespace memfloor::cli {
namespace {

// The writer's sink over an output file: the file keeps the first error, commit() throws it.
class OutputSink final : public trace::Sink {
 public:
  explicit OutputSink(common::OutputFile& file) : file_(file) {}
  bool write(const void* data, size_t n) override { return file_.write(data, n); }

 private:
  common::OutputFile& file_;
};

// A truncated or corrupt input is converted up to where it stops, and said so.
void warnIfIncomplete(const std::string& input, const trace::TraceEnd& end) {
  if (end.ending != trace::Ending::kTrailer) {
    printWarning(input + ": " + trace::describe(end));
  }
}

struct ConvertRequest {
  std::string input;
  std::string output;  // "-" or empty: standard output (to-text only)
};

int fromText(const ConvertRequest& request) {
  std::vector<uint8_t> bytes = trace::encodeTextTraceFile(request.input);
  common::OutputFile out(request.output, "trace", {request.input});
  out.write(bytes.data(), bytes.size());  // a failed write is thrown by commit
  out.commit();
  printWritten(request.output);
  return kExitOk;
}

int toText(const ConvertRequest& request) {
  const trace::TraceFile file_in(request.input);  // a snapshot or a text trace too
  trace::FileOrderReader reader(file_in.source());
  std::optional<common::OutputFile> file;
  if (!request.output.empty() && request.output != "-") {
    file.emplace(request.output, "text trace", std::vector<std::string>{request.input});
  }
  std::ostream& out = file ? file->stream() : std::cout;
  trace::Record record;
  while (reader.next(record)) trace::writeText(out, record);
  if (file) file->commit();  // standard output is checked once the command returns
  warnIfIncomplete(request.input, reader.end());
  if (file) printWritten(request.output);
  return kExitOk;
}

struct SymbolizeRequest {
  std::string input;
  std::string output;
  std::vector<std::string> debug_dirs;
  std::vector<std::string> prefix_maps;  // OLD=NEW, checked by PrefixMap::checkRule
  bool no_resolve = false;
};

// What the frames are resolved with: nothing with --no-resolve; else llvm-symbolizer, or without
// it the binaries' ELF symbol tables (function names only), for a module that has frames left to
// resolve and its binary at hand (a trace symbolized before, or whose binaries are elsewhere, has
// its paths rewritten alone).
class SymbolizerWhereNeeded : public symbols::FrameResolver {
 public:
  SymbolizerWhereNeeded(symbols::LlvmSymbolizer& symbolizer, bool enabled)
      : symbolizer_(symbolizer), enabled_(enabled) {}

  std::vector<std::vector<symbols::SourceLocation>> resolve(
      std::string_view module_path, std::string_view build_id,
      const std::vector<uint64_t>& offsets) override {
    if (!enabled_) return std::vector<std::vector<symbols::SourceLocation>>(offsets.size());
    return symbolizer_.resolve(module_path, build_id, offsets);
  }

 private:
  symbols::LlvmSymbolizer& symbolizer_;
  bool enabled_;
};

int symbolize(const SymbolizeRequest& request) {
  symbols::PrefixMap paths;
  for (const std::string& rule : request.prefix_maps) paths.add(rule);
  symbols::LlvmSymbolizer symbolizer({"", request.debug_dirs});
  SymbolizerWhereNeeded resolver(symbolizer, !request.no_resolve);
  trace::FileSource source(request.input);
  common::OutputFile output(request.output, "symbolized trace", {request.input});
  OutputSink sink(output);
  trace::Writer writer(sink);
  writer.begin();  // a failed write surfaces below
  symbols::SymbolizeStats stats;
  try {
    stats = symbols::symbolizeTrace(source, writer, resolver, paths);
  } catch (const Error&) {
    output.checkWrites();  // the output's own error names the file and the system's reason
    throw;
  }
  output.commit();
  warnIfIncomplete(request.input, stats.end);
  std::string detail =
      fmt::format(": {} of {} native frames resolved", stats.resolved, stats.frames);
  if (!request.no_resolve && !symbolizer.available() && stats.frames > 0) {
    detail += " (no llvm-symbolizer: function names from the ELF symbol tables, no lines)";
  }
  if (!paths.empty()) {
    detail += fmt::format("; {} paths rewritten by --prefix-map", stats.rewritten);
  }
  printWritten(request.output, detail);
  for (const auto& [module, file] : symbolizer.modules()) {
    fmt::print("  {} <- {}\n", module, file.empty() ? "(no file with its build id)" : file);
  }
  return kExitOk;
}

}  // namespace

void addTraceCommand(CLI::App& app, int& exit_code) {
  CLI::App* trace_cmd = app.add_subcommand(
      "trace", "Convert traces between binary and text form, resolve their frames");
  trace_cmd->require_subcommand(1);

  auto from = std::make_shared<ConvertRequest>();
  CLI::App* from_cmd = trace_cmd->add_subcommand("from-text", "text form -> binary trace");
  from_cmd->add_option("input", from->input, "text trace")->type_name("FILE")->required();
  from_cmd->add_option("-o,--output", from->output, "binary trace to create")
      ->type_name("FILE")
      ->required();
  from_cmd->callback([from, &exit_code] { exit_code = fromText(*from); });

  auto to = std::make_shared<ConvertRequest>();
  CLI::App* to_cmd = trace_cmd->add_subcommand(
      "to-text", "binary trace (or a PyTorch memory snapshot) -> text form");
  to_cmd->add_option("input", to->input, "binary trace")->type_name("FILE")->required();
  to_cmd->add_option("-o,--output", to->output, "text file (default: standard output)")
      ->type_name("FILE")
      ->check(nonEmptyPath());
  to_cmd->callback([to, &exit_code] { exit_code = toText(*to); });

  auto sym = std::make_shared<SymbolizeRequest>();
  CLI::App* sym_cmd = trace_cmd->add_subcommand(
      "symbolize", "copy a trace with its native frames resolved (function, file, line)");
  sym_cmd->add_option("input", sym->input, "binary trace")->type_name("FILE")->required();
  sym_cmd->add_option("-o,--output", sym->output, "binary trace to create")
      ->type_name("FILE")
      ->required();
  sym_cmd
      ->add_option("--debug-dir", sym->debug_dirs,
                   "directory with the traced binaries or their debug files (by build id)")
      ->type_name("DIR");
  sym_cmd
      ->add_option("--prefix-map", sym->prefix_maps,
                   "OLD=NEW: module paths and frame files under the directory OLD are written "
                   "under NEW (empty: relative); repeatable, the first match wins")
      ->type_name("OLD=NEW")
      ->check([](const std::string& rule) { return symbols::PrefixMap::checkRule(rule); })
      ->allow_extra_args(false);
  sym_cmd->add_flag("--no-resolve", sym->no_resolve,
                    "resolve no frame (llvm-symbolizer is not needed): only --prefix-map rewrites");
  sym_cmd->callback([sym, &exit_code] { exit_code = symbolize(*sym); });
}

}  // namespace memfloor::cli

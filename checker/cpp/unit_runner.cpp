// Runs the fact collector over translation units, one ClangTool per file, on one or more threads.
#include "checker/cpp/unit_runner.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "checker/cpp/fact_collector.h"

namespace memfloor::checker {
namespace {

class CollectConsumer : public clang::ASTConsumer {
 public:
  CollectConsumer(const Config& config, Facts& facts) : config_(config), facts_(facts) {}
  void HandleTranslationUnit(clang::ASTContext& context) override {
    FactCollector collector(context, config_);
    collector.collect();
    facts_.merge(collector.take());
  }

 private:
  const Config& config_;
  Facts& facts_;
};

class CollectAction : public clang::ASTFrontendAction {
 public:
  CollectAction(const Config& config, Facts& facts) : config_(config), facts_(facts) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<CollectConsumer>(config_, facts_);
  }

 private:
  const Config& config_;
  Facts& facts_;
};

class CollectFactory : public clang::tooling::FrontendActionFactory {
 public:
  CollectFactory(const Config& config, Facts& facts) : config_(config), facts_(facts) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<CollectAction>(config_, facts_);
  }

 private:
  const Config& config_;
  Facts& facts_;
};

// Keeps the first error of a unit (with its location) and counts the rest; prints nothing.
class FirstError : public clang::DiagnosticConsumer {
 public:
  std::string first;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error || !first.empty()) return;
    llvm::SmallString<128> text;
    info.FormatDiagnostic(text);
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      const clang::PresumedLoc at = sm.getPresumedLoc(info.getLocation());
      if (at.isValid()) {
        first = std::string(at.getFilename()) + ":" + std::to_string(at.getLine()) + ":" +
                std::to_string(at.getColumn()) + ": ";
      }
    }
    first += text.str().str();
  }
};

// One unit: its facts, or a message saying why it failed.
Facts collectUnit(const clang::tooling::CompilationDatabase& database, const std::string& file,
                  const Config& config, std::string& error) {
  Facts facts;
  facts.units.push_back(file);
  if (database.getCompileCommands(file).empty()) {
    error = file + ": no compile command in the compilation database";
    return facts;
  }
  // A file system of its own: ClangTool changes the working directory of its file system to the
  // compile command's, which for the real one is the process's, shared by the other threads.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files(
      llvm::vfs::createPhysicalFileSystem().release());
  clang::tooling::ClangTool tool(database, {file},
                                 std::make_shared<clang::PCHContainerOperations>(), files);
  FirstError diagnostics;
  tool.setDiagnosticConsumer(&diagnostics);
  tool.setPrintErrorMessage(false);
  // No warnings, and no "N errors generated." on stderr: errors come back through FirstError.
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      {"-w", "-fno-caret-diagnostics"}, clang::tooling::ArgumentInsertPosition::END));
  tool.appendArgumentsAdjuster(
      [](const clang::tooling::CommandLineArguments& args, llvm::StringRef) {
        const bool has = std::any_of(args.begin(), args.end(), [](const std::string& a) {
          return llvm::StringRef(a).startswith("-resource-dir");
        });
        clang::tooling::CommandLineArguments out = args;
        if (!has && !out.empty())
          out.insert(out.begin() + 1, "-resource-dir=" MEMFLOOR_CLANG_RESOURCE_DIR);
        return out;
      });
  CollectFactory factory(config, facts);
  const int status = tool.run(&factory);
  if (status != 0 || diagnostics.getNumErrors() > 0) {
    error = file + ": not checked: " +
            (diagnostics.first.empty() ? "the compiler failed" : diagnostics.first);
  }
  return facts;
}

}  // namespace

Facts collectFacts(const clang::tooling::CompilationDatabase& database,
                   std::vector<std::string> files, const Config& config, unsigned jobs,
                   UnitErrors& errors) {
  if (files.empty()) files = database.getAllFiles();
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  Facts all;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      std::string error;
      Facts facts = collectUnit(database, files[i], config, error);
      const std::lock_guard<std::mutex> lock(mutex);
      all.merge(std::move(facts));
      if (!error.empty()) errors.messages.push_back(error);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::max(1u, jobs); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  std::sort(all.units.begin(), all.units.end());
  std::sort(errors.messages.begin(), errors.messages.end());
  return all;
}

Facts collectFacts(const std::vector<std::string>& files, const std::vector<std::string>& arguments,
                   const Config& config, UnitErrors& errors, unsigned jobs) {
  const clang::tooling::FixedCompilationDatabase database(".", arguments);
  return collectFacts(database, files, config, jobs, errors);
}

}  // namespace memfloor::checker

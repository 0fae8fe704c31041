// Path questions on one function's control-flow graph: "on every path from here to the exit" and
// "on every path from the entry to here".
#pragma once

#include <clang/Analysis/CFG.h>
#include <llvm/ADT/DenseMap.h>

#include <functional>
#include <memory>
#include <optional>

namespace memfloor::checker {

class FunctionPaths {
 public:
  using StmtTest = std::function<bool(const clang::Stmt*)>;
  struct Pos {
    const clang::CFGBlock* block = nullptr;
    unsigned index = 0;
  };

  FunctionPaths(const clang::FunctionDecl* function, clang::ASTContext& context);
  ~FunctionPaths();
  FunctionPaths(const FunctionPaths&) = delete;
  FunctionPaths& operator=(const FunctionPaths&) = delete;

  bool valid() const { return cfg_ != nullptr; }
  // Where `s` is evaluated (its first element), if it is in the graph.
  std::optional<Pos> find(const clang::Stmt* s) const;
  // Every path from just after `from` to the exit evaluates a statement passing `event` (paths that
  // end in a noreturn call or a throw count as passing). `first` gets the first such statement
  // seen.
  bool allPathsToExit(Pos from, const StmtTest& event, const clang::Stmt** first = nullptr) const;
  // Every path from the entry to just before `to` evaluates a statement passing `guard` or leaves a
  // branch whose condition passes `condition`.
  bool allPathsFromEntry(Pos to, const StmtTest& guard, const StmtTest& condition) const;

 private:
  std::unique_ptr<clang::CFG> cfg_;
  llvm::DenseMap<const clang::Stmt*, Pos> positions_;
};

}  // namespace memfloor::checker

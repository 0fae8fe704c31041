// Path questions on one function's control-flow graph (Clang's CFG, every expression an element).
#include "checker/cpp/cfg_paths.h"

#include <clang/AST/Decl.h>
#include <llvm/ADT/SmallPtrSet.h>

#include <vector>

namespace memfloor::checker {
namespace {

const clang::Stmt* stmtAt(const clang::CFGBlock* block, unsigned index) {
  if (auto s = (*block)[index].getAs<clang::CFGStmt>()) return s->getStmt();
  return nullptr;
}

}  // namespace

FunctionPaths::FunctionPaths(const clang::FunctionDecl* function, clang::ASTContext& context) {
  if (!function->hasBody()) return;
  clang::CFG::BuildOptions options;
  options.setAllAlwaysAdd();
  options.AddImplicitDtors = false;
  options.AddTemporaryDtors = false;
  options.AddCXXDefaultInitExprInCtors = false;
  cfg_ = clang::CFG::buildCFG(function, function->getBody(), &context, options);
  if (!cfg_) return;
  for (const clang::CFGBlock* block : *cfg_) {
    for (unsigned i = 0; i < block->size(); ++i) {
      if (const clang::Stmt* s = stmtAt(block, i)) positions_.try_emplace(s, Pos{block, i});
    }
  }
}

FunctionPaths::~FunctionPaths() = default;

std::optional<FunctionPaths::Pos> FunctionPaths::find(const clang::Stmt* s) const {
  auto it = positions_.find(s);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

bool FunctionPaths::allPathsToExit(Pos from, const StmtTest& event,
                                   const clang::Stmt** first) const {
  const auto scan = [&](const clang::CFGBlock* block, unsigned begin) {
    for (unsigned i = begin; i < block->size(); ++i) {
      const clang::Stmt* s = stmtAt(block, i);
      if (s != nullptr && event(s)) {
        if (first != nullptr && *first == nullptr) *first = s;
        return true;
      }
    }
    return false;
  };
  if (scan(from.block, from.index + 1) || from.block->hasNoReturnElement()) return true;
  llvm::SmallPtrSet<const clang::CFGBlock*, 32> seen{from.block};
  std::vector<const clang::CFGBlock*> work{from.block};
  bool all = true;
  while (!work.empty()) {
    const clang::CFGBlock* block = work.back();
    work.pop_back();
    for (const clang::CFGBlock* next : block->succs()) {
      if (next == nullptr || !seen.insert(next).second) continue;
      if (next == &cfg_->getExit()) {
        all = false;  // keep looking: `first` should name an event where one exists
        continue;
      }
      if (scan(next, 0) || next->hasNoReturnElement()) continue;
      work.push_back(next);
    }
  }
  return all;
}

bool FunctionPaths::allPathsFromEntry(Pos to, const StmtTest& guard,
                                      const StmtTest& condition) const {
  const auto scan = [&](const clang::CFGBlock* block, unsigned end) {
    for (unsigned i = end; i-- > 0;) {
      const clang::Stmt* s = stmtAt(block, i);
      if (s != nullptr && guard(s)) return true;
    }
    return false;
  };
  if (scan(to.block, to.index)) return true;
  llvm::SmallPtrSet<const clang::CFGBlock*, 32> seen{to.block};
  std::vector<const clang::CFGBlock*> work{to.block};
  while (!work.empty()) {
    const clang::CFGBlock* block = work.back();
    work.pop_back();
    if (block == &cfg_->getEntry()) return false;
    for (const clang::CFGBlock* prev : block->preds()) {
      if (prev == nullptr || !seen.insert(prev).second) continue;
      if (const clang::Stmt* cond = prev->getTerminatorCondition(); cond && condition(cond)) {
        continue;
      }
      if (scan(prev, prev->size())) continue;
      if (prev == &cfg_->getEntry()) return false;
      work.push_back(prev);
    }
  }
  return true;
}

}  // namespace memfloor::checker

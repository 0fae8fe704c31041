// Collects the facts of one translation unit: heavy fields, their stores and releases, the calls on
// heavy objects (MF001) and the dereferences of nullable heavy fields (MF004), each with its path
// answer computed on the function's control-flow graph.
#pragma once

#include "checker/config.h"
#include "checker/cpp/heavy_types.h"
#include "checker/facts.h"

namespace clang {
class ASTContext;
class FunctionDecl;
}  // namespace clang

namespace memfloor::checker {

class FactCollector {
 public:
  FactCollector(clang::ASTContext& context, const Config& config);

  // Every function with a body outside system headers, lambdas included.
  void collect();
  Facts take() { return std::move(facts_); }

 private:
  friend class FunctionScan;
  void analyzeFunction(const clang::FunctionDecl* function);

  clang::ASTContext& context_;
  const Config& config_;
  HeavyTypes heavy_;
  Facts facts_;
};

}  // namespace memfloor::checker

// Turning AST nodes into fact records: locations, function and field keys, fix-it anchors.
#pragma once

#include <clang/Basic/SourceLocation.h>

#include <optional>
#include <string>
#include <vector>

#include "checker/facts.h"

namespace clang {
class ASTContext;
class CXXMethodDecl;
class CXXRecordDecl;
class Expr;
class FieldDecl;
class FunctionDecl;
class SourceManager;
}  // namespace clang

namespace memfloor::checker {

// The spelling position of the expansion of `loc`, with an absolute file name.
SourceLoc sourceLoc(const clang::SourceManager& sm, clang::SourceLocation loc);

// ns::R::f(int, const ns::T &): stable across translation units; lambdas are keyed by location;
// members of template instances by their template's member.
std::string functionKey(const clang::FunctionDecl* function, const clang::SourceManager& sm);
FunctionFact functionFact(const clang::FunctionDecl* function, const clang::SourceManager& sm);
// The method at the top of `method`'s overrides (itself when it overrides nothing).
const clang::CXXMethodDecl* rootMethod(const clang::CXXMethodDecl* method);

std::string fieldKey(const clang::FieldDecl* field);
std::vector<std::string> baseNames(const clang::CXXRecordDecl* record);

// Where a statement can be inserted after the statement holding `e`: just after its semicolon,
// with the statement's indentation. None when `e` is not part of a statement of a block, or comes
// from a macro.
struct FixAnchor {
  SourceLoc after;
  std::string indent;
};
std::optional<FixAnchor> fixAnchorOf(const clang::Expr* e, clang::ASTContext& context);

}  // namespace memfloor::checker

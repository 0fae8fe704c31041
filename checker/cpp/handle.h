// Handles: the expressions that name an object (a variable, `this`, a chain of fields), and the
// store and release idioms written on them.
#pragma once

#include <clang/AST/Type.h>

#include <optional>
#include <string>

#include "checker/config.h"
#include "checker/facts.h"

namespace clang {
class CallExpr;
class Expr;
class FieldDecl;
class Stmt;
}  // namespace clang

namespace memfloor::checker {

struct Handle {
  std::string key;         // identity within one function (variables carry their declaration)
  std::string text;        // as written: mlp_norm_manager_, chain.loss_node, this
  std::string parent_key;  // the handle this one is a field of ("" for variables and `this`)
  const clang::FieldDecl* field = nullptr;  // the last field of the chain
  bool is_this = false;
  bool through_this = false;  // a field of `this`
  bool persistent = false;    // the object outlives the function
  clang::QualType type;       // the declared type of the variable or field
};

// The handle `e` names, looking through parentheses and implicit conversions.
std::optional<Handle> handleOf(const clang::Expr* e);
// The object a member call is made on: `p` in p->m(), p.m(), (*p).m(); `this` when implicit (also
// for the unresolved calls of a template's own methods). None for other calls.
std::optional<Handle> receiverOf(const clang::CallExpr* call);

// A store into or a release of a handle, written as one expression.
struct Store {
  Handle handle;
  EventKind kind = EventKind::kAssign;
  std::string idiom;
};
std::optional<Store> storeOf(const clang::Stmt* s, const Config& config);

// An expression that leaves an object empty: nullptr, {}, T(), NULL, 0, std::nullopt.
bool isEmptyValue(const clang::Expr* e);

}  // namespace memfloor::checker

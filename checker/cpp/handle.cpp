// Handles and the store and release idioms written on them.
#include "checker/cpp/handle.h"

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include <algorithm>

namespace memfloor::checker {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// std::shared_ptr<T>, whose copies share the object with its other owners.
bool isSharedPointer(clang::QualType type) {
  const clang::CXXRecordDecl* record = type.getCanonicalType()->getAsCXXRecordDecl();
  return record != nullptr && record->isInStdNamespace() && record->getDeclName().isIdentifier() &&
         record->getName() == "shared_ptr";
}

// `s` as a call of the std function `name`, or null.
const clang::CallExpr* stdCall(const clang::Stmt* s, llvm::StringRef name) {
  const auto* call = llvm::dyn_cast<clang::CallExpr>(s);
  if (call == nullptr || llvm::isa<clang::CXXMemberCallExpr>(call)) return nullptr;
  const auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(call->getCalleeDecl());
  if (fn == nullptr || !fn->isInStdNamespace() || !fn->getDeclName().isIdentifier() ||
      fn->getName() != name) {
    return nullptr;
  }
  return call;
}

// `e` is empty: an empty value, or a local variable declared empty (`std::shared_ptr<T> spare;`).
bool isEmptyOperand(const clang::Expr* e) {
  if (isEmptyValue(e)) return true;
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  return var != nullptr && var->hasLocalStorage() && !llvm::isa<clang::ParmVarDecl>(var) &&
         !var->getType()->isReferenceType() && var->getInit() != nullptr &&
         isEmptyValue(var->getInit());
}

// A swap of `a` and `b`: a handle traded for an empty one is released; else `a` is assigned.
std::optional<Store> swapOf(const clang::Expr* a, const clang::Expr* b, const char* idiom) {
  const bool a_empty = isEmptyOperand(a);
  const bool b_empty = isEmptyOperand(b);
  std::optional<Handle> h = handleOf(a_empty && !b_empty ? b : a);
  if (!h) return std::nullopt;
  return Store{*h, a_empty || b_empty ? EventKind::kRelease : EventKind::kAssign, idiom};
}

// The store that hands over the object of a handle: std::exchange(x, v) and std::move(x) take it
// out of `x` (a release, or an assignment when `v` is not empty), std::swap(x, y) and x.swap(y)
// trade it (a release of the handle swapped with an empty one).
std::optional<Store> handOverOf(const clang::Stmt* s) {
  if (const clang::CallExpr* call = stdCall(s, "exchange"); call && call->getNumArgs() == 2) {
    std::optional<Handle> h = handleOf(call->getArg(0));
    if (!h) return std::nullopt;
    const bool empty = isEmptyOperand(call->getArg(1));
    return Store{*h, empty ? EventKind::kRelease : EventKind::kAssign, "std::exchange"};
  }
  if (const clang::CallExpr* call = stdCall(s, "move"); call && call->getNumArgs() == 1) {
    std::optional<Handle> h = handleOf(call->getArg(0));
    if (!h) return std::nullopt;
    return Store{*h, EventKind::kRelease, "std::move"};
  }
  if (const clang::CallExpr* call = stdCall(s, "swap"); call && call->getNumArgs() == 2) {
    return swapOf(call->getArg(0), call->getArg(1), "std::swap");
  }
  const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(s);
  const clang::CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
  if (method != nullptr && method->getDeclName().isIdentifier() && method->getName() == "swap" &&
      call->getNumArgs() == 1) {
    return swapOf(call->getImplicitObjectArgument(), call->getArg(0), ".swap()");
  }
  return std::nullopt;
}

// `init` makes a new object no one else holds: std::make_shared, std::allocate_shared, `new`, or
// an empty value (default construction, nullptr); or takes the object over from a member (which
// is released: `std::exchange(m_, nullptr)`, `std::move(m_)`) or from a variable that holds it
// alone; also through the converting and elided constructors around them. A copy (of a member, a
// parameter, a call's result) is not new, nor is an object moved out of a parameter or a copy.
bool isFreshObject(const clang::Expr* init) {
  init = init->IgnoreImplicit()->IgnoreParens();
  if (llvm::isa<clang::CXXNewExpr>(init) || isEmptyValue(init)) return true;
  if (std::optional<Store> taken = handOverOf(init)) {
    return taken->handle.field != nullptr || !taken->handle.persistent;
  }
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(init)) {
    return construct->getNumArgs() == 1 && isFreshObject(construct->getArg(0));
  }
  if (const auto* cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(init)) {
    return isFreshObject(cast->getSubExpr());
  }
  return stdCall(init, "make_shared") != nullptr || stdCall(init, "allocate_shared") != nullptr;
}

// A variable through which the object outlives the function: a global, a reference, a raw pointer,
// or a std::shared_ptr copy (a parameter, or a local not initialized with a new object): the
// object has other owners. Objects and unique_ptrs held by value die when the function returns.
bool outlivesFunction(const clang::VarDecl* var) {
  if (var->hasGlobalStorage()) return true;
  const clang::QualType type = var->getType().getCanonicalType();
  if (type->isReferenceType() || type->isPointerType()) return true;
  if (!isSharedPointer(type)) return false;
  if (llvm::isa<clang::ParmVarDecl>(var)) return true;
  return var->getInit() != nullptr && !isFreshObject(var->getInit());
}

bool hasNullptr(const clang::Stmt* s) {
  if (llvm::isa<clang::CXXNullPtrLiteralExpr, clang::GNUNullExpr>(s)) return true;
  return std::any_of(s->child_begin(), s->child_end(),
                     [](const clang::Stmt* c) { return c != nullptr && hasNullptr(c); });
}

std::optional<Store> assignment(const clang::Expr* lhs, const clang::Expr* rhs) {
  std::optional<Handle> h = handleOf(lhs);
  if (!h) return std::nullopt;
  if (!isEmptyValue(rhs)) return Store{*h, EventKind::kAssign, "= value"};
  return Store{*h, EventKind::kRelease, hasNullptr(rhs) ? "= nullptr" : "= {}"};
}

}  // namespace

std::optional<Handle> handleOf(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* op = llvm::dyn_cast<clang::UnaryOperator>(e);
      op && op->getOpcode() == clang::UO_Deref) {
    return handleOf(op->getSubExpr());
  }
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    if (op->getOperator() == clang::OO_Star && op->getNumArgs() == 1)
      return handleOf(op->getArg(0));
    return std::nullopt;
  }
  if (const auto* self = llvm::dyn_cast<clang::CXXThisExpr>(e)) {
    Handle h{"this", "this", "", nullptr, true, false, true, self->getType()};
    return h;
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (var == nullptr) return std::nullopt;
    const std::string name = var->getNameAsString();
    // A local reference bound to a member stands for it: `auto& m = mgr_; m.reset();` releases
    // mgr_, and a call through `m` is a call on mgr_.
    if (var->getType()->isReferenceType() && var->hasLocalStorage() && !var->isImplicit() &&
        !llvm::isa<clang::ParmVarDecl>(var) && var->getInit() != nullptr) {
      if (std::optional<Handle> bound = handleOf(var->getInit()); bound && bound->field) {
        bound->text = name;
        return bound;
      }
    }
    const std::string key = var->hasGlobalStorage()
                                ? var->getQualifiedNameAsString()
                                : name + "@" + std::to_string(var->getLocation().getRawEncoding());
    return Handle{key, name, "", nullptr, false, false, outlivesFunction(var), var->getType()};
  }
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(e);
  if (member == nullptr) return std::nullopt;
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (field == nullptr) return std::nullopt;
  const std::string name = field->getNameAsString();
  const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
  if (llvm::isa<clang::CXXThisExpr>(base)) {
    return Handle{"this." + name, name, "this", field, false, true, true, field->getType()};
  }
  const bool arrow = member->isArrow();
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base);
      arrow && op && op->getOperator() == clang::OO_Arrow) {
    base = op->getArg(0);
  }
  std::optional<Handle> parent = handleOf(base);
  if (!parent) return std::nullopt;
  return Handle{parent->key + "." + name,
                parent->text + (arrow ? "->" : ".") + name,
                parent->key,
                field,
                false,
                false,
                arrow || parent->persistent,
                field->getType()};
}

std::optional<Handle> receiverOf(const clang::CallExpr* call) {
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(call->getCallee()->IgnoreParens());
  if (member == nullptr) return std::nullopt;
  const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base);
      member->isArrow() && op && op->getOperator() == clang::OO_Arrow) {
    base = op->getArg(0);
  }
  return handleOf(base);
}

std::optional<Store> storeOf(const clang::Stmt* s, const Config& config) {
  if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(s)) {
    if (op->getOpcode() != clang::BO_Assign) return std::nullopt;
    return assignment(op->getLHS(), op->getRHS());
  }
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(s)) {
    if (op->getOperator() != clang::OO_Equal || op->getNumArgs() != 2) return std::nullopt;
    return assignment(op->getArg(0), op->getArg(1));
  }
  if (std::optional<Store> handed = handOverOf(s)) return handed;
  if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(s)) {
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    if (method == nullptr || !method->getDeclName().isIdentifier()) return std::nullopt;
    const std::string name = method->getName().str();
    const bool release = contains(config.release_methods, name);
    if (!release && !contains(config.store_methods, name)) return std::nullopt;
    std::optional<Handle> h = receiverOf(call);
    if (!h) return std::nullopt;
    const bool empty = std::all_of(call->arg_begin(), call->arg_end(),
                                   [](const clang::Expr* a) { return isEmptyValue(a); });
    const bool releases = release && (empty || name != "reset");
    return Store{*h, releases ? EventKind::kRelease : EventKind::kAssign, "." + name + "()"};
  }
  if (const auto* del = llvm::dyn_cast<clang::CXXDeleteExpr>(s)) {
    std::optional<Handle> h = handleOf(del->getArgument());
    if (!h) return std::nullopt;
    return Store{*h, EventKind::kRelease, "delete"};
  }
  return std::nullopt;
}

bool isEmptyValue(const clang::Expr* e) {
  e = e->IgnoreImplicit()->IgnoreParens();
  if (llvm::isa<clang::CXXNullPtrLiteralExpr, clang::GNUNullExpr, clang::CXXScalarValueInitExpr>(
          e)) {
    return true;
  }
  if (const auto* lit = llvm::dyn_cast<clang::IntegerLiteral>(e)) return lit->getValue() == 0;
  if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(e)) {
    // As written: `{}` is empty even when the semantic form fills in default member initializers.
    if (list->isSemanticForm() && list->getSyntacticForm() != nullptr)
      list = list->getSyntacticForm();
    return list->getNumInits() == 0 || (list->getNumInits() == 1 && isEmptyValue(list->getInit(0)));
  }
  if (const auto* list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(e)) {
    return isEmptyValue(list->getSubExpr());
  }
  if (const auto* arg = llvm::dyn_cast<clang::CXXDefaultArgExpr>(e))
    return isEmptyValue(arg->getExpr());
  if (const auto* cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e)) {
    return isEmptyValue(cast->getSubExpr());
  }
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
    return std::all_of(construct->arg_begin(), construct->arg_end(),
                       [](const clang::Expr* a) { return isEmptyValue(a); });
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const clang::NamedDecl* decl = ref->getDecl();
    return decl->getDeclName().isIdentifier() && decl->getName() == "nullopt";
  }
  return false;
}

}  // namespace memfloor::checker

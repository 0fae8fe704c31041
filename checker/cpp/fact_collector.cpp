// Collects the facts of one translation unit, function by function.
#include "checker/cpp/fact_collector.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "checker/cpp/ast_facts.h"
#include "checker/cpp/cfg_paths.h"
#include "checker/cpp/handle.h"

namespace memfloor::checker {
namespace {

// A function body's statements in source order; lambda bodies are functions of their own.
class BodyStatements : public clang::RecursiveASTVisitor<BodyStatements> {
 public:
  std::vector<const clang::Stmt*> statements;
  bool VisitStmt(clang::Stmt* s) {
    statements.push_back(s);
    return true;
  }
  bool TraverseLambdaExpr(clang::LambdaExpr*) { return true; }
};

class FunctionFinder : public clang::RecursiveASTVisitor<FunctionFinder> {
 public:
  std::vector<const clang::FunctionDecl*> found;
  bool VisitFunctionDecl(clang::FunctionDecl* f) {
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(f);
    if (f->doesThisDeclarationHaveABody() && !(method && method->getParent()->isLambda())) {
      found.push_back(f);
    }
    return true;
  }
  bool VisitLambdaExpr(clang::LambdaExpr* lambda) {
    found.push_back(lambda->getCallOperator());
    return true;
  }
};

// `s` or one of its sub-statements passes `test`.
bool contains(const clang::Stmt* s, const FunctionPaths::StmtTest& test) {
  if (test(s)) return true;
  return std::any_of(s->child_begin(), s->child_end(), [&](const clang::Stmt* child) {
    return child != nullptr && contains(child, test);
  });
}

bool namesHandle(const clang::Stmt* s, const std::string& key) {
  const auto* e = llvm::dyn_cast<clang::Expr>(s);
  std::optional<Handle> h = e != nullptr ? handleOf(e) : std::nullopt;
  return h && h->key == key;
}

// A dereference of the object `s` reaches: `*m`, `m->x`, `m.value()` (`this->x` is none).
bool isDereference(const clang::Stmt* s) {
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(s))
    return unary->getOpcode() == clang::UO_Deref;
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(s)) {
    return (op->getOperator() == clang::OO_Star || op->getOperator() == clang::OO_Arrow) &&
           op->getNumArgs() == 1;
  }
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(s)) {
    return member->isArrow() &&
           !llvm::isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts());
  }
  const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(s);
  const clang::CXXMethodDecl* method = call ? call->getMethodDecl() : nullptr;
  return method != nullptr && method->getDeclName().isIdentifier() && method->getName() == "value";
}

// The handles `s` tests rather than dereferences: `m_` in `m_ != nullptr`, `!m_`,
// `m_.has_value()`, `static_cast<bool>(m_)`, but not in `m_->ready()` or `*m_`.
void testedHandles(const clang::Stmt* s, std::vector<Handle>& out) {
  if (isDereference(s)) return;
  if (const auto* e = llvm::dyn_cast<clang::Expr>(s)) {
    if (std::optional<Handle> h = handleOf(e)) return out.push_back(*h);
  }
  for (const clang::Stmt* child : s->children()) {
    if (child != nullptr) testedHandles(child, out);
  }
}

}  // namespace

// One function: its stores, calls and dereferences, then the path questions about them.
class FunctionScan {
 public:
  FunctionScan(FactCollector& collector, const clang::FunctionDecl* function)
      : c_(collector),
        sm_(collector.context_.getSourceManager()),
        function_(function),
        fact_(functionFact(function, sm_)) {}

  void run() {
    BodyStatements body;
    body.TraverseStmt(function_->getBody());
    for (const clang::Stmt* s : body.statements) {
      const auto* call = llvm::dyn_cast<clang::CallExpr>(s);
      const auto* method =
          call ? llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getCalleeDecl()) : nullptr;
      std::optional<Handle> receiver = method ? receiverOf(call) : std::nullopt;
      if (receiver)
        calls_.try_emplace(s, Call{*receiver, functionKey(method, sm_), method->getNameAsString()});
    }
    for (const clang::Stmt* s : body.statements) classify(s);
    nullChecks(body.statements);
    if (const auto* constructor = llvm::dyn_cast<clang::CXXConstructorDecl>(function_)) {
      BodyStatements inits;
      for (const clang::CXXCtorInitializer* init : constructor->inits()) {
        if (init->isWritten()) inits.TraverseStmt(init->getInit());
      }
      callEdges(inits.statements);
    }
    callEdges(body.statements);
    c_.facts_.functions.try_emplace(fact_.key, fact_);
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function_))
      addRecord(method->getParent());
  }

 private:
  struct Call {
    Handle receiver;
    std::string callee;
    std::string callee_name;
  };

  bool heavyField(const Handle& h) {
    if (h.field == nullptr || !c_.heavy_.isHeavy(h.field->getType())) return false;
    FieldFact fact{fieldKey(h.field), h.field->getNameAsString(),
                   h.field->getParent()->getQualifiedNameAsString(),
                   c_.heavy_.handleKind(h.field->getType()),
                   sourceLoc(sm_, h.field->getLocation())};
    c_.facts_.fields.try_emplace(fact.key, fact);
    if (const auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(h.field->getParent()))
      addRecord(record);
    return true;
  }

  void addRecord(const clang::CXXRecordDecl* record) {
    if (!record->isLambda())
      c_.facts_.records.try_emplace(record->getQualifiedNameAsString(), baseNames(record));
  }

  // A bool method's null checks: the nullable heavy fields of its object that every return tests.
  void nullChecks(const std::vector<const clang::Stmt*>& statements) {
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function_);
    if (method == nullptr || method->isStatic() || !method->getReturnType()->isBooleanType()) {
      return;
    }
    std::optional<std::set<std::string>> common;
    for (const clang::Stmt* s : statements) {
      const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(s);
      if (ret == nullptr) continue;
      std::vector<Handle> handles;
      if (ret->getRetValue() != nullptr) testedHandles(ret->getRetValue(), handles);
      std::set<std::string> tested;
      for (const Handle& h : handles) {
        if (h.through_this && heavyField(h) && isNullable(c_.heavy_.handleKind(h.field->getType())))
          tested.insert(fieldKey(h.field));
      }
      if (common) {
        std::erase_if(*common, [&](const std::string& f) { return tested.count(f) == 0; });
      } else {
        common = std::move(tested);
      }
    }
    if (common) fact_.null_checks.assign(common->begin(), common->end());
  }

  // The calls of program functions (not of library ones), the first of each (callee, on_this):
  // MF002 asks who calls a method, MF003 which helpers a method calls on its own object.
  void callEdges(const std::vector<const clang::Stmt*>& statements) {
    for (const clang::Stmt* s : statements) {
      const auto* call = llvm::dyn_cast<clang::CallExpr>(s);
      const clang::FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
      if (callee == nullptr || callee->isImplicit() ||
          sm_.isInSystemHeader(callee->getLocation()) || c_.heavy_.inIgnoredNamespace(callee)) {
        continue;
      }
      const std::optional<Handle> receiver = receiverOf(call);
      CallEdge edge{fact_.key, functionKey(callee, sm_), receiver && receiver->is_this,
                    sourceLoc(sm_, call->getBeginLoc())};
      if (edges_seen_.emplace(edge.callee, edge.on_this).second)
        c_.facts_.call_edges.push_back(std::move(edge));
    }
  }

  FunctionPaths& paths() {
    if (!paths_) paths_ = std::make_unique<FunctionPaths>(function_, c_.context_);
    return *paths_;
  }

  void classify(const clang::Stmt* s) {
    if (std::optional<Store> store = storeOf(s, c_.config_)) {
      if (heavyField(store->handle)) {
        c_.facts_.events.push_back(FieldEvent{store->kind, fieldKey(store->handle.field), fact_.key,
                                              store->idiom, store->handle.through_this,
                                              sourceLoc(sm_, s->getBeginLoc())});
      }
      if (llvm::isa<clang::CXXMemberCallExpr>(s)) return;
    }
    if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(s)) return memberCall(call);
    const bool structors =
        fact_.kind == FunctionKind::kConstructor || fact_.kind == FunctionKind::kDestructor;
    if (structors) return;
    if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(s)) {
      if ((op->getOperator() == clang::OO_Arrow || op->getOperator() == clang::OO_Star) &&
          op->getNumArgs() == 1) {
        deref(s, handleOf(op->getArg(0)), false);
      }
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(s);
               member && member->isArrow()) {
      const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
      if (!llvm::isa<clang::CXXOperatorCallExpr, clang::CXXThisExpr>(base))
        deref(s, handleOf(base), true);
    } else if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(s);
               unary && unary->getOpcode() == clang::UO_Deref) {
      deref(s, handleOf(unary->getSubExpr()), true);
    }
  }

  void memberCall(const clang::CXXMemberCallExpr* call) {
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    std::optional<Handle> receiver = receiverOf(call);
    if (method == nullptr || !receiver) return;
    if (method->getDeclName().isIdentifier() && method->getName() == "value" &&
        fact_.kind != FunctionKind::kConstructor && fact_.kind != FunctionKind::kDestructor) {
      deref(call, receiver, false);
    }
    if (method->isStatic() || method->isOverloadedOperator() ||
        llvm::isa<clang::CXXConversionDecl>(method) || c_.heavy_.inIgnoredNamespace(method)) {
      return;
    }
    const clang::CXXRecordDecl* record = c_.heavy_.designatedRecord(receiver->type);
    if (record == nullptr) record = method->getParent();
    if (c_.heavy_.inIgnoredNamespace(record) || !c_.heavy_.isHeavyRecord(record)) return;
    std::optional<FunctionPaths::Pos> pos = paths().valid() ? paths().find(call) : std::nullopt;
    if (!pos) return;
    CallSite site;
    site.method = functionKey(rootMethod(method), sm_);
    site.method_display = method->getParent()->getNameAsString() + "::" + method->getNameAsString();
    site.receiver_record = record->getQualifiedNameAsString();
    if (heavyField(*receiver)) site.field = fieldKey(receiver->field);
    site.function = fact_.key;
    site.handle = receiver->text;
    const clang::QualType type = receiver->type.getNonReferenceType();
    site.handle_is_pointer = receiver->is_this || type->isPointerType() ||
                             c_.heavy_.handleKind(type) == HandleKind::kSmartPointer;
    site.persistent = receiver->persistent;
    site.loc = sourceLoc(sm_, call->getExprLoc());
    site.released = releasedAfter(call, *pos, *receiver);
    if (std::optional<FixAnchor> anchor = fixAnchorOf(call, c_.context_)) {
      site.fix_after = anchor->after;
      site.fix_indent = anchor->indent;
    }
    c_.facts_.calls.push_back(std::move(site));
  }

  void deref(const clang::Stmt* s, const std::optional<Handle>& h, bool raw) {
    if (!h || !heavyField(*h)) return;
    const HandleKind kind = c_.heavy_.handleKind(h->field->getType());
    if (raw != (kind == HandleKind::kRawPointer) || !isNullable(kind)) return;
    std::optional<FunctionPaths::Pos> pos = paths().valid() ? paths().find(s) : std::nullopt;
    if (!pos) return;
    c_.facts_.derefs.push_back(DerefSite{fieldKey(h->field), fact_.key, h->text,
                                         sourceLoc(sm_, s->getBeginLoc()),
                                         guardedBefore(s, *pos, *h)});
  }

  // A call on `h` (releases its state) or on its owner (releases or assigns the field directly).
  std::optional<Candidate> candidate(const clang::Stmt* s, const Handle& h, bool on_self) {
    auto it = calls_.find(s);
    if (it == calls_.end()) return std::nullopt;
    const Handle& r = it->second.receiver;
    Candidate found;
    found.method = it->second.callee;
    if (on_self && r.key == h.key) return found;
    found.field = h.field != nullptr ? fieldKey(h.field) : "";
    if (h.field != nullptr && r.key == h.parent_key) return found;
    return std::nullopt;
  }

  // The distinct candidate calls for `h` in the function (their first calls); the callers answer
  // the path questions with `callOf`.
  std::vector<Candidate> candidates(const clang::Stmt* use, const Handle& h, bool on_self) {
    std::vector<Candidate> found;
    for (const auto& [stmt, call] : calls_) {
      std::optional<Candidate> cand = stmt != use ? candidate(stmt, h, on_self) : std::nullopt;
      if (!cand) continue;
      const SourceLoc at = sourceLoc(sm_, stmt->getBeginLoc());
      auto same = std::find_if(found.begin(), found.end(), [&](const Candidate& f) {
        return f.method == cand->method && f.field == cand->field;
      });
      if (same == found.end()) {
        cand->name = call.callee_name;
        cand->loc = at;
        found.push_back(*cand);
      } else if (at < same->loc) {
        same->loc = at;
      }
    }
    return found;
  }

  // Whether a statement is one of the calls `cand` stands for.
  FunctionPaths::StmtTest callOf(const Candidate& cand, const clang::Stmt* use, const Handle& h,
                                 bool on_self) {
    return [this, &cand, use, &h, on_self](const clang::Stmt* s) {
      std::optional<Candidate> other = s != use ? candidate(s, h, on_self) : std::nullopt;
      return other && other->method == cand.method && other->field == cand.field;
    };
  }

  PathFacts releasedAfter(const clang::Stmt* use, FunctionPaths::Pos pos, const Handle& h) {
    const auto release = [&](const clang::Stmt* s) {
      std::optional<Store> st = storeOf(s, c_.config_);
      return st && st->kind == EventKind::kRelease && st->handle.key == h.key;
    };
    PathFacts p;
    const clang::Stmt* first = nullptr;
    p.direct = paths().allPathsToExit(pos, release, &first);
    if (first != nullptr) {
      p.event = sourceLoc(sm_, first->getBeginLoc());
      p.event_idiom = storeOf(first, c_.config_)->idiom;
    }
    if (p.direct) return p;
    p.candidates = candidates(use, h, true);
    for (Candidate& cand : p.candidates) {
      const FunctionPaths::StmtTest call = callOf(cand, use, h, true);
      cand.all_paths =
          paths().allPathsToExit(pos, [&](const clang::Stmt* s) { return release(s) || call(s); });
    }
    return p;
  }

  PathFacts guardedBefore(const clang::Stmt* use, FunctionPaths::Pos pos, const Handle& h) {
    const auto assign = [&](const clang::Stmt* s) {
      std::optional<Store> st = storeOf(s, c_.config_);
      return st && st->kind == EventKind::kAssign && st->handle.key == h.key;
    };
    const auto check = [&](const clang::Stmt* cond) {
      return contains(cond, [&](const clang::Stmt* s) { return namesHandle(s, h.key); });
    };
    PathFacts p;
    p.direct = paths().allPathsFromEntry(pos, assign, check);
    if (p.direct) return p;
    p.candidates = candidates(use, h, false);
    for (Candidate& cand : p.candidates) {
      const FunctionPaths::StmtTest call = callOf(cand, use, h, false);
      cand.all_paths = paths().allPathsFromEntry(
          pos, [&](const clang::Stmt* s) { return assign(s) || call(s); }, check);
      cand.checked_paths = paths().allPathsFromEntry(pos, assign, [&](const clang::Stmt* cond) {
        return check(cond) || contains(cond, call);
      });
    }
    return p;
  }

  FactCollector& c_;
  const clang::SourceManager& sm_;
  const clang::FunctionDecl* function_;
  FunctionFact fact_;
  std::map<const clang::Stmt*, Call> calls_;
  std::set<std::pair<std::string, bool>> edges_seen_;  // (callee, on_this)
  std::unique_ptr<FunctionPaths> paths_;
};

FactCollector::FactCollector(clang::ASTContext& context, const Config& config)
    : context_(context), config_(config), heavy_(config) {}

void FactCollector::collect() {
  FunctionFinder finder;
  finder.TraverseDecl(context_.getTranslationUnitDecl());
  std::set<const clang::FunctionDecl*> seen;
  for (const clang::FunctionDecl* f : finder.found) {
    if (seen.insert(f).second) analyzeFunction(f);
  }
}

namespace {

// Members of class templates are checked once, on the template's pattern (non-dependent code is
// resolved there), and not on each instantiation. Other templates are not checked.
bool checkedTemplate(const clang::FunctionDecl* function) {
  if (function->getDescribedFunctionTemplate() != nullptr) return false;
  for (const clang::DeclContext* dc = function->getDeclContext(); dc != nullptr;
       dc = dc->getParent()) {
    const auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(dc);
    if (record != nullptr && record->getDescribedClassTemplate() != nullptr) return true;
    if (llvm::isa<clang::FunctionDecl>(dc) &&
        llvm::cast<clang::FunctionDecl>(dc)->getDescribedFunctionTemplate() != nullptr) {
      return false;
    }
  }
  return false;
}

}  // namespace

void FactCollector::analyzeFunction(const clang::FunctionDecl* function) {
  const clang::SourceManager& sm = context_.getSourceManager();
  if ((function->isDependentContext() && !checkedTemplate(function)) || function->isInvalidDecl() ||
      function->getBody() == nullptr || sm.isInSystemHeader(function->getLocation())) {
    return;
  }
  FunctionScan(*this, function).run();
}

}  // namespace memfloor::checker

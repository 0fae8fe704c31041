// Turning AST nodes into fact records: locations, function and field keys, fix-it anchors.
#include "checker/cpp/ast_facts.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace memfloor::checker {

SourceLoc sourceLoc(const clang::SourceManager& sm, clang::SourceLocation loc) {
  if (loc.isInvalid()) return {};
  loc = sm.getExpansionLoc(loc);
  const clang::FileID file = sm.getFileID(loc);
  SourceLoc out;
  if (const clang::FileEntry* entry = sm.getFileEntryForID(file)) {
    llvm::StringRef real = entry->tryGetRealPathName();
    out.file = real.empty() ? entry->getName().str() : real.str();
  }
  out.line = static_cast<int>(sm.getExpansionLineNumber(loc));
  out.column = static_cast<int>(sm.getExpansionColumnNumber(loc));
  out.offset = static_cast<int>(sm.getFileOffset(loc));
  return out;
}

std::string functionKey(const clang::FunctionDecl* function, const clang::SourceManager& sm) {
  // A member of a class template instance is keyed as the template's member (its pattern).
  if (const clang::FunctionDecl* pattern = function->getTemplateInstantiationPattern())
    function = pattern;
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
      method && method->getParent()->isLambda()) {
    const SourceLoc at = sourceLoc(sm, function->getLocation());
    return "lambda@" + at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
  }
  std::string key = function->getQualifiedNameAsString() + "(";
  for (unsigned i = 0; i < function->getNumParams(); ++i) {
    if (i > 0) key += ", ";
    key += function->getParamDecl(i)->getType().getCanonicalType().getAsString();
  }
  key += ")";
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
      method && method->isConst()) {
    key += " const";
  }
  return key;
}

FunctionFact functionFact(const clang::FunctionDecl* function, const clang::SourceManager& sm) {
  FunctionFact fact;
  fact.key = functionKey(function, sm);
  fact.loc = sourceLoc(sm, function->getLocation());
  fact.display = function->getNameAsString();
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
  if (method == nullptr) {
    fact.display = function->getQualifiedNameAsString();
    return fact;
  }
  if (method->getParent()->isLambda()) {
    fact.display = "lambda";
    return fact;
  }
  fact.record = method->getParent()->getQualifiedNameAsString();
  fact.display = method->getParent()->getNameAsString() + "::" + fact.display;
  fact.kind = llvm::isa<clang::CXXConstructorDecl>(method)  ? FunctionKind::kConstructor
              : llvm::isa<clang::CXXDestructorDecl>(method) ? FunctionKind::kDestructor
              : method->isCopyAssignmentOperator() || method->isMoveAssignmentOperator()
                  ? FunctionKind::kAssignment
                  : FunctionKind::kMethod;
  for (const clang::CXXMethodDecl* base : method->overridden_methods()) {
    fact.overrides.push_back(functionKey(base, sm));
  }
  return fact;
}

const clang::CXXMethodDecl* rootMethod(const clang::CXXMethodDecl* method) {
  while (method->size_overridden_methods() > 0) method = *method->begin_overridden_methods();
  return method;
}

std::string fieldKey(const clang::FieldDecl* field) {
  return field->getParent()->getQualifiedNameAsString() + "::" + field->getNameAsString();
}

std::vector<std::string> baseNames(const clang::CXXRecordDecl* record) {
  std::vector<std::string> names;
  if (!record->hasDefinition()) return names;
  for (const clang::CXXBaseSpecifier& base : record->getDefinition()->bases()) {
    if (const clang::CXXRecordDecl* b = base.getType()->getAsCXXRecordDecl()) {
      names.push_back(b->getQualifiedNameAsString());
    }
  }
  return names;
}

std::optional<FixAnchor> fixAnchorOf(const clang::Expr* e, clang::ASTContext& context) {
  const clang::SourceManager& sm = context.getSourceManager();
  if (e->getBeginLoc().isMacroID()) return std::nullopt;
  clang::DynTypedNode node = clang::DynTypedNode::create(*e);
  const clang::Stmt* statement = nullptr;
  for (;;) {
    const auto parents = context.getParents(node);
    if (parents.empty()) return std::nullopt;
    const clang::DynTypedNode& parent = parents[0];
    if (parent.get<clang::Expr>() != nullptr || parent.get<clang::VarDecl>() != nullptr ||
        parent.get<clang::DeclStmt>() != nullptr) {
      node = parent;
      continue;
    }
    if (parent.get<clang::CompoundStmt>() == nullptr) return std::nullopt;
    statement = node.get<clang::Stmt>();
    break;
  }
  if (statement == nullptr || statement->getEndLoc().isMacroID()) return std::nullopt;
  const clang::LangOptions& lang = context.getLangOpts();
  clang::SourceLocation end = statement->getEndLoc();
  clang::Token token;
  clang::SourceLocation after;
  if (!clang::Lexer::getRawToken(end, token, sm, lang) && token.is(clang::tok::semi)) {
    after = clang::Lexer::getLocForEndOfToken(end, 0, sm, lang);
  } else {
    after = clang::Lexer::findLocationAfterToken(end, clang::tok::semi, sm, lang, false);
  }
  if (after.isInvalid()) return std::nullopt;
  // After a trailing comment when only one follows the semicolon, so that it stays on its line.
  const char* rest = sm.getCharacterData(after);
  unsigned skip = 0;
  while (rest[skip] == ' ' || rest[skip] == '\t') ++skip;
  if (rest[skip] == '/' && rest[skip + 1] == '/') {
    while (rest[skip] != '\n' && rest[skip] != '\r' && rest[skip] != '\0') ++skip;
    after = after.getLocWithOffset(static_cast<int>(skip));
  }
  FixAnchor anchor{sourceLoc(sm, after), ""};
  const SourceLoc begin = sourceLoc(sm, statement->getBeginLoc());
  const char* line =
      sm.getCharacterData(sm.getExpansionLoc(statement->getBeginLoc())) - (begin.column - 1);
  for (const char* c = line; *c == ' ' || *c == '\t'; ++c) anchor.indent += *c;
  return anchor;
}

}  // namespace memfloor::checker

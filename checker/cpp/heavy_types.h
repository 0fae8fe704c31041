// Which types hold device memory ("heavy"): by name, by annotation, or through members, bases and
// template arguments; and how a field of such a type holds it.
#pragma once

#include <clang/AST/Type.h>
#include <llvm/Support/Regex.h>

#include <map>
#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"

namespace clang {
class CXXRecordDecl;
class Decl;
}  // namespace clang

namespace memfloor::checker {

class HeavyTypes {
 public:
  explicit HeavyTypes(const Config& config);

  // The type leads to device memory: a heavy record, or a pointer, array or container of one.
  // References do not. With `owning`, raw pointers do not either (what makes a record heavy).
  bool isHeavy(clang::QualType type, bool owning = false);
  bool isHeavyRecord(const clang::CXXRecordDecl* record);
  // How a field or variable of `type` holds its memory.
  HandleKind handleKind(clang::QualType type) const;
  // The record reached through `type`'s `->` or `.`: the pointee of raw and smart pointers and
  // optionals, else the record itself. Null when there is none.
  const clang::CXXRecordDecl* designatedRecord(clang::QualType type) const;
  // Whether `decl` lives in one of the configured library namespaces (std, boost...).
  bool inIgnoredNamespace(const clang::Decl* decl) const;

 private:
  bool computeHeavy(const clang::CXXRecordDecl* record);
  bool hasAnnotation(const clang::CXXRecordDecl* record, const std::string& annotation) const;

  const Config& config_;
  std::vector<llvm::Regex> patterns_;
  std::map<const clang::CXXRecordDecl*, int> cache_;  // -1 being computed, 0 light, 1 heavy
};

// The outermost namespace of `decl` ("" when global).
std::string outerNamespace(const clang::Decl* decl);
// The unqualified name of a template specialization's template, or of the record.
std::string recordName(const clang::CXXRecordDecl* record);

}  // namespace memfloor::checker

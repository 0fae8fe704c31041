// Which types hold device memory: names, annotations, members, bases and template arguments.
#include "checker/cpp/heavy_types.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>

#include <algorithm>
#include <set>

namespace memfloor::checker {
namespace {

const std::set<std::string> kSmartPointers{"shared_ptr", "unique_ptr", "intrusive_ptr"};
const std::set<std::string> kOptionals{"optional"};
const std::set<std::string> kContainers{"vector",
                                        "deque",
                                        "list",
                                        "forward_list",
                                        "map",
                                        "multimap",
                                        "set",
                                        "multiset",
                                        "unordered_map",
                                        "unordered_set",
                                        "unordered_multimap",
                                        "SmallVector"};

const clang::CXXRecordDecl* recordOf(clang::QualType type) {
  return type.isNull() ? nullptr : type.getCanonicalType()->getAsCXXRecordDecl();
}

// The first type template argument of a specialization, or a null type.
clang::QualType firstTypeArgument(const clang::CXXRecordDecl* record) {
  const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
  if (spec == nullptr || spec->getTemplateArgs().size() == 0) return {};
  const clang::TemplateArgument& arg = spec->getTemplateArgs()[0];
  return arg.getKind() == clang::TemplateArgument::Type ? arg.getAsType() : clang::QualType();
}

}  // namespace

std::string outerNamespace(const clang::Decl* decl) {
  std::string outer;
  for (const clang::DeclContext* dc = decl->getDeclContext(); dc != nullptr; dc = dc->getParent()) {
    if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(dc)) outer = ns->getName().str();
  }
  return outer;
}

std::string recordName(const clang::CXXRecordDecl* record) { return record->getNameAsString(); }

HeavyTypes::HeavyTypes(const Config& config) : config_(config) {
  for (const std::string& p : config.heavy_type_patterns) patterns_.emplace_back(p);
}

bool HeavyTypes::inIgnoredNamespace(const clang::Decl* decl) const {
  const std::string outer = outerNamespace(decl);
  return !outer.empty() &&
         std::find(config_.ignored_namespaces.begin(), config_.ignored_namespaces.end(), outer) !=
             config_.ignored_namespaces.end();
}

bool HeavyTypes::isHeavy(clang::QualType type, bool owning) {
  if (type.isNull()) return false;
  type = type.getCanonicalType();
  if (type->isReferenceType()) return false;
  if (const auto* array = type->getAsArrayTypeUnsafe()) {
    return isHeavy(array->getElementType(), owning);
  }
  if (type->isPointerType()) return !owning && isHeavy(type->getPointeeType());
  const clang::CXXRecordDecl* record = recordOf(type);
  return record != nullptr && isHeavyRecord(record);
}

bool HeavyTypes::isHeavyRecord(const clang::CXXRecordDecl* record) {
  if (const clang::CXXRecordDecl* def = record->getDefinition()) record = def;
  auto [it, inserted] = cache_.try_emplace(record, -1);
  if (!inserted) return it->second == 1;  // a cycle (-1) counts as light
  const bool heavy = computeHeavy(record);
  cache_[record] = heavy ? 1 : 0;
  return heavy;
}

bool HeavyTypes::hasAnnotation(const clang::CXXRecordDecl* record,
                               const std::string& annotation) const {
  for (const auto* attr : record->specific_attrs<clang::AnnotateAttr>()) {
    if (attr->getAnnotation() == annotation) return true;
  }
  return false;
}

bool HeavyTypes::computeHeavy(const clang::CXXRecordDecl* record) {
  const std::string qualified = record->getQualifiedNameAsString();
  const auto listed = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), qualified) != names.end();
  };
  if (hasAnnotation(record, config_.light_annotation) || listed(config_.light_types)) return false;
  if (hasAnnotation(record, config_.heavy_annotation) || listed(config_.heavy_types)) return true;
  const bool library = inIgnoredNamespace(record);
  if (!library) {
    const std::string name = recordName(record);
    for (const llvm::Regex& p : patterns_) {
      if (p.match(name)) return true;
    }
  }
  if (const auto* spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(record)) {
    for (const clang::TemplateArgument& arg : spec->getTemplateArgs().asArray()) {
      if (arg.getKind() == clang::TemplateArgument::Type && isHeavy(arg.getAsType(), true)) {
        return true;
      }
      if (arg.getKind() != clang::TemplateArgument::Pack) continue;
      for (const clang::TemplateArgument& inner : arg.pack_elements()) {
        if (inner.getKind() == clang::TemplateArgument::Type && isHeavy(inner.getAsType(), true)) {
          return true;
        }
      }
    }
  }
  if (library || !record->hasDefinition()) return false;
  for (const clang::CXXBaseSpecifier& base : record->bases()) {
    if (const clang::CXXRecordDecl* b = recordOf(base.getType()); b && isHeavyRecord(b)) {
      return true;
    }
  }
  return std::any_of(record->field_begin(), record->field_end(),
                     [this](const clang::FieldDecl* f) { return isHeavy(f->getType(), true); });
}

HandleKind HeavyTypes::handleKind(clang::QualType type) const {
  type = type.getCanonicalType();
  if (type->isPointerType()) return HandleKind::kRawPointer;
  const clang::CXXRecordDecl* record = recordOf(type);
  if (record == nullptr) return HandleKind::kValue;
  const std::string name = recordName(record);
  if (kSmartPointers.count(name)) return HandleKind::kSmartPointer;
  if (kOptionals.count(name)) return HandleKind::kOptional;
  if (kContainers.count(name)) return HandleKind::kContainer;
  return HandleKind::kValue;
}

const clang::CXXRecordDecl* HeavyTypes::designatedRecord(clang::QualType type) const {
  type = type.getNonReferenceType().getCanonicalType();
  if (type->isPointerType()) return recordOf(type->getPointeeType());
  const clang::CXXRecordDecl* record = recordOf(type);
  if (record == nullptr) return nullptr;
  const HandleKind kind = handleKind(type);
  if (kind == HandleKind::kSmartPointer || kind == HandleKind::kOptional) {
    return recordOf(firstTypeArgument(record));
  }
  return record;
}

}  // namespace memfloor::checker

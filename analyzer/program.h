// The merged facts as one program: who releases and assigns which field, what a call resolves to.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/facts.h"

namespace memfloor::analyzer {

class Program {
 public:
  explicit Program(Facts facts);

  const Facts& facts() const { return facts_; }
  FunctionKind kindOf(const std::string& function) const;  // kFunction when unknown
  std::string displayOf(const std::string& function) const;
  std::string fieldName(const std::string& field) const;
  std::string shortRecord(const std::string& record) const;  // without namespaces

  // `function` stores into / releases `field` of its own object, directly in its body.
  bool assignsDirectly(const std::string& function, const std::string& field) const;
  bool releasesDirectly(const std::string& function, const std::string& field) const;
  // `function` is a method that releases heavy fields of its object and assigns none.
  bool releasesState(const std::string& function) const;
  // The releases of `field` in methods and functions (not in constructors, assignment operators
  // or destructors), in source order.
  const std::vector<const FieldEvent*>& releasesOf(const std::string& field) const;

  // Path answers with the candidate calls resolved.
  bool released(const PathFacts& path) const;
  bool guarded(const PathFacts& path) const;
  // The release that makes `path` released: the direct event, else the first releasing call
  // (idiom "call", `method` its name). Null location when there is none.
  struct Release {
    SourceLoc loc;
    std::string idiom;
    std::string method;
  };
  Release releaseOf(const PathFacts& path) const;

 private:
  Facts facts_;
  std::set<std::pair<std::string, std::string>> assigns_;   // (function, field), own object
  std::set<std::pair<std::string, std::string>> releases_;  // (function, field), own object
  std::map<std::string, std::vector<const FieldEvent*>> releases_of_;
};

}  // namespace memfloor::analyzer

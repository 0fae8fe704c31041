// The merged facts as one program: who releases and assigns which field, what a call resolves to.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checker/facts.h"

namespace memfloor::checker {

// A Python method whose name says it sets the object up (`_init_buffers`, `setup`,
// `initialize_state`, `reset_parameters`, `_configure_x`, `build_layers`): it runs while objects
// are built or rebuilt, as a constructor does, whoever calls it.
bool isSetupByName(const FunctionFact& function);

class Program {
 public:
  explicit Program(Facts facts);

  const Facts& facts() const { return facts_; }
  FunctionKind kindOf(const std::string& function) const;  // kFunction when unknown
  std::string displayOf(const std::string& function) const;
  std::string recordOf(const std::string& function) const;  // empty for a free or unknown function
  std::string fieldName(const std::string& field) const;
  std::string shortRecord(const std::string& record) const;  // without namespaces

  // `function` stores into / releases `field` of its own object, directly in its body.
  bool assignsDirectly(const std::string& function, const std::string& field) const;
  bool releasesDirectly(const std::string& function, const std::string& field) const;
  // `function` is a method that releases heavy fields of its object and assigns none.
  bool releasesState(const std::string& function) const;
  // `function` runs only while objects are being built: it is a constructor or set up by name
  // (isSetupByName), or it has callers in the program and each of them (or of a method it
  // overrides) is setup-only.
  bool setupOnly(const std::string& function) const;
  // The calls `function` makes on its own object (`helper()`), one per callee.
  std::vector<const CallEdge*> selfCalls(const std::string& function) const;
  // `function` is a bool method whose every return tests `field` of its object for null.
  bool checksNull(const std::string& function, const std::string& field) const;
  // The releases of `field` in methods and functions (not in constructors, assignment operators
  // or destructors), in source order.
  const std::vector<const FieldEvent*>& releasesOf(const std::string& field) const;

  // Path answers with the candidate calls resolved.
  bool released(const PathFacts& path) const;
  bool guarded(const PathFacts& path) const;
  // The release that makes `path` released: the direct event, else the first releasing call
  // (idiom "call", `method` its name; `on_owner` when it is a method of the object holding the
  // field, `self.drop()`, not of the object released). Null location when there is none.
  struct Release {
    SourceLoc loc;
    std::string idiom;
    std::string method;
    bool on_owner = false;
  };
  Release releaseOf(const PathFacts& path) const;

 private:
  void findSetupOnly();

  Facts facts_;
  std::set<std::pair<std::string, std::string>> assigns_;   // (function, field), own object
  std::set<std::pair<std::string, std::string>> releases_;  // (function, field), own object
  std::map<std::string, std::vector<const FieldEvent*>> releases_of_;
  std::multimap<std::string, const CallEdge*> calls_by_caller_;
  std::set<std::string> setup_only_;
};

}  // namespace memfloor::checker

// Facts: what translation units say about heavy members and the calls on them; mergeable,
// serializable.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/source_language.h"

namespace memfloor::checker {

// A position in a source file. `offset` is the byte offset (for fix-its); lines and columns from 1.
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
  int offset = 0;

  bool valid() const { return line > 0; }
  friend bool operator<(const SourceLoc& a, const SourceLoc& b) {
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  }
  friend bool operator==(const SourceLoc& a, const SourceLoc& b) {
    return a.file == b.file && a.line == b.line && a.column == b.column;
  }
};

// How a heavy field holds its memory; it decides the release idioms and whether MF004 applies.
enum class HandleKind { kValue, kRawPointer, kSmartPointer, kOptional, kContainer };
bool isNullable(HandleKind kind);

struct FieldFact {
  std::string key;     // qualified: ns::Record::field_
  std::string name;    // field_
  std::string record;  // ns::Record
  HandleKind kind = HandleKind::kValue;
  SourceLoc loc;
};

enum class FunctionKind { kFunction, kMethod, kConstructor, kDestructor, kAssignment };

struct FunctionFact {
  std::string key;      // qualified name and parameter types: ns::R::f(int)
  std::string display;  // R::f
  std::string record;   // ns::R for methods, empty for free functions
  FunctionKind kind = FunctionKind::kFunction;
  std::vector<std::string> overrides;  // keys of the methods it overrides directly
  // For a bool method: the nullable heavy fields of its own object that every returned value
  // tests (`return state_ != nullptr;`), so that a call in a branch condition is a null check.
  std::vector<std::string> null_checks;
  SourceLoc loc;
};

// A store into or a release of a heavy field, written directly in a function body.
enum class EventKind { kAssign, kRelease };
struct FieldEvent {
  EventKind kind = EventKind::kAssign;
  std::string field;          // FieldFact key
  std::string function;       // FunctionFact key
  std::string idiom;          // "= nullptr", ".reset()", "std::move", "= value", ".push_back()"...
  bool through_this = false;  // the field of the function's own object
  SourceLoc loc;
  // A store of what this call received (made from the function's arguments), so that keeping it
  // keeps one call's data (MF002 reports only those). The C++ front end does not tell: true.
  bool per_call = true;
};

// A release that takes one element out of a container (`del h[k]`, `h.pop(k)`): the container is
// managed (MF002, MF004 see a release), but it is not emptied (no "releases the object's state").
bool isElementRemoval(const FieldEvent& event);
// A store that writes into the object the field holds (`h[k] = v`, `h += v` in Python): neither an
// assignment of the field nor a release of it.
bool isInPlaceStore(const FieldEvent& event);
// A release that leaves the field null: every C++ release of a nullable field; in Python `= None`,
// `del` and `setattr(..., None)`, not `= []` or `.clear()`, which leave an object to use.
bool isNulling(const FieldEvent& event);

// A later call on the same object whose effect is known only after merging: `method` releases the
// object's state (field empty), or releases (MF001) / assigns or null-checks (MF004) `field`
// directly. `all_paths`: the path question holds when calls of this method count as the event.
// `checked_paths` (MF004): it holds when calls of this method in branch conditions count as null
// checks of `field`.
struct Candidate {
  std::string method;
  std::string field;
  std::string name;  // the method's unqualified name, for fix-its
  bool all_paths = false;
  SourceLoc loc;  // the first such call
  bool checked_paths = false;
};

// The answer of a path question at one site: true on every path with the events known in the unit
// (`direct`), or through one of the candidate calls.
struct PathFacts {
  bool direct = false;
  std::vector<Candidate> candidates;
  SourceLoc event;          // the nearest direct event (for notes)
  std::string event_idiom;  // its idiom: "= nullptr", ".reset()", ...
};

// MF001 site: a call of `method` on an object of a heavy record, through `handle`.
struct CallSite {
  std::string method;          // key of the root method it overrides (or itself)
  std::string method_display;  // R::m
  std::string receiver_record;
  std::string field;  // FieldFact key when the handle ends in a field
  std::string function;
  std::string handle;  // source text: mlp_norm_manager_, chain.loss_node, this
  bool handle_is_pointer = false;
  bool persistent = false;  // the object outlives the function (member, global, reference, copy)
  SourceLoc loc;
  PathFacts released;   // released on every path from the call to the exit
  SourceLoc fix_after;  // the end of the statement holding the call
  std::string fix_indent;
  SourceLoc guard_at;  // Python: where `if handle is not None:` can go before that statement
};

// MF004 site: a dereference of a nullable heavy field.
struct DerefSite {
  std::string field;
  std::string function;
  std::string handle;
  SourceLoc loc;
  PathFacts guarded;  // a null check or an assignment on every path from the entry
};

// `caller` calls the function `callee` (the first such call, at `loc`); `on_this`: as a method of
// its own object (`helper()`, `this->helper()`). Constructors' member initializers count.
struct CallEdge {
  std::string caller;
  std::string callee;
  bool on_this = false;
  SourceLoc loc;
};

struct Facts {
  std::map<std::string, std::vector<std::string>> records;  // record -> direct bases
  std::map<std::string, FieldFact> fields;
  std::map<std::string, FunctionFact> functions;
  std::vector<FieldEvent> events;
  std::vector<CallSite> calls;
  std::vector<DerefSite> derefs;
  std::vector<CallEdge> call_edges;  // one per (caller, callee, on_this)
  std::vector<std::string> units;    // the translation units these facts came from

  // Adds `other`; sites seen twice (a header in two units) are kept once.
  void merge(Facts other);
};

inline constexpr const char* kFactsSchema = "memfloor.facts/1";

nlohmann::json toJson(const Facts& facts);

// The facts of a document; throws memfloor::Error, naming `name`, when it is not one of
// kFactsSchema's major (common::checkSchema) or is malformed.
Facts factsFromJson(const nlohmann::json& json, std::string_view name = "facts");
// The same, dropping each section of `json` once it is read (a large document and its facts are
// not held whole at once).
Facts factsFromJson(nlohmann::json&& json, std::string_view name = "facts");

// The value of an enum named `name` in the JSON form; false (and `kind` untouched) for any other
// name. For readers other than nlohmann's conversions (facts_reader.h), which take an unknown name
// for the first value.
bool enumFromName(std::string_view name, HandleKind& kind);
bool enumFromName(std::string_view name, FunctionKind& kind);
bool enumFromName(std::string_view name, EventKind& kind);

// `file` is a Python source (.py, .pyi): its facts come from the Python front end, and fix-its
// there are written in Python.
using common::isPythonSource;

// A facts file written by --emit-facts, read through the common loader (common/json_input.h).
Facts loadFacts(const std::string& path);

}  // namespace memfloor::checker

// Facts: merging the facts of several translation units and their JSON form (memfloor.facts/1).
#include "checker/facts.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "checker/facts_reader.h"
#include "common/error.h"
#include "common/json_input.h"

namespace memfloor::checker {
namespace {

// How facts files are checked (common/json_input.h).
constexpr common::JsonSchema kFactsDocument{
    kFactsSchema, "facts document", "write them again with --emit-facts of this memfloor-check"};

}  // namespace

bool isNullable(HandleKind kind) {
  return kind == HandleKind::kRawPointer || kind == HandleKind::kSmartPointer ||
         kind == HandleKind::kOptional;
}

NLOHMANN_JSON_SERIALIZE_ENUM(HandleKind, {{HandleKind::kValue, "value"},
                                          {HandleKind::kRawPointer, "raw_pointer"},
                                          {HandleKind::kSmartPointer, "smart_pointer"},
                                          {HandleKind::kOptional, "optional"},
                                          {HandleKind::kContainer, "container"}})
NLOHMANN_JSON_SERIALIZE_ENUM(FunctionKind, {{FunctionKind::kFunction, "function"},
                                            {FunctionKind::kMethod, "method"},
                                            {FunctionKind::kConstructor, "constructor"},
                                            {FunctionKind::kDestructor, "destructor"},
                                            {FunctionKind::kAssignment, "assignment"}})
NLOHMANN_JSON_SERIALIZE_ENUM(EventKind,
                             {{EventKind::kAssign, "assign"}, {EventKind::kRelease, "release"}})

namespace {

constexpr int kJsonTypeError = 302;  // nlohmann's id for "type must be ..."

// A location's numbers are integers that fit an int: a float or a larger integer is refused, not
// converted (a float past int's range converts to undefined behaviour, a larger integer wraps).
int locationNumber(const nlohmann::json& loc, const char* key) {
  const auto it = loc.find(key);
  if (it == loc.end()) return 0;
  const bool fits =
      it->is_number_unsigned()
          ? it->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max())
          : it->is_number_integer() && it->get<int64_t>() >= std::numeric_limits<int>::min() &&
                it->get<int64_t>() <= std::numeric_limits<int>::max();
  if (!fits) {
    throw nlohmann::json::type_error::create(
        kJsonTypeError,
        std::string("location: \"") + key + "\" should be an integer that fits an int", &loc);
  }
  return it->get<int>();
}

}  // namespace

// nlohmann finds the conversions of a type by these names.
// NOLINTNEXTLINE(readability-identifier-naming)
inline void to_json(nlohmann::json& json, const SourceLoc& loc) {
  json = {{"file", loc.file}, {"line", loc.line}, {"column", loc.column}, {"offset", loc.offset}};
}

// NOLINTNEXTLINE(readability-identifier-naming)
inline void from_json(const nlohmann::json& json, SourceLoc& loc) {
  loc.file = json.value("file", std::string());
  loc.line = locationNumber(json, "line");
  loc.column = locationNumber(json, "column");
  loc.offset = locationNumber(json, "offset");
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FieldFact, key, name, record, kind, loc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FunctionFact, key, display, record, kind, overrides,
                                                null_checks, loc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FieldEvent, kind, field, function, idiom,
                                                through_this, loc, per_call)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Candidate, method, field, name, all_paths, loc,
                                                checked_paths)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PathFacts, direct, candidates, event, event_idiom)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CallSite, method, method_display, receiver_record,
                                                field, function, handle, handle_is_pointer,
                                                persistent, loc, released, fix_after, fix_indent,
                                                guard_at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DerefSite, field, function, handle, loc, guarded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CallEdge, caller, callee, on_this, loc)

namespace {

// Appends the sites of `from` whose (location, discriminator) is not already in `into`. The keys
// view the strings of the sites in `into`, which the reserve keeps in place: the set of a large
// program's sites holds no copy of them.
template <typename Site, typename Key>
void appendNew(std::vector<Site>& into, std::vector<Site>& from, Key key) {
  const std::size_t needed = into.size() + from.size();
  if (needed > into.capacity()) into.reserve(std::max(needed, 2 * into.capacity()));
  std::set<decltype(key(into.front()))> seen;
  for (const Site& s : into) seen.insert(key(s));
  for (Site& s : from) {
    if (seen.count(key(s)) > 0) continue;
    into.push_back(std::move(s));
    seen.insert(key(into.back()));
  }
}

}  // namespace

void Facts::merge(Facts other) {
  for (auto& [record, bases] : other.records) {
    auto& mine = records[record];
    for (auto& b : bases) {
      if (std::find(mine.begin(), mine.end(), b) == mine.end()) mine.push_back(b);
    }
  }
  fields.merge(other.fields);
  functions.merge(other.functions);
  using View = std::string_view;
  appendNew(events, other.events, [](const FieldEvent& e) {
    return std::tuple(View(e.loc.file), e.loc.line, e.loc.column, View(e.field), e.kind);
  });
  appendNew(calls, other.calls, [](const CallSite& c) {
    return std::tuple(View(c.loc.file), c.loc.line, c.loc.column, View(c.method), View(c.handle));
  });
  appendNew(derefs, other.derefs, [](const DerefSite& d) {
    return std::tuple(View(d.loc.file), d.loc.line, d.loc.column, View(d.field), View(d.function));
  });
  appendNew(call_edges, other.call_edges, [](const CallEdge& e) {
    return std::tuple(View(e.caller), View(e.callee), e.on_this);
  });
  units.insert(units.end(), other.units.begin(), other.units.end());
}

nlohmann::json toJson(const Facts& facts) {
  return nlohmann::json{
      {"schema", kFactsSchema}, {"units", facts.units},         {"records", facts.records},
      {"fields", facts.fields}, {"functions", facts.functions}, {"events", facts.events},
      {"calls", facts.calls},   {"derefs", facts.derefs},       {"call_edges", facts.call_edges}};
}

namespace {

// Reads the sections of `json` into facts; when `json` is not const, each section is dropped once
// read, so that the document and the facts are not held whole at the same time.
template <typename Json>
Facts readFacts(Json& json, std::string_view name) {
  common::checkSchema(json, kFactsDocument, name);
  const auto read = [&json](const char* key, auto& into) {
    auto& section = json.at(key);
    section.get_to(into);
    if constexpr (!std::is_const_v<Json>) section = nullptr;
  };
  try {
    Facts facts;
    read("units", facts.units);
    read("records", facts.records);
    read("fields", facts.fields);
    read("functions", facts.functions);
    read("events", facts.events);
    read("calls", facts.calls);
    read("derefs", facts.derefs);
    // Added within memfloor.facts/1: documents written before it have no call edges (then no
    // method counts as setup-only for MF002, and MF003 sees no helpers).
    if (json.contains("call_edges")) read("call_edges", facts.call_edges);
    return facts;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string(name) + ": malformed facts document: " + e.what());
  }
}

}  // namespace

Facts factsFromJson(const nlohmann::json& json, std::string_view name) {
  return readFacts(json, name);
}

Facts factsFromJson(nlohmann::json&& json, std::string_view name) { return readFacts(json, name); }

namespace {

// The names of an enum's kCount values, as its NLOHMANN_JSON_SERIALIZE_ENUM writes them.
template <typename Enum, int kCount>
bool fromName(std::string_view name, Enum& kind) {
  static const std::array<std::string, kCount> kNames = [] {
    std::array<std::string, kCount> names;
    for (int i = 0; i < kCount; ++i)
      names[i] = nlohmann::json(static_cast<Enum>(i)).get<std::string>();
    return names;
  }();
  for (int i = 0; i < kCount; ++i) {
    if (kNames[i] == name) {
      kind = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

bool enumFromName(std::string_view name, HandleKind& kind) {
  return fromName<HandleKind, static_cast<int>(HandleKind::kContainer) + 1>(name, kind);
}
bool enumFromName(std::string_view name, FunctionKind& kind) {
  return fromName<FunctionKind, static_cast<int>(FunctionKind::kAssignment) + 1>(name, kind);
}
bool enumFromName(std::string_view name, EventKind& kind) {
  return fromName<EventKind, static_cast<int>(EventKind::kRelease) + 1>(name, kind);
}

bool isElementRemoval(const FieldEvent& event) {
  static const std::set<std::string, std::less<>> kRemovals{
      "del []", ".pop()", ".popitem()", ".popleft()", ".remove()", ".discard()"};
  return event.kind == EventKind::kRelease && kRemovals.count(event.idiom) > 0;
}

bool isInPlaceStore(const FieldEvent& event) {
  return event.kind == EventKind::kAssign &&
         (event.idiom == "[] = value" || event.idiom == "+= value");
}

bool isNulling(const FieldEvent& event) {
  if (event.kind != EventKind::kRelease) return false;
  if (!isPythonSource(event.loc.file)) return true;
  return event.idiom == "= None" || event.idiom == "del" || event.idiom == "setattr = None";
}

Facts loadFacts(const std::string& path) {
  const std::string text = common::readJsonFile(path, "facts file");
  if (std::optional<Facts> facts = readFactsText(text)) return std::move(*facts);
  // Not in the form memfloor writes, or not facts: the DOM reader's answer, or its message.
  return factsFromJson(common::parseJsonDocument(text, kFactsDocument, path), path);
}

}  // namespace memfloor::checker

// MF001 release-after-use deviance (Engler's "bugs as deviant behaviour" on release-after-call).
#include "checker/rules/mf001_release_after_use.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace memfloor::checker {
namespace {

// A belief is about a field (field set) or about every object of a type (field empty).
using Key = std::pair<std::string, std::string>;  // (field, method)

struct Tally {
  std::vector<const CallSite*> released;
  int total = 0;
};

// The object holding the field `handle` names: `self` of `self.m`, `chain` of `chain.node` or
// `chain->node`; "this" for a C++ member named alone (`m_`); empty for a Python bare name.
std::string ownerOf(const std::string& handle, bool python) {
  const std::size_t dot = handle.rfind('.');
  const std::size_t arrow = python ? std::string::npos : handle.rfind("->");
  if (dot == std::string::npos && arrow == std::string::npos) return python ? "" : "this";
  return handle.substr(
      0, arrow != std::string::npos && (dot == std::string::npos || arrow > dot) ? arrow : dot);
}

// A call of the owner's method that releases the field (`self.drop()`): written for this site's
// owner only where the site's field is the teacher's (the owner is of the class with that
// method); elsewhere there is no statement.
std::string ownerCall(const CallSite& site, const CallSite* teacher, const std::string& method) {
  const bool python = isPythonSource(site.loc.file);
  const std::string owner = ownerOf(site.handle, python);
  if (owner.empty() || teacher == nullptr || site.field.empty() || teacher->field != site.field) {
    return "";
  }
  if (python) return owner + "." + method + "()";
  return owner == "this" ? method + "();"
                         : owner + (site.handle_is_pointer ? "->" : ".") + method + "();";
}

// The same in Python: `h = None`, `del h`, `h.clear()`, `h.method()`.
std::string pythonReleaseStatement(const CallSite& site, const Program::Release& belief) {
  const std::string& h = site.handle;
  if (belief.idiom == "call") return h + "." + belief.method + "()";
  if (belief.idiom == "del") return "del " + h;
  if (belief.idiom == ".clear()") return h + ".clear()";
  return h + " = None";
}

// The statement that releases `site`'s handle the way `belief` (`teacher`'s release) released its
// own, in the language of the site's file; empty when there is none to write.
std::string releaseStatement(const CallSite& site, const CallSite* teacher,
                             const Program::Release& belief) {
  if (belief.idiom == "call" && belief.on_owner) return ownerCall(site, teacher, belief.method);
  // A `with` block's release is its `__exit__`, which takes the exception's three values: no
  // statement of the code base's own releases that way.
  if (belief.idiom == "call" && belief.method.starts_with("__")) return "";
  if (isPythonSource(site.loc.file)) return pythonReleaseStatement(site, belief);
  const std::string& h = site.handle;
  if (belief.idiom == "call")
    return h + (site.handle_is_pointer ? "->" : ".") + belief.method + "();";
  if (belief.idiom == ".reset()" || belief.idiom == ".clear()") return h + belief.idiom + ";";
  if (belief.idiom == "= nullptr" || (belief.idiom != "= {}" && site.handle_is_pointer)) {
    return h + " = nullptr;";
  }
  return h + " = {};";
}

// A Python site on a bare name: a local, a parameter or a loop variable, not an attribute.
bool isBareName(const CallSite& site) {
  return isPythonSource(site.loc.file) && site.field.empty() &&
         site.handle.find('.') == std::string::npos;
}

// The release acts on the object, not on one name of it.
bool releasesObject(const Program::Release& release) {
  return (release.idiom == "call" && !release.on_owner) || release.idiom == ".clear()" ||
         release.idiom.ends_with(".resize_(0)");
}

// In Python a fix-it is offered only in the code base's own release form for that object: the
// teacher's release of the same field, or a call of a method that drops the object's state. A
// type's belief released by `= None` or `.clear()` (another object's field, maybe kept on
// purpose) is said in words.
bool safeFix(const CallSite& site, const CallSite* teacher, const Program::Release& release) {
  if (!isPythonSource(site.loc.file) || teacher == nullptr) return true;
  return release.idiom == "call" || (!site.field.empty() && teacher->field == site.field);
}

// The dereferences of the site's field that check nothing for None (the site's own receiver
// included, when no guard is around it): after the release each would fail on a path that does
// not assign the field first (MF004). Python only: there the release would be an edit of its own.
std::vector<const DerefSite*> unguardedUses(const Program& program, const CallSite& site) {
  std::vector<const DerefSite*> uses;
  if (!isPythonSource(site.loc.file) || site.field.empty()) return uses;
  for (const DerefSite& d : program.facts().derefs) {
    if (d.field == site.field && !program.setupOnly(d.function) && !program.guarded(d.guarded)) {
      uses.push_back(&d);
    }
  }
  return uses;
}

// The use is the site's own statement (a Python statement on one line, guard_at).
bool atSite(const DerefSite& use, const CallSite& site) {
  return use.loc.file == site.loc.file && use.loc.line == site.loc.line;
}

// Where `use` is, for a message: "this use", "line N" in the site's file, or "FILE:N" (the file's
// name only: the note on the use carries its whole location, written relative to --root).
std::string useWhere(const DerefSite& use, const CallSite& site) {
  if (atSite(use, site)) return "this use";
  const std::string line = std::to_string(use.loc.line);
  if (use.loc.file == site.loc.file) return "its use at line " + line;
  return "its use at " + std::filesystem::path(use.loc.file).filename().string() + ":" + line;
}

// Another method of the site's own class releases the field in the teacher's form without making
// the site's call: a later stage of the same protocol (a `combine_postprocess` that takes the
// output the `combine` step left) does the release, so the site keeps the object by design.
bool releasedInLaterStage(const Program& program, const CallSite& site,
                          const Program::Release& release) {
  const std::string record = program.recordOf(site.function);
  if (site.field.empty() || record.empty()) return false;
  const auto sameClass = [&](const std::string& function) {
    return function != site.function && program.recordOf(function) == record &&
           !program.setupOnly(function);
  };
  // A helper its own class calls (`drop()` after the use) is part of a release, not a stage.
  const auto helper = [&](const std::string& function) {
    return std::any_of(program.facts().call_edges.begin(), program.facts().call_edges.end(),
                       [&](const CallEdge& e) { return e.on_this && e.callee == function; });
  };
  std::set<std::string> releasing;
  if (release.idiom == "call") {
    for (const CallSite& c : program.facts().calls) {
      if (c.field == site.field && c.method.ends_with("." + release.method) &&
          sameClass(c.function))
        releasing.insert(c.function);
    }
  } else {
    for (const FieldEvent& e : program.facts().events) {
      if (e.kind == EventKind::kRelease && e.field == site.field && e.idiom == release.idiom &&
          sameClass(e.function))
        releasing.insert(e.function);
    }
  }
  for (const CallSite& c : program.facts().calls) {
    if (c.field == site.field && c.method == site.method) releasing.erase(c.function);
  }
  return std::any_of(releasing.begin(), releasing.end(),
                     [&](const std::string& function) { return !helper(function); });
}

// A configured terminal method names the site's method: `m`, `R::m`, or Python's `R.m`.
bool matchesTerminal(const std::vector<std::string>& terminal, const CallSite& site) {
  const std::string_view m = site.method_display;
  return std::any_of(terminal.begin(), terminal.end(), [&](const std::string& t) {
    return m == t || m.ends_with("::" + t) || m.ends_with("." + t);
  });
}

// The fix of `site`'s finding `f`: a fix-it where it is safe as it is (the teacher's release after
// the statement; with a None check around it where the call is the field's only unchecked use),
// else what to do in words.
void addFix(const Program& program, const CallSite& site, const CallSite* teacher,
            const Program::Release& release, Finding& f) {
  const std::string statement = releaseStatement(site, teacher, release);
  const std::vector<const DerefSite*> unguarded = unguardedUses(program, site);
  const bool fixable =
      site.fix_after.valid() && !statement.empty() && safeFix(site, teacher, release);
  const bool only_here = std::all_of(unguarded.begin(), unguarded.end(),
                                     [&](const DerefSite* d) { return atSite(*d, site); });
  if (unguarded.empty()) {
    if (fixable) f.fixits.push_back({site.fix_after, 0, "\n" + site.fix_indent + statement});
  } else if (only_here && fixable && site.guard_at.valid()) {
    // The seed's own fix: the call is the field's only use with no None check, so the release
    // comes with that check around the call (as the teacher's `if h is not None:` does), one
    // edit of two insertions: `if h is not None:` before the statement, the release after it.
    const std::string body =
        site.fix_indent + (site.fix_indent.find('\t') == std::string::npos ? "    " : "\t");
    f.message += "; the fix-it checks it for None before this use";
    f.fixits.push_back({site.guard_at, 0, "if " + site.handle + " is not None:\n" + body});
    f.fixits.push_back({site.fix_after, 0, "\n" + body + statement});
  } else {
    // The release alone would leave a dereference that fails on None: say both in words.
    const DerefSite& use = **std::find_if(unguarded.begin(), unguarded.end(),
                                          [&](auto* d) { return only_here || !atSite(*d, site); });
    f.message += "; release it" + (statement.empty() ? "" : " ('" + statement + "')") + " once '" +
                 program.displayOf(use.function) + "' checks it for None before " +
                 useWhere(use, site);
    if (!atSite(use, site)) {
      f.related.push_back({use.loc, "'" + use.handle + "' is used here with no None check"});
    }
  }
}

}  // namespace

ReleaseAfterUseRule::ReleaseAfterUseRule(const Config& config)
    : min_sites_(config.mf001_min_belief_sites),
      min_ratio_(config.mf001_min_belief_ratio),
      terminal_methods_(config.terminal_methods) {}

const RuleInfo& ReleaseAfterUseRule::info() const {
  static const RuleInfo kInfo{"MF001", "release-after-use-deviance",
                              "An object is released after a call at other sites but kept after "
                              "the same call here."};
  return kInfo;
}

void ReleaseAfterUseRule::check(const Program& program, std::vector<Finding>& out) const {
  std::vector<std::pair<const CallSite*, bool>> sites;
  std::map<Key, Tally> tallies;
  for (const CallSite& c : program.facts().calls) {
    // Set-up code (a constructor, what only constructors call, `_init_*` in Python) builds the
    // object: what it calls and drops teaches nothing of the object's use, and is no site.
    if (program.setupOnly(c.function)) continue;
    const bool released = program.released(c.released);
    sites.emplace_back(&c, released);
    std::vector<Key> keys;
    // A Python call whose receiver's class the code does not show (`*.m`) has no type to key a
    // belief by: only its field's (docs/checker.md, "Receivers and their classes").
    if (!c.method.starts_with("*.")) keys.emplace_back("", c.method);
    if (!c.field.empty()) keys.emplace_back(c.field, c.method);
    for (const Key& key : keys) {
      Tally& t = tallies[key];
      ++t.total;
      if (released) t.released.push_back(&c);
    }
  }
  // The belief's first teaching site in another function than `site`'s. A function that releases
  // the object after one of its calls and keeps it after another (a size query in the test of the
  // branch that drops it) decides by its own control flow which paths release: that is no other
  // place's belief (PyTorch's FlatParamHandle.prepare_gradient, docs/checks/triage.md).
  const auto belief = [&](const Key& key, const CallSite& site) -> const CallSite* {
    auto it = tallies.find(key);
    if (it == tallies.end() || it->second.released.empty()) return nullptr;
    const Tally& t = it->second;
    const double ratio = static_cast<double>(t.released.size()) / t.total;
    if (static_cast<int>(t.released.size()) < min_sites_ || ratio < min_ratio_) return nullptr;
    // A name's site learns only from releases that act on the object (isBareName).
    const bool bare = isBareName(site);
    const auto other = std::find_if(t.released.begin(), t.released.end(), [&](const CallSite* c) {
      return c->function != site.function &&
             (!bare || releasesObject(program.releaseOf(c->released)));
    });
    return other == t.released.end() ? nullptr : *other;
  };
  for (const auto& [site, released] : sites) {
    if (released || !site->persistent || site->handle == "this" ||
        program.kindOf(site->function) == FunctionKind::kDestructor) {
      continue;
    }
    const CallSite* teacher =
        site->field.empty() ? nullptr : belief({site->field, site->method}, *site);
    if (teacher == nullptr && !site->method.starts_with("*.")) {
      teacher = belief({"", site->method}, *site);
    }
    const bool terminal = matchesTerminal(terminal_methods_, *site);
    if (teacher == nullptr && !terminal) continue;
    const Program::Release release =
        teacher ? program.releaseOf(teacher->released) : Program::Release{};
    // Kept by design until the class's next stage releases it.
    if (teacher != nullptr && releasedInLaterStage(program, *site, release)) continue;
    Finding f;
    f.rule = info().id;
    f.loc = site->loc;
    f.function = program.displayOf(site->function);
    f.field = site->handle;
    f.message = "'" + site->handle + "' keeps its device memory after '" + site->method_display +
                "' in '" + f.function + "': it is not released on every path to the exit";
    if (teacher != nullptr) {
      f.message +=
          ", while '" + program.displayOf(teacher->function) + "' releases it after the same call";
      f.related.push_back({teacher->loc, "'" + program.displayOf(teacher->function) + "' calls '" +
                                             teacher->method_display + "' on '" + teacher->handle +
                                             "'"});
      if (const SourceLoc at = program.releaseOf(teacher->released).loc; at.valid()) {
        f.related.push_back({at, "and releases '" + teacher->handle + "' here"});
      }
    } else {
      f.message += " ('" + site->method_display + "' is a configured terminal method)";
    }
    addFix(program, *site, teacher, release, f);
    out.push_back(std::move(f));
  }
}

}  // namespace memfloor::checker

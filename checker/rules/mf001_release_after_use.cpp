// MF001 release-after-use deviance (Engler's "bugs as deviant behaviour" on release-after-call).
#include "checker/rules/mf001_release_after_use.h"

#include <algorithm>
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

// The same in Python: `h = None`, `del h`, `h.clear()`, `h.method()`.
std::string pythonReleaseStatement(const CallSite& site, const Program::Release& belief) {
  const std::string& h = site.handle;
  if (belief.idiom == "call") return h + "." + belief.method + "()";
  if (belief.idiom == "del") return "del " + h;
  if (belief.idiom == ".clear()") return h + ".clear()";
  return h + " = None";
}

// The statement that releases `site`'s handle the way `belief` released its own, in the language
// of the site's file.
std::string releaseStatement(const CallSite& site, const Program::Release& belief) {
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
  return release.idiom == "call" || release.idiom == ".clear()" ||
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

// A dereference of the site's field that checks nothing for None (the site's own receiver
// included, when no guard is around it): after the release it would fail on a path that does not
// assign the field first (MF004). Python only: there the release would be an edit of its own.
const DerefSite* unguardedUse(const Program& program, const CallSite& site) {
  if (!isPythonSource(site.loc.file) || site.field.empty()) return nullptr;
  for (const DerefSite& d : program.facts().derefs) {
    if (d.field == site.field && !program.setupOnly(d.function) && !program.guarded(d.guarded)) {
      return &d;
    }
  }
  return nullptr;
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
    const std::string statement = releaseStatement(*site, release);
    const DerefSite* unguarded = unguardedUse(program, *site);
    if (unguarded != nullptr) {
      // The release alone would leave a dereference that fails on None: say both in words.
      f.message += "; release it ('" + statement + "') once '" +
                   program.displayOf(unguarded->function) +
                   "' checks it for None before its use at " + unguarded->loc.file + ":" +
                   std::to_string(unguarded->loc.line);
      if (unguarded->loc.file != site->loc.file || unguarded->loc.line != site->loc.line) {
        f.related.push_back(
            {unguarded->loc, "'" + unguarded->handle + "' is used here with no None check"});
      }
    } else if (site->fix_after.valid() && !statement.empty() && safeFix(*site, teacher, release)) {
      f.fixits.push_back({site->fix_after, 0, "\n" + site->fix_indent + statement});
    }
    out.push_back(std::move(f));
  }
}

}  // namespace memfloor::checker

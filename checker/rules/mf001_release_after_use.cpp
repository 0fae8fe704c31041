// MF001 release-after-use deviance (Engler's "bugs as deviant behaviour" on release-after-call).
#include "checker/rules/mf001_release_after_use.h"

#include <algorithm>
#include <map>

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
    const bool released = program.released(c.released);
    sites.emplace_back(&c, released);
    std::vector<Key> keys{Key{"", c.method}};
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
    const auto other = std::find_if(t.released.begin(), t.released.end(), [&](const CallSite* c) {
      return c->function != site.function;
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
    if (teacher == nullptr) teacher = belief({"", site->method}, *site);
    const bool terminal = matchesTerminal(terminal_methods_, *site);
    if (teacher == nullptr && !terminal) continue;
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
    const std::string statement = releaseStatement(
        *site, teacher ? program.releaseOf(teacher->released) : Program::Release{});
    if (site->fix_after.valid() && !statement.empty()) {
      f.fixits.push_back({site->fix_after, 0, "\n" + site->fix_indent + statement});
    }
    out.push_back(std::move(f));
  }
}

}  // namespace memfloor::checker

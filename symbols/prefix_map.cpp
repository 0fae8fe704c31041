// PrefixMap: parsing OLD=NEW rules and matching them by whole path components.
#include "symbols/prefix_map.h"

#include <fmt/format.h>

#include "common/error.h"

namespace memfloor::symbols {
namespace {

// "/a/b//" -> "/a/b"; "/" and "//" stay "/".
std::string_view withoutTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

// The rest of `path` after the leading components `prefix`, without its leading '/'s; false when
// `prefix` is not whole leading components of `path`.
bool afterPrefix(std::string_view path, std::string_view prefix, std::string_view& rest) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  rest = path.substr(prefix.size());
  if (!rest.empty() && rest.front() != '/' && prefix != "/") return false;
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  return true;
}

}  // namespace

std::string PrefixMap::checkRule(std::string_view rule) {
  size_t equals = rule.find('=');
  if (equals == std::string_view::npos) {
    return fmt::format("'{}': expected OLD=NEW (a path prefix, '=', what replaces it)", rule);
  }
  if (equals == 0) return fmt::format("'{}': OLD (before the '=') is empty", rule);
  return {};
}

void PrefixMap::add(std::string_view rule) {
  if (std::string error = checkRule(rule); !error.empty()) throw Error(error);
  size_t equals = rule.find('=');
  rules_.push_back({std::string(withoutTrailingSlashes(rule.substr(0, equals))),
                    std::string(rule.substr(equals + 1))});
}

std::string PrefixMap::apply(std::string_view path) const {
  for (const Rule& rule : rules_) {
    std::string_view rest;
    if (!afterPrefix(path, rule.from, rest)) continue;
    if (rule.to.empty()) return rest.empty() ? std::string(".") : std::string(rest);
    if (rest.empty()) return rule.to;
    return rule.to.back() == '/' ? fmt::format("{}{}", rule.to, rest)
                                 : fmt::format("{}/{}", rule.to, rest);
  }
  return std::string(path);
}

}  // namespace memfloor::symbols

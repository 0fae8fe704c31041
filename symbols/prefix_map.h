// PrefixMap: rewrites the leading components of paths, as GCC's -ffile-prefix-map=OLD=NEW does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace memfloor::symbols {

// Rules are tried in the order they were added; the first whose OLD matches rewrites the path.
// OLD matches whole leading components: "/work/main" matches "/work/main" and "/work/main/x", not
// "/work/mainline/x". A trailing '/' of OLD does not count ("/work/main/" is "/work/main").
// NEW replaces OLD; an empty NEW makes the rest relative ("/work/main/a/b.cpp" -> "a/b.cpp", and
// "/work/main" itself -> ".").
class PrefixMap {
 public:
  // Why `rule` is not OLD=NEW, "" when it is. OLD ends at the first '='; NEW may hold more.
  static std::string checkRule(std::string_view rule);

  // Adds a rule after the others. Throws memfloor::Error with checkRule's message when it is bad.
  void add(std::string_view rule);

  // `path` rewritten by the first rule that matches it; unchanged when none does.
  std::string apply(std::string_view path) const;

  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::string from;  // without a trailing '/', except the root "/" itself
    std::string to;
  };
  std::vector<Rule> rules_;
};

}  // namespace memfloor::symbols

// What memfloor says of a word where a command belongs and names none.
#include "cli/unknown_command.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace memfloor::cli {
namespace {

constexpr std::size_t kShortWord = 4;  // up to this long, one edit; longer, two

std::vector<std::string> subcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// "trace " before a word under `memfloor trace`; "" at the top.
std::string commandPath(const CLI::App& app) {
  return app.get_parent() == nullptr ? std::string()
                                     : commandPath(*app.get_parent()) + app.get_name() + " ";
}

}  // namespace

std::size_t editDistance(std::string_view a, std::string_view b) {
  // Three rows of the table: two back for a swap, the one before and the one being filled.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::string nearestName(std::string_view word, const std::vector<std::string>& names) {
  const std::size_t allowed = word.size() <= kShortWord ? 1 : 2;
  std::string nearest;
  std::size_t best = allowed + 1;
  bool tie = false;
  for (const std::string& name : names) {
    const std::size_t distance = editDistance(word, name);
    if (distance < best) {
      best = distance;
      nearest = name;
      tie = false;
    } else if (distance == best) {
      tie = true;
    }
  }
  return tie ? std::string() : nearest;
}

void checkCommandWords(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* at = &app;
  for (const std::string& word : args) {
    if (word.starts_with('-') || at->get_require_subcommand_min() == 0) return;
    const std::vector<std::string> names = subcommandNames(*at);
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      const std::string path = commandPath(*at);
      const std::string nearest = nearestName(word, names);
      throw Error(nearest.empty()
                      ? fmt::format("unknown command '{}{}' (commands: {}; see memfloor {}--help)",
                                    path, word, fmt::join(names, ", "), path)
                      : fmt::format("unknown command '{}{}'; did you mean '{}{}'?", path, word,
                                    path, nearest));
    }
    at = at->get_subcommand(word);
  }
}

}  // namespace memfloor::cli

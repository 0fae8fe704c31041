// A rank from a file's name.
#include "trace/rank_from_name.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "trace/records.h"

namespace memfloor::trace {

int32_t rankFromName(std::string_view name) {
  const size_t slash = name.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  int32_t rank = kUnknownRank;
  for (size_t i = 0; i + 4 <= base.size(); ++i) {
    const std::string_view word = base.substr(i, 4);
    if (!std::equal(word.begin(), word.end(), "rank", [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        })) {
      continue;
    }
    size_t at = i + 4;
    if (at < base.size() && (base[at] == '_' || base[at] == '-')) ++at;
    int32_t value = 0;
    const auto [end, error] = std::from_chars(base.data() + at, base.data() + base.size(), value);
    if (error == std::errc() && end != base.data() + at && value >= 0) rank = value;
  }
  return rank;
}

}  // namespace memfloor::trace

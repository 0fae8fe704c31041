// The layout of nlohmann's indented dump, written node by node.
#include "report/json_stream.h"

#include <string>

namespace memfloor::report {
namespace {

using nlohmann::json;

constexpr int kIndent = 2;

std::string scalarText(const json& j) {
  return j.dump(kIndent, ' ', false, json::error_handler_t::replace);
}

void newline(std::ostream& out, int depth) {
  out << '\n' << std::string(static_cast<size_t>(depth * kIndent), ' ');
}

// Writes `count` items between open and close, each on its own line at depth + 1; "[]" or "{}"
// when there are none.
template <typename Item>
void writeItems(std::ostream& out, char open, char close, size_t count, int depth, Item&& item) {
  out << open;
  if (count == 0) {
    out << close;
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out << ',';
    newline(out, depth + 1);
    item(i);
  }
  newline(out, depth);
  out << close;
}

// Writes j as dump(2) would at `depth`, with the serializer dump() itself uses (as nlohmann's
// operator<< does), told the indent it starts at.
void writeWhole(std::ostream& out, const json& j, int depth) {
  std::string text;
  nlohmann::detail::serializer<json> serializer(nlohmann::detail::output_adapter<char>(text), ' ',
                                                json::error_handler_t::replace);
  serializer.dump(j, true, false, kIndent, static_cast<unsigned>(depth * kIndent));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void write(std::ostream& out, const json& j, int depth, const StreamedArrays& streamed) {
  if (auto s = streamed.find(&j); s != streamed.end()) {
    // An element is built when it is written, so no placeholder lies inside it.
    const StreamedArray& array = s->second;
    writeItems(out, '[', ']', array.count, depth,
               [&](size_t i) { writeWhole(out, array.element(i), depth + 1); });
    return;
  }
  if (j.is_array()) {
    writeItems(out, '[', ']', j.size(), depth,
               [&](size_t i) { write(out, j[i], depth + 1, streamed); });
  } else if (j.is_object()) {
    auto it = j.begin();
    writeItems(out, '{', '}', j.size(), depth, [&](size_t) {
      out << scalarText(json(it.key())) << ": ";
      write(out, it.value(), depth + 1, streamed);
      ++it;
    });
  } else {
    out << scalarText(j);
  }
}

}  // namespace

void writeIndented(std::ostream& out, const json& doc, const StreamedArrays& streamed) {
  write(out, doc, 0, streamed);
}

}  // namespace memfloor::report

// The layout of nlohmann's indented dump, written node by node into a buffer that is handed to the
// stream in large pieces.
#include "report/json_stream.h"

#include <charconv>
#include <limits>
#include <string>
#include <string_view>

namespace memfloor::report {
namespace {

using nlohmann::json;

constexpr int kIndent = 2;
constexpr size_t kFlushAt = size_t{64} << 10;  // the buffer goes to the stream past 64 KiB
constexpr unsigned char kFirstPrintable = 0x20, kLastPrintable = 0x7e;  // ASCII's, space to tilde

// dump(2)'s text, appended to one buffer. Keys, integers, booleans, null and strings of printable
// ASCII (most of a report) are written here; the rest (floats, strings that need escapes or hold
// UTF-8) are dumped by nlohmann itself, so that its escapes and number format stay the only ones.
class Writer {
 public:
  Writer(std::ostream& out, const StreamedArrays& streamed) : out_(out), streamed_(streamed) {
    text_.reserve(kFlushAt + (kFlushAt >> 2));
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // j at `depth`; kDocument: j is a node of the document, which may be a placeholder.
  template <bool kDocument = true>
  void write(const json& j, int depth) {
    if (kDocument) {
      if (auto s = streamed_.find(&j); s != streamed_.end()) {
        // An element is built when it is written, so no placeholder lies inside it.
        const StreamedArray& array = s->second;
        writeItems('[', ']', array.count, depth,
                   [&](size_t i) { write<false>(array.element(i), depth + 1); });
        return;
      }
    }
    switch (j.type()) {
      case json::value_t::object: {
        auto it = j.begin();
        writeItems('{', '}', j.size(), depth, [&](size_t) {
          quoted(it.key(), [&] { return json(it.key()); });
          text_ += ": ";
          write<kDocument>(it.value(), depth + 1);
          ++it;
        });
        break;
      }
      case json::value_t::array:
        writeItems('[', ']', j.size(), depth, [&](size_t i) { write<kDocument>(j[i], depth + 1); });
        break;
      case json::value_t::string:
        quoted(j.get_ref<const std::string&>(), [&]() -> const json& { return j; });
        break;
      case json::value_t::number_unsigned:
        number(j.get<uint64_t>());
        break;
      case json::value_t::number_integer:
        number(j.get<int64_t>());
        break;
      case json::value_t::boolean:
        text_ += j.get<bool>() ? "true" : "false";
        break;
      case json::value_t::null:
        text_ += "null";
        break;
      default:  // floats, binary, discarded
        text_ += dumped(j);
        break;
    }
  }

  void flush() {
    out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }

 private:
  static std::string dumped(const json& j) {
    return j.dump(kIndent, ' ', false, json::error_handler_t::replace);
  }

  // Writes `count` items between open and close, each on its own line at depth + 1; "[]" or "{}"
  // when there are none.
  template <typename Item>
  void writeItems(char open, char close, size_t count, int depth, Item&& item) {
    text_ += open;
    if (count == 0) {
      text_ += close;
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) text_ += ',';
      newline(depth + 1);
      item(i);
      if (text_.size() >= kFlushAt) flush();
    }
    newline(depth);
    text_ += close;
  }

  void newline(int depth) {
    text_ += '\n';
    text_.append(static_cast<size_t>(depth * kIndent), ' ');
  }

  // s in quotes where no byte needs an escape; else nlohmann's text of the node `node()` gives.
  template <typename Node>
  void quoted(std::string_view s, Node&& node) {
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u < kFirstPrintable || u > kLastPrintable || c == '"' || c == '\\') {
        text_ += dumped(node());
        return;
      }
    }
    text_ += '"';
    text_ += s;
    text_ += '"';
  }

  template <typename Integer>
  void number(Integer n) {
    char digits[std::numeric_limits<Integer>::digits10 + 2];  // and a sign
    const auto [end, error] = std::to_chars(digits, digits + sizeof digits, n);
    text_.append(digits, end);
  }

  std::ostream& out_;
  const StreamedArrays& streamed_;
  std::string text_;
};

}  // namespace

void writeIndented(std::ostream& out, const json& doc, const StreamedArrays& streamed) {
  Writer writer(out, streamed);
  writer.write(doc, 0);
  writer.flush();
}

}  // namespace memfloor::report

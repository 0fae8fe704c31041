// The layout of nlohmann's indented dump, written value by value into a buffer that is handed to
// the stream in large pieces.
#include "report/json_stream.h"

#include <cassert>
#include <charconv>
#include <limits>

namespace memfloor::report {

using nlohmann::json;

namespace {

constexpr size_t kIndent = 2;
constexpr size_t kFlushAt = size_t{64} << 10;  // the buffer goes to the stream past 64 KiB
constexpr unsigned char kFirstPrintable = 0x20, kLastPrintable = 0x7e;  // ASCII's, space to tilde

std::string dumped(const json& j) {
  return j.dump(static_cast<int>(kIndent), ' ', false, json::error_handler_t::replace);
}

}  // namespace

JsonText::JsonText(std::ostream* out) : out_(out) {
  if (out_ != nullptr) text_.reserve(kFlushAt + (kFlushAt >> 2));
}

// s in quotes where no byte needs an escape; else nlohmann's text of it.
void JsonText::quoted(std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < kFirstPrintable || u > kLastPrintable || c == '"' || c == '\\') {
      text_ += dumped(json(s));
      return;
    }
  }
  text_ += '"';
  text_ += s;
  text_ += '"';
}

template <typename Integer>
void JsonText::number(Integer n) {
  char digits[std::numeric_limits<Integer>::digits10 + 2];  // and a sign
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, n);
  text_.append(digits, end);
}

void JsonText::item() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;  // the document itself
  Level& level = levels_.back();
  if (!level.empty) text_ += ',';
  level.empty = false;
  text_ += '\n';
  text_.append(levels_.size() * kIndent, ' ');
}

void JsonText::begin(char open) {
  item();
  text_ += open;
  levels_.push_back({open == '{' ? '}' : ']', true});
}

void JsonText::end() {
  assert(!levels_.empty() && "end() with no object or array open");
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty) {
    text_ += '\n';
    text_.append(levels_.size() * kIndent, ' ');
  }
  text_ += level.close;
  if (out_ != nullptr && text_.size() >= kFlushAt) flush();
}

void JsonText::key(std::string_view key) {
  assert(!levels_.empty() && levels_.back().close == '}' && "a key outside an object");
  item();
  quoted(key);
  text_ += ": ";
  after_key_ = true;
}

void JsonText::value(uint64_t n) {
  item();
  number(n);
}

void JsonText::value(std::string_view s) {
  item();
  quoted(s);
}

void JsonText::value(const json& j, const Replace& replace) {
  if (replace && replace(j)) return;
  switch (j.type()) {
    case json::value_t::object:
      beginObject();
      for (auto it = j.begin(); it != j.end(); ++it) {
        key(it.key());
        value(it.value(), replace);
      }
      end();
      break;
    case json::value_t::array:
      beginArray();
      for (const json& element : j) value(element, replace);
      end();
      break;
    case json::value_t::string:
      value(std::string_view(j.get_ref<const std::string&>()));
      break;
    case json::value_t::number_unsigned:
      value(j.get<uint64_t>());
      break;
    case json::value_t::number_integer:
      item();
      number(j.get<int64_t>());
      break;
    case json::value_t::boolean:
      item();
      text_ += j.get<bool>() ? "true" : "false";
      break;
    case json::value_t::null:
      item();
      text_ += "null";
      break;
    default:  // floats, binary, discarded
      item();
      text_ += dumped(j);
      break;
  }
}

void JsonText::flush() {
  if (out_ == nullptr) return;
  out_->write(text_.data(), static_cast<std::streamsize>(text_.size()));
  text_.clear();
}

void writeIndented(std::ostream& out, const json& doc, const StreamedArrays& streamed) {
  JsonText text(&out);
  // Each placeholder replaced by its streamed elements. An element is made when it is written, so
  // no placeholder lies inside it: elements are written without the lookup.
  text.value(doc, [&](const json& j) {
    const auto s = streamed.find(&j);
    if (s == streamed.end()) return false;
    text.beginArray();
    for (size_t i = 0; i < s->second.count; ++i) s->second.element(text, i);
    text.end();
    return true;
  });
  text.flush();
}

}  // namespace memfloor::report

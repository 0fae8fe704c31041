// Writes a JSON document in the layout of nlohmann's dump(2), with chosen arrays produced one
// element at a time: a large document is never whole in memory, neither as a DOM nor as text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memfloor::report {

// dump(2)'s text (dump(2, ' ', false, replace): invalid UTF-8 becomes U+FFFD), appended value by
// value to a buffer, which goes to `out` (where given) in pieces of about 64 KiB. An object's keys
// must come in ascending byte order, the order of nlohmann's objects (std::map); they are not
// checked. Keys, integers, booleans, null and strings of printable ASCII are written here; floats
// and strings that need escapes or hold UTF-8 are dumped by nlohmann, so that its escapes and
// number format stay the only ones.
class JsonText {
 public:
  explicit JsonText(std::ostream* out = nullptr);
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;

  void beginObject() { begin('{'); }
  void beginArray() { begin('['); }
  void end();                      // of the innermost object or array
  void key(std::string_view key);  // in an object, before its value
  void value(uint64_t n);
  void value(std::string_view s);
  // A whole DOM subtree. `replace`, where given, is asked about each node first: true where it
  // wrote the node itself.
  using Replace = std::function<bool(const nlohmann::json&)>;
  void value(const nlohmann::json& j, const Replace& replace = nullptr);

  const std::string& text() const { return text_; }  // without `out`: all of it
  void flush();                                      // to `out`

 private:
  void begin(char open);
  void item();  // before a value: after a key, nothing; else a comma where one came before, a
                // newline and the indent
  void quoted(std::string_view s);
  template <typename Integer>
  void number(Integer n);

  struct Level {
    char close;
    bool empty;
  };
  std::ostream* out_;
  std::string text_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

// Stands for an array of `count` elements, element(text, i) writing the i-th when it is written.
struct StreamedArray {
  size_t count = 0;
  std::function<void(JsonText&, size_t)> element;
};

// Keyed by the address of the placeholder node in the document (any value; it is not written).
using StreamedArrays = std::unordered_map<const nlohmann::json*, StreamedArray>;

// Writes doc as dump(2, ' ', false, replace) would, replacing each placeholder by its streamed
// array. No newline at the end.
void writeIndented(std::ostream& out, const nlohmann::json& doc, const StreamedArrays& streamed);

}  // namespace memfloor::report

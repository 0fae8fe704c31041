// The JSON input loader: read whole through InputFile (common/input_file.h), parse, check the
// schema.
#include "common/json_input.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <charconv>

#include "common/error.h"
#include "common/input_file.h"

namespace memfloor::common {

using nlohmann::json;

std::optional<SchemaName> parseSchemaName(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  std::string_view digits = name.substr(slash + 1);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  SchemaName out{name.substr(0, slash), 0};
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.major);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return out;
}

std::string readJsonFile(const std::string& path, std::string_view what) {
  std::string text = InputFile(path, what).readAll(kMaxJsonInputBytes);
  if (text.empty()) throw Error(fmt::format("{}: the {} is empty", path, what));
  return text;
}

namespace {

// Thrown past kMaxJsonDepth, before any value that deep is built.
struct TooDeep {};

// nlohmann's DOM builder with a depth limit: a value (or an object's key) inside kMaxJsonDepth
// open arrays and objects is refused. Not json::parse with a callback for the limit: that parser
// scans its parent's elements at the end of every object and array (to drop a discarded one), so
// an array of n objects costs n^2 (the Python front end's facts of a 5 MB program: a minute).
class DepthLimitedDom {
 public:
  explicit DepthLimitedDom(json& result) : dom_(result, /*allow_exceptions=*/true) {}

  // nlohmann's SAX interface, by its names.
  // NOLINTBEGIN(readability-identifier-naming)
  bool null() { return enter() && dom_.null(); }
  bool boolean(bool v) { return enter() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return enter() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return enter() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return enter() && dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return enter() && dom_.string(v); }
  bool binary(json::binary_t& v) { return enter() && dom_.binary(v); }
  bool key(json::string_t& v) { return enter() && dom_.key(v); }
  bool start_object(std::size_t n) { return open() && dom_.start_object(n); }
  bool end_object() { return close() && dom_.end_object(); }
  bool start_array(std::size_t n) { return open() && dom_.start_array(n); }
  bool end_array() { return close() && dom_.end_array(); }
  template <typename Exception>  // its own type, so that the parse_error thrown is one
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);
  }
  // NOLINTEND(readability-identifier-naming)

 private:
  // A key counts as a level below its object, as json::parse's callback depth counts it.
  bool enter() const {
    if (open_ >= kMaxJsonDepth) throw TooDeep{};
    return true;
  }
  bool open() { return enter() && ++open_ > 0; }
  bool close() { return --open_ >= 0; }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int open_ = 0;  // arrays and objects begun and not ended
};

// " and memfloor.report/2": the older majors a build reads, as its messages list them.
std::string olderMajors(const SchemaName& schema, int oldest) {
  std::string out;
  for (int major = schema.major - 1; oldest != 0 && major >= oldest; --major) {
    out += fmt::format(" and {}/{}", schema.family, major);
  }
  return out;
}

}  // namespace

namespace {

// A \uXXXX escape: its length, and the ranges of UTF-16's high and low surrogates.
constexpr size_t kEscapeLength = 6;
constexpr unsigned kHighFirst = 0xD800, kHighLast = 0xDBFF, kLowFirst = 0xDC00, kLowLast = 0xDFFF;

// The value of the escape's four hex digits at `p`, or nullopt.
std::optional<unsigned> hex4(std::string_view text, size_t p) {
  constexpr size_t kDigits = kEscapeLength - 2;
  if (p + kDigits > text.size()) return std::nullopt;
  unsigned value = 0;
  const char* end = text.data() + p + kDigits;
  const auto [stop, ec] = std::from_chars(text.data() + p, end, value, 16);
  if (ec != std::errc{} || stop != end) return std::nullopt;
  return value;
}

bool isHigh(std::optional<unsigned> u) { return u && *u >= kHighFirst && *u <= kHighLast; }
bool isLow(std::optional<unsigned> u) { return u && *u >= kLowFirst && *u <= kLowLast; }

}  // namespace

std::optional<std::string> replaceLoneSurrogates(std::string_view text) {
  std::optional<std::string> out;
  for (size_t at = text.find('\\'); at != std::string_view::npos; at = text.find('\\', at)) {
    if (at + 1 >= text.size() || text[at + 1] != 'u') {
      at += 2;  // an escape of one character: \\ \" \n ...
      continue;
    }
    const std::optional<unsigned> u = hex4(text, at + 2);
    const size_t next = at + kEscapeLength;
    if (isHigh(u) && text.substr(next, 2) == "\\u" && isLow(hex4(text, next + 2))) {
      at = next + kEscapeLength;  // a pair: one code point
      continue;
    }
    if (isHigh(u) || isLow(u)) {
      if (!out) out.emplace(text);
      out->replace(at, kEscapeLength, "\\ufffd");  // the same length: offsets stay right
    }
    at += kEscapeLength;
  }
  return out;
}

json parseJson(std::string_view text, std::string_view name, bool comments) {
  const std::optional<std::string> replaced = replaceLoneSurrogates(text);
  if (replaced) text = *replaced;
  try {
    json result;
    DepthLimitedDom dom(result);
    json::sax_parse(text.begin(), text.end(), &dom, json::input_format_t::json, /*strict=*/true,
                    comments);
    return result;
  } catch (const TooDeep&) {
    throw Error(fmt::format("{}: not a memfloor document: nested deeper than {} levels", name,
                            kMaxJsonDepth));
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string_view what = e.what();
    if (auto at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
    throw Error(fmt::format("{}: not JSON: {} (not a JSON document)", name, what));
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", name, e.what()));
  }
}

void checkSchema(const json& doc, const JsonSchema& schema, std::string_view name) {
  const std::optional<SchemaName> expected = parseSchemaName(schema.name);
  assert(expected && "a JsonSchema's name is <family>/<major>");
  if (!doc.is_object()) {
    throw Error(fmt::format("{}: not a {} (a JSON {}, not an object)", name, schema.document,
                            doc.type_name()));
  }
  auto it = doc.find("schema");
  if (it == doc.end() || !it->is_string()) {
    throw Error(
        fmt::format("{}: not a {} (no \"schema\": \"{}\")", name, schema.document, schema.name));
  }
  const std::string& found = it->get_ref<const std::string&>();
  const std::optional<SchemaName> parsed = parseSchemaName(found);
  if (!parsed || !expected || parsed->family != expected->family) {
    throw Error(fmt::format("{}: not a {} (schema \"{}\", expected \"{}\")", name, schema.document,
                            found, schema.name));
  }
  const bool older_read = schema.oldest_major != 0 && parsed->major >= schema.oldest_major &&
                          parsed->major < expected->major;
  if (parsed->major != expected->major && !older_read) {
    throw Error(fmt::format(
        "{}: schema \"{}\" is not supported: this memfloor reads {}{} ({})", name, found,
        schema.name, olderMajors(*expected, schema.oldest_major),
        parsed->major < expected->major ? schema.older : "written by a newer memfloor"));
  }
}

json parseJsonDocument(std::string_view text, const JsonSchema& schema, std::string_view name) {
  json doc = parseJson(text, name);
  checkSchema(doc, schema, name);
  return doc;
}

json loadJsonDocument(const std::string& path, const JsonSchema& schema, std::string_view what) {
  return parseJsonDocument(readJsonFile(path, what), schema, path);
}

}  // namespace memfloor::common

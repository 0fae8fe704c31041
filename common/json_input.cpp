// The JSON input loader: open and stat once (no race between the checks and the read), read whole,
// parse, check the schema.
#include "common/json_input.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/error.h"

namespace memfloor::common {
namespace {

using nlohmann::json;

// Closes the descriptor on every way out.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string tooLarge(const std::string& path, std::string_view what, uint64_t size) {
  return fmt::format("{}: the {} is too large: {} bytes, more than the {} bytes memfloor reads",
                     path, what, size, kMaxJsonInputBytes);
}

std::string_view fileType(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

}  // namespace

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
  // O_NONBLOCK: opening a pipe must not wait for a writer; regular files ignore it.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    throw Error(fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw Error(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(fmt::format("{}: cannot read the {}: {}, not a regular file", path, what,
                            fileType(st.st_mode)));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxJsonInputBytes) throw Error(tooLarge(path, what, size));

  // Read to the end rather than `size` bytes: the file may change under us; never past the limit.
  std::string text;
  text.resize(static_cast<size_t>(size) + 1);
  size_t filled = 0;
  for (;;) {
    if (filled == text.size()) {
      if (text.size() > kMaxJsonInputBytes) throw Error(tooLarge(path, what, text.size()));
      text.resize(std::min<size_t>(text.size() * 2, kMaxJsonInputBytes + 1));
    }
    ssize_t n = ::read(fd.get(), text.data() + filled, text.size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(errno)));
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  if (filled > kMaxJsonInputBytes) throw Error(tooLarge(path, what, filled));
  text.resize(filled);
  if (text.empty()) throw Error(fmt::format("{}: the {} is empty", path, what));
  return text;
}

namespace {

// Thrown by the parse callback past kMaxJsonDepth, before any value that deep is built.
struct TooDeep {};

}  // namespace

json parseJson(std::string_view text, std::string_view name, bool comments) {
  const json::parser_callback_t depth_limit = [](int depth, json::parse_event_t, json&) {
    if (depth >= kMaxJsonDepth) throw TooDeep{};  // depth counts the levels outside the value
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), depth_limit, /*allow_exceptions=*/true, comments);
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
  if (parsed->major != expected->major) {
    throw Error(fmt::format(
        "{}: schema \"{}\" is not supported: this memfloor reads {} ({})", name, found, schema.name,
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

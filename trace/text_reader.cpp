// TextReader: the text form back into records; every line checked, errors as "<name>:<line>: ...".
#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/text.h"
#include "trace/text_fields.h"
#include "trace/text_line.h"

namespace memfloor::trace {

struct TextReader::Impl final : TextLineContext {
  Impl(std::istream& stream, std::string source_name)
      : TextLineContext(std::move(source_name)), in(stream) {}

  bool readLine();  // parses the next record line into pending; false at the end of the input
  size_t lineNumber() const { return line_number_; }
  void parseRecord(std::string_view word, std::span<const TextToken> args);
  StringId inlineString(const std::string& text) override;
  uint32_t definitionId(std::span<const TextToken> args, std::string_view word) const;
  template <typename Enum>
  Enum positionalEnum(std::span<const TextToken> args, std::string_view word, uint8_t count) const;

  std::istream& in;
  std::string line;
  std::vector<TextToken> tokens;
  std::vector<Record> pending;  // a line's inline strings, then its record
  size_t pending_position = 0;
  StringId max_string_id = 0;  // the largest string id defined so far, explicitly or not
  std::unordered_map<std::string, StringId> inline_ids;
  std::unordered_map<StringId, size_t> inline_id_lines;  // automatic id -> line that assigned it
};

StringId TextReader::Impl::inlineString(const std::string& text) {
  if (const auto it = inline_ids.find(text); it != inline_ids.end()) return it->second;
  if (max_string_id == UINT32_MAX) fail("no string id left for an inline string");
  const StringId id = ++max_string_id;
  inline_ids.emplace(text, id);
  inline_id_lines.emplace(id, line_number_);
  pending.emplace_back(StringDef{id, text});
  return id;
}

// The id that starts a definition line (string, module, frame, stack): a non-zero u32.
uint32_t TextReader::Impl::definitionId(std::span<const TextToken> args,
                                        std::string_view word) const {
  uint64_t id = 0;
  if (args.empty() || !args[0].key.empty() || args[0].quoted || !parseUnsigned(args[0].value, id) ||
      id > UINT32_MAX) {
    fail(fmt::format("{} needs its id first (a number up to {})", word, UINT32_MAX));
  }
  if (id == kNoId) fail(fmt::format("{} id must be non-zero", word));
  return static_cast<uint32_t>(id);
}

template <typename Enum>
Enum TextReader::Impl::positionalEnum(std::span<const TextToken> args, std::string_view word,
                                      uint8_t count) const {
  Enum value{};
  if (args.empty() || !args[0].key.empty() || args[0].quoted ||
      !parseEnum(args[0].value, count, value)) {
    fail(fmt::format("{} needs its type first: {}", word, enumNames<Enum>(count)));
  }
  return value;
}

// One case per record keyword, each a few lines: a table, not a function to split.
// NOLINTNEXTLINE(readability-function-size)
void TextReader::Impl::parseRecord(std::string_view word, std::span<const TextToken> args) {
  auto fields = [&](size_t positional) {
    return TextFields(*this, word, args.subspan(positional));
  };
  auto memoryEvent = [&](MemoryEvent& e) {
    TextFields f = fields(0);
    f.u64("t", e.timestamp);
    f.memoryKind(e.kind);
    f.u32("dev", e.device);
    f.u32("stream", e.stream);
    f.u64("addr", e.address);
    f.u64("size", e.size);
    f.u64("thread", e.thread);
    f.u32("stack", e.stack);
    f.u64("corr", e.correlation);
    f.flags(e.flags);
    f.done();
  };
  Record record;
  if (word == "alloc") {
    memoryEvent(record.emplace<Alloc>());
  } else if (word == "free") {
    memoryEvent(record.emplace<Free>());
  } else if (word == "marker") {
    auto& m = record.emplace<Marker>();
    m.type = positionalEnum<MarkerType>(args, word, kMarkerTypeCount);
    TextFields f = fields(1);
    f.u64("t", m.timestamp);
    f.u64("thread", m.thread);
    f.u64("id", m.id);
    f.stringId("name", m.name);
    f.stringId("domain", m.domain);
    f.done();
  } else if (word == "pool") {
    auto& p = record.emplace<PoolEvent>();
    p.type = positionalEnum<PoolEventType>(args, word, kPoolEventTypeCount);
    TextFields f = fields(1);
    f.u64("t", p.timestamp);
    f.u32("dev", p.device);
    f.u64("addr", p.address);
    f.u64("size", p.size);
    f.u64("utilized", p.utilized);
    f.u8("pool_type", p.pool_type);
    f.done();
  } else if (word == "census") {
    auto& c = record.emplace<Census>();
    TextFields f = fields(0);
    f.u64("t", c.timestamp);
    f.u32("dev", c.device);
    f.u64("objects", c.objects);
    f.u64("duration", c.duration_ns);
    f.u64("storages", c.storages);
    f.u32("step", c.step);
    f.boolean("complete", c.complete);
    f.done();
  } else if (word == "held") {
    auto& h = record.emplace<Held>();
    TextFields f = fields(0);
    f.u64("t", h.timestamp);
    f.u32("dev", h.device);
    f.u64("addr", h.address);
    f.u64("size", h.size);
    f.stringId("path", h.path);
    f.stringId("via", h.via);
    f.u32("holders", h.holders);
    f.heldRole(h.role);
    f.done();
  } else if (word == "step") {
    auto& s = record.emplace<Step>();
    s.phase = positionalEnum<StepPhase>(args, word, kStepPhaseCount);
    TextFields f = fields(1);
    f.u64("t", s.timestamp);
    f.u32("step", s.step);
    f.u64("thread", s.thread);
    f.u32("optimizers", s.optimizer_steps);
    f.done();
  } else if (word == "string") {
    const StringId id = definitionId(args, word);
    if (args.size() != 2 || !args[1].key.empty() || !args[1].quoted) {
      fail("expected: string ID \"TEXT\"");
    }
    if (const auto it = inline_id_lines.find(id); it != inline_id_lines.end()) {
      fail(
          fmt::format("string id {} was already given to an inline string on line {}; define "
                      "explicit strings before inline ones",
                      id, it->second));
    }
    max_string_id = std::max(max_string_id, id);
    record = StringDef{id, args[1].text};
  } else if (word == "module") {
    auto& m = record.emplace<ModuleDef>();
    m.id = definitionId(args, word);
    TextFields f = fields(1);
    f.stringId("path", m.path);
    f.u64("base", m.base);
    f.u64("size", m.size);
    f.stringId("build_id", m.build_id);
    f.done();
  } else if (word == "frame") {
    auto& fr = record.emplace<FrameDef>();
    fr.id = definitionId(args, word);
    TextFields f = fields(1);
    f.frameKind(fr.kind);
    f.u32("module", fr.module);
    f.u64("offset", fr.offset);
    f.stringId("function", fr.function);
    f.stringId("file", fr.file);
    f.u32("line", fr.line);
    f.done();
  } else if (word == "stack") {
    auto& s = record.emplace<StackDef>();
    s.id = definitionId(args, word);
    TextFields f = fields(1);
    f.frames(s.frames);
    f.done();
  } else if (word == "process") {
    auto& p = record.emplace<ProcessInfo>();
    TextFields f = fields(0);
    f.u64("pid", p.pid);
    f.u64("start", p.start_unix_ns);
    f.stringId("host", p.host);
    f.stringId("cmd", p.command_line);
    f.s32("rank", p.rank);
    f.s32("local_rank", p.local_rank);
    f.s32("world_size", p.world_size);
    f.done();
  } else if (word == "device") {
    auto& d = record.emplace<DeviceInfo>();
    TextFields f = fields(0);
    f.u32("dev", d.device);
    f.stringId("name", d.name);
    f.u64("memory", d.total_memory);
    f.done();
  } else if (word == "property") {
    auto& p = record.emplace<Property>();
    TextFields f = fields(0);
    f.stringId("key", p.key);
    f.stringId("value", p.value);
    f.done();
  } else if (word == "dropped") {
    auto& d = record.emplace<Dropped>();
    d.source = positionalEnum<DropSource>(args, word, kDropSourceCount);
    TextFields f = fields(1);
    f.u64("count", d.count);
    f.done();
  } else if (word == "trailer") {
    auto& t = record.emplace<Trailer>();
    TextFields f = fields(0);
    f.u64("records", t.record_count);
    f.u64("end", t.end_timestamp);
    f.done();
  } else {
    fail(fmt::format("unknown record type '{}'", word));
  }
  pending.push_back(std::move(record));
}

bool TextReader::Impl::readLine() {
  pending.clear();
  pending_position = 0;
  while (pending.empty()) {
    if (!std::getline(in, line)) return false;
    ++line_number_;
    const std::string problem = splitTextLine(line, tokens);
    if (!problem.empty()) fail(problem);
    if (tokens.empty()) continue;
    if (!tokens[0].key.empty() || tokens[0].quoted) fail("a line starts with a record type");
    parseRecord(tokens[0].value, std::span<const TextToken>(tokens).subspan(1));
  }
  return true;
}

TextReader::TextReader(std::istream& in, std::string name)
    : impl_(std::make_unique<Impl>(in, std::move(name))) {}
TextReader::~TextReader() = default;

bool TextReader::next(Record& out) {
  Impl& s = *impl_;
  if (s.pending_position == s.pending.size() && !s.readLine()) return false;
  out = std::move(s.pending[s.pending_position++]);
  return true;
}

size_t TextReader::line() const { return impl_->lineNumber(); }

}  // namespace memfloor::trace

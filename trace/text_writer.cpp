// writeText: one record as one line in the canonical text form (docs/trace-format.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <ostream>

#include "trace/text.h"

namespace memfloor::trace {

namespace {

using Out = fmt::memory_buffer;

void appendEscaped(Out& out, std::string_view text) {
  auto it = std::back_inserter(out);
  *it++ = '"';
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\\':
        fmt::format_to(it, "\\\\");
        break;
      case '"':
        fmt::format_to(it, "\\\"");
        break;
      case '\n':
        fmt::format_to(it, "\\n");
        break;
      case '\t':
        fmt::format_to(it, "\\t");
        break;
      case '\r':
        fmt::format_to(it, "\\r");
        break;
      case '\0':
        fmt::format_to(it, "\\0");
        break;
      default:
        if (byte < 0x20 || byte >= 0x7f) {
          fmt::format_to(it, "\\x{:02x}", byte);
        } else {
          *it++ = ch;
        }
    }
  }
  *it++ = '"';
}

// " key=value" when value differs from its default.
template <typename T>
void optional(Out& out, std::string_view key, T value, T default_value = T{}) {
  if (value != default_value) fmt::format_to(std::back_inserter(out), " {}={}", key, value);
}

void appendFlags(Out& out, uint8_t flags) {
  if (flags == 0) return;
  auto it = std::back_inserter(out);
  fmt::format_to(it, " flags=");
  const char* separator = "";
  if (flags & kMemoryFlagAsync) {
    fmt::format_to(it, "async");
    separator = "|";
  }
  if (flags & kMemoryFlagVmm) {
    fmt::format_to(it, "{}vmm", separator);
    separator = "|";
  }
  const unsigned rest = flags & ~unsigned{kMemoryFlagAsync | kMemoryFlagVmm};
  if (rest != 0) fmt::format_to(it, "{}{:#x}", separator, rest);
}

void appendMemoryEvent(Out& out, std::string_view word, const MemoryEvent& e) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{} t={} kind={} dev={}", word, e.timestamp, toString(e.kind), e.device);
  optional(out, "stream", e.stream);
  fmt::format_to(it, " addr={:#x} size={}", e.address, e.size);
  optional(out, "thread", e.thread);
  optional(out, "stack", e.stack);
  optional(out, "corr", e.correlation);
  appendFlags(out, e.flags);
}

struct LineWriter {
  Out& out;

  void operator()(const StringDef& s) {
    fmt::format_to(std::back_inserter(out), "string {} ", s.id);
    appendEscaped(out, s.text);
  }
  void operator()(const ModuleDef& m) {
    fmt::format_to(std::back_inserter(out), "module {} path={} base={:#x} size={}", m.id, m.path,
                   m.base, m.size);
    optional(out, "build_id", m.build_id);
  }
  void operator()(const FrameDef& f) {
    fmt::format_to(std::back_inserter(out), "frame {}", f.id);
    if (f.kind != FrameKind::kNative)
      fmt::format_to(std::back_inserter(out), " kind={}", toString(f.kind));
    fmt::format_to(std::back_inserter(out), " module={} offset={:#x}", f.module, f.offset);
    optional(out, "function", f.function);
    optional(out, "file", f.file);
    optional(out, "line", f.line);
  }
  void operator()(const StackDef& s) {
    fmt::format_to(std::back_inserter(out), "stack {} frames={}", s.id, fmt::join(s.frames, ","));
  }
  void operator()(const ProcessInfo& p) {
    fmt::format_to(std::back_inserter(out), "process pid={}", p.pid);
    optional(out, "start", p.start_unix_ns);
    optional(out, "host", p.host);
    optional(out, "cmd", p.command_line);
    optional(out, "rank", p.rank, kUnknownRank);
    optional(out, "local_rank", p.local_rank, kUnknownRank);
    optional(out, "world_size", p.world_size, kUnknownRank);
  }
  void operator()(const DeviceInfo& d) {
    fmt::format_to(std::back_inserter(out), "device dev={}", d.device);
    optional(out, "name", d.name);
    optional(out, "memory", d.total_memory);
  }
  void operator()(const Property& p) {
    fmt::format_to(std::back_inserter(out), "property key={} value={}", p.key, p.value);
  }
  void operator()(const Alloc& a) { appendMemoryEvent(out, "alloc", a); }
  void operator()(const Free& f) { appendMemoryEvent(out, "free", f); }
  void operator()(const PoolEvent& p) {
    fmt::format_to(std::back_inserter(out), "pool {} t={} dev={} addr={:#x} size={}",
                   toString(p.type), p.timestamp, p.device, p.address, p.size);
    optional(out, "utilized", p.utilized);
    optional(out, "pool_type", unsigned{p.pool_type});
  }
  void operator()(const Marker& m) {
    fmt::format_to(std::back_inserter(out), "marker {} t={} thread={}", toString(m.type),
                   m.timestamp, m.thread);
    optional(out, "id", m.id);
    optional(out, "name", m.name);
    optional(out, "domain", m.domain);
  }
  void operator()(const Census& c) {
    fmt::format_to(std::back_inserter(out), "census t={} dev={} objects={} duration={} storages={}",
                   c.timestamp, c.device, c.objects, c.duration_ns, c.storages);
    optional(out, "step", c.step);
    if (!c.complete) fmt::format_to(std::back_inserter(out), " complete=0");
  }
  void operator()(const Held& h) {
    fmt::format_to(std::back_inserter(out), "held t={} dev={} addr={:#x} size={} path={}",
                   h.timestamp, h.device, h.address, h.size, h.path);
    optional(out, "via", h.via);
    optional(out, "holders", h.holders, 1u);
    if (h.role != HeldRole::kOther)
      fmt::format_to(std::back_inserter(out), " role={}", toString(h.role));
  }
  void operator()(const Step& s) {
    fmt::format_to(std::back_inserter(out), "step {} t={} step={}", toString(s.phase), s.timestamp,
                   s.step);
    optional(out, "thread", s.thread);
    optional(out, "optimizers", s.optimizer_steps);
  }
  void operator()(const Dropped& d) {
    fmt::format_to(std::back_inserter(out), "dropped {} count={}", toString(d.source), d.count);
  }
  void operator()(const Trailer& t) {
    fmt::format_to(std::back_inserter(out), "trailer records={} end={}", t.record_count,
                   t.end_timestamp);
  }
};

}  // namespace

void writeText(std::ostream& out, const Record& record) {
  Out line;
  std::visit(LineWriter{line}, record);
  line.push_back('\n');
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
}

}  // namespace memfloor::trace

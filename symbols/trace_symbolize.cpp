// Symbolizing a trace file: one pass to collect definitions and resolve, one to rewrite.
#include "symbols/trace_symbolize.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "common/error.h"
#include "trace/reader.h"

namespace memfloor::symbols {
namespace {

class Rewriter {
 public:
  Rewriter(trace::Writer& out, const Symbols& symbols, const PrefixMap& paths,
           const std::unordered_set<trace::StringId>& path_ids, trace::StringId next_string,
           trace::FrameId next_frame, int64_t trailer_surplus)
      : out_(out),
        symbols_(symbols),
        paths_(paths),
        path_ids_(path_ids),
        next_string_(next_string),
        next_frame_(next_frame),
        trailer_surplus_(trailer_surplus) {}

  void write(const trace::Record& record) {
    if (const auto* string = std::get_if<trace::StringDef>(&record);
        string != nullptr && path_ids_.count(string->id) != 0) {
      return check(out_.writeString(string->id, rewritePath(string->text)));
    }
    if (const auto* frame = std::get_if<trace::FrameDef>(&record)) return writeFrame(*frame);
    if (const auto* stack = std::get_if<trace::StackDef>(&record)) return writeStack(*stack);
    if (const auto* trailer = std::get_if<trace::Trailer>(&record)) {
      // The trailer stands alone in the last chunk, as a writer closing cleanly leaves it. It
      // counts the copy's records, and as many more or fewer as the input's trailer miscounted:
      // a damaged input stays visibly damaged.
      const int64_t count = static_cast<int64_t>(out_.recordCount()) + trailer_surplus_;
      trace::Trailer copy = *trailer;
      copy.record_count = static_cast<uint64_t>(std::max<int64_t>(count, 0));
      check(out_.flush() && out_.write(copy) && out_.flush());
      return;
    }
    check(out_.write(record));
  }

  size_t resolved() const { return expanded_.size(); }
  size_t rewritten() const { return rewritten_; }

 private:
  static void check(bool ok) {
    if (!ok) throw Error("writing the symbolized trace failed");
  }

  trace::StringId intern(const std::string& text) {
    if (text.empty()) return trace::kNoId;
    auto [it, inserted] = strings_.try_emplace(text, next_string_);
    if (inserted) check(out_.writeString(next_string_++, text));
    return it->second;
  }

  // A module path or frame file string of the input, rewritten.
  std::string rewritePath(const std::string& path) {
    std::string out = paths_.apply(path);
    if (out != path) ++rewritten_;
    return out;
  }

  // A path the resolver found, rewritten and interned.
  trace::StringId internPath(const std::string& path) {
    std::string out = paths_.apply(path);
    if (out != path && strings_.count(out) == 0) ++rewritten_;
    return intern(out);
  }

  void writeFrame(const trace::FrameDef& def) {
    const std::vector<Frame>* chain = symbols_.resolved(def.id);
    if (chain == nullptr || def.function != trace::kNoId) return check(out_.write(def));
    std::vector<trace::FrameId>& ids = expanded_[def.id];
    for (size_t i = 0; i < chain->size(); ++i) {
      trace::FrameDef f = def;
      f.id = i == 0 ? def.id : next_frame_++;
      f.function = intern((*chain)[i].function);
      f.file = internPath((*chain)[i].file);
      f.line = (*chain)[i].line;
      check(out_.write(f));
      ids.push_back(f.id);
    }
  }

  void writeStack(const trace::StackDef& def) {
    trace::StackDef out = def;
    out.frames.clear();
    for (trace::FrameId f : def.frames) {
      auto it = expanded_.find(f);
      if (it == expanded_.end()) {
        out.frames.push_back(f);
      } else {
        out.frames.insert(out.frames.end(), it->second.begin(), it->second.end());
      }
    }
    check(out_.write(out));
  }

  trace::Writer& out_;
  const Symbols& symbols_;
  const PrefixMap& paths_;
  const std::unordered_set<trace::StringId>& path_ids_;  // module paths and frame files of `in`
  trace::StringId next_string_;
  trace::FrameId next_frame_;
  int64_t trailer_surplus_;  // the input's TraceEnd::trailer_surplus
  std::unordered_map<std::string, trace::StringId> strings_;
  std::unordered_map<trace::FrameId, std::vector<trace::FrameId>> expanded_;
  size_t rewritten_ = 0;
};

}  // namespace

SymbolizeStats symbolizeTrace(const trace::Source& in, trace::Writer& out, FrameResolver& resolver,
                              const PrefixMap& paths) {
  Symbols symbols;
  std::unordered_set<trace::StringId> path_ids;
  SymbolizeStats stats;
  trace::StringId max_string = 0;
  trace::FrameId max_frame = 0;
  int64_t trailer_surplus = 0;
  {
    trace::FileOrderReader reader(in);
    trace::Record record;
    while (reader.next(record)) {
      std::visit(
          [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, trace::StringDef>) {
              max_string = std::max(max_string, r.id);
              symbols.add(r);
            } else if constexpr (std::is_same_v<T, trace::FrameDef>) {
              max_frame = std::max(max_frame, r.id);
              if (r.file != trace::kNoId) path_ids.insert(r.file);
              if (r.kind == trace::FrameKind::kNative && r.function == trace::kNoId) ++stats.frames;
              symbols.add(r);
            } else if constexpr (std::is_same_v<T, trace::ModuleDef>) {
              if (r.path != trace::kNoId) path_ids.insert(r.path);
              symbols.add(r);
            } else if constexpr (std::is_same_v<T, trace::StackDef>) {
              symbols.add(r);
            }
          },
          record);
    }
    trailer_surplus = reader.end().trailer_surplus;
  }
  symbols.resolve(resolver);

  Rewriter rewriter(out, symbols, paths, path_ids, max_string + 1, max_frame + 1, trailer_surplus);
  trace::FileOrderReader reader(in);
  trace::Record record;
  while (reader.next(record)) rewriter.write(record);
  if (!out.flush()) throw Error("writing the symbolized trace failed");
  stats.resolved = rewriter.resolved();
  stats.rewritten = rewriter.rewritten();
  stats.end = reader.end();
  return stats;
}

}  // namespace memfloor::symbols

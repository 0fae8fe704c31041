// Symbolizing a trace file: the same records with native frames resolved, for traces that must be
// read where the traced binaries are not (shipped test data, CI artefacts).
#pragma once

#include <cstddef>

#include "symbols/prefix_map.h"
#include "symbols/symbols.h"
#include "trace/reader.h"
#include "trace/source.h"
#include "trace/writer.h"

namespace memfloor::symbols {

struct SymbolizeStats {
  size_t frames = 0;     // native frame definitions without a function
  size_t resolved = 0;   // of those, resolved
  size_t rewritten = 0;  // module and frame file paths that `paths` changed
  trace::TraceEnd end;   // how the input ended: a truncated or corrupt one is copied up to there
};

// Copies every record of `in` to `out` in file order; a frame that `resolver` resolves gets its
// function, file and line, and each inlined frame around it becomes a new frame definition that
// the stacks list after it (innermost first). Strings and frames get ids above the trace's own.
// Module paths and frame files (resolved here or before) are rewritten by `paths`: the string of a
// module path or frame file is written rewritten, so another record that uses the same string
// (interned: the same text) reads the new text too. Throws memfloor::Error when `in` cannot be
// read or `out` fails; what `resolver` throws passes through, before any record is written.
SymbolizeStats symbolizeTrace(const trace::Source& in, trace::Writer& out, FrameResolver& resolver,
                              const PrefixMap& paths = {});

}  // namespace memfloor::symbols

// Symbolizing a trace file: the same records with native frames resolved, for traces that must be
// read where the traced binaries are not (shipped test data, CI artefacts).
#pragma once

#include <cstddef>

#include "symbols/symbols.h"
#include "trace/source.h"
#include "trace/writer.h"

namespace memfloor::symbols {

struct SymbolizeStats {
  size_t frames = 0;    // native frame definitions without a function
  size_t resolved = 0;  // of those, resolved
};

// Copies every record of `in` to `out` in file order; a frame that `resolver` resolves gets its
// function, file and line, and each inlined frame around it becomes a new frame definition that
// the stacks list after it (innermost first). Strings and frames get ids above the trace's own.
// Throws memfloor::Error when `in` cannot be read or `out` fails.
SymbolizeStats symbolizeTrace(const trace::Source& in, trace::Writer& out, FrameResolver& resolver);

}  // namespace memfloor::symbols

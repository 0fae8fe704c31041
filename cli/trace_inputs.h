// What memfloor analyze is given, recognised by content: a directory of PyTorch memory snapshots
// (one per rank) as well as one of traces, and memfloor's own documents (a report, findings, a
// gate result) named where a trace belongs, which are told apart from traces and snapshots by
// their "schema" member and answered with the command that reads them.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"

namespace memfloor::cli {

// `paths` with each directory that holds no *.mftrace file replaced by its regular files that are
// traces or PyTorch memory snapshots by their first bytes (a binary trace's magic, a pickle's
// protocol), whatever their names, sorted; everything else as given, for
// analysis::expandTracePaths. Throws memfloor::Error naming a directory that holds neither.
std::vector<std::string> expandSnapshotDirectories(const std::vector<std::string>& paths);

// When the file at `path` is a JSON document of memfloor's (its "schema" is memfloor.report/N,
// memfloor.findings/N, memfloor.gate/N, ...): "<path>: a memfloor report (memfloor.report/3), not
// a trace or a memory snapshot: ..." with the command that reads it; else "".
std::string memfloorDocumentMessage(const std::string& path);

// Called while memfloor::Error `e` is handled: when `e` is about one of `paths` (its message
// starts with "<path>:") and that file is a memfloor document, throws memfloorDocumentMessage(path)
// instead; else rethrows `e`.
[[noreturn]] void rethrowNamingDocument(const Error& e, const std::vector<std::string>& paths);

}  // namespace memfloor::cli

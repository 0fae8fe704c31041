// memfloor's own documents (a report, findings, a gate result) named where analyze expects a
// trace: told apart from traces and snapshots by their "schema" member, and answered with the
// command that reads them. (A directory of snapshots is analysis::expandTracePaths's.)
#pragma once

#include <string>
#include <vector>

#include "common/error.h"

namespace memfloor::cli {

// When the file at `path` is a JSON document of memfloor's (its "schema" is memfloor.report/N,
// memfloor.findings/N, memfloor.gate/N, ...): "<path>: a memfloor report (memfloor.report/3), not
// a trace or a memory snapshot: ..." with the command that reads it; else "".
std::string memfloorDocumentMessage(const std::string& path);

// Called while memfloor::Error `e` is handled: when `e` is about one of `paths` (its message
// starts with "<path>:") and that file is a memfloor document, throws memfloorDocumentMessage(path)
// instead; else rethrows `e`.
[[noreturn]] void rethrowNamingDocument(const Error& e, const std::vector<std::string>& paths);

}  // namespace memfloor::cli

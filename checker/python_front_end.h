// The Python front end (checker/python/memfloor_pyfacts): run as a child process, which writes the
// facts of Python sources on its standard output.
#pragma once

#include <string>
#include <vector>

#include "checker/config.h"
#include "checker/facts.h"

namespace memfloor::checker {

// The document the front end prints: {"schema", "facts" (kFactsSchema), "errors", "files",
// "bytes"}.
inline constexpr const char* kPyFactsSchema = "memfloor.pyfacts/1";

struct PythonOptions {
  std::string python = "python3";     // the interpreter: a path, or a name looked up on PATH
  std::string front_end_dir;          // the directory holding memfloor_pyfacts/; empty: installed
  unsigned jobs = 1;                  // files parsed in parallel
  std::vector<std::string> excludes;  // globs of files and directories left out of the walk
};

// Where memfloor-check finds the installed front end: `<dir of the executable>/python` (the build
// tree copies checker/python there), then `<dir of the executable>/../share/memfloor/
// checker-python`. Throws memfloor::Error naming both when neither holds it.
std::string findPythonFrontEnd();

// The facts of `paths` (.py and .pyi files, and directories the front end walks), merged; one unit
// per file. Files the front end could not read or parse are appended to `errors` ("file: what is
// wrong"), the others are in the facts. Throws memfloor::Error when the front end cannot run, fails
// (its standard error is in the message) or prints no valid document. No paths: no facts, nothing
// is run.
Facts collectPythonFacts(const std::vector<std::string>& paths, const Config& config,
                         const PythonOptions& options, std::vector<std::string>& errors);

// The facts of the document `out` the front end printed (named `name` in errors); its "errors"
// appended to `errors`. Throws memfloor::Error when it is not a kPyFactsSchema document or is
// malformed.
Facts readPythonFacts(std::string out, const std::string& name, std::vector<std::string>& errors);

}  // namespace memfloor::checker

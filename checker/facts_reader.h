// FactsReader: the facts of a document read straight from its text into the structs, as nlohmann's
// parser reports its tokens (SAX), without a DOM of the whole document between them.
//
// It reads the documents memfloor writes: a memfloor.facts/1 document (--emit-facts) and the
// Python front end's envelope. It is the fast path, not a second definition of the format: any
// document it does not read exactly as factsFromJson(parseJson(text)) would (a key it does not
// know or meets twice, a value of another type, an enum name it does not know, a number that is
// not an int, a syntax error) is not read (nullopt), and the caller reads the text again through
// the DOM (facts.h), whose result or error message is then the answer. So its answer, when there
// is one, is the DOM reader's, and the messages for bad input are the DOM reader's.
//
// Memory: the text and the facts, not the text, its DOM and the facts (a DOM holds about seven
// times the bytes of its text).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/facts.h"

namespace memfloor::checker {

// The facts of a kFactsSchema document; nullopt when it is not in the form above.
std::optional<Facts> readFactsText(std::string_view text);

// The Python front end's envelope: {"schema": `schema`, "errors": [strings], "files": count,
// "bytes": count, "facts": <kFactsSchema document>} in any order, nothing else.
struct FrontEndOutput {
  Facts facts;
  std::vector<std::string> errors;
  uint64_t files = 0;
  uint64_t bytes = 0;
};
std::optional<FrontEndOutput> readFrontEndText(std::string_view text, std::string_view schema);
// The same on a text in pieces (subprocess.h's PiecewiseText), read where they are.
std::optional<FrontEndOutput> readFrontEndText(const std::vector<std::string>& pieces,
                                               std::string_view schema);

}  // namespace memfloor::checker

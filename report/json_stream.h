// Writes a JSON document in the layout of nlohmann's dump(2), with chosen arrays produced one
// element at a time: a large document is never whole in memory, neither as a DOM nor as text.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <unordered_map>

namespace memfloor::report {

// Stands for an array of `count` elements, element(i) building the i-th when it is written.
struct StreamedArray {
  size_t count = 0;
  std::function<nlohmann::json(size_t)> element;
};

// Keyed by the address of the placeholder node in the document (any value; it is not written).
using StreamedArrays = std::unordered_map<const nlohmann::json*, StreamedArray>;

// Writes doc as dump(2, ' ', false, replace) would (invalid UTF-8 becomes U+FFFD), replacing each
// placeholder by its streamed array. No newline at the end.
void writeIndented(std::ostream& out, const nlohmann::json& doc, const StreamedArrays& streamed);

}  // namespace memfloor::report

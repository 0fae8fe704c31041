// libFuzzer target: the text reader over arbitrary bytes; every record it accepts must round-trip
// through the canonical text and the binary form.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor::trace;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  TextReader reader(in, "fuzz.txt");
  std::vector<Record> records;
  try {
    Record r;
    while (reader.next(r)) records.push_back(r);
  } catch (const memfloor::Error&) {
    // a malformed line: the records before it still have to round-trip
  }
  for (const Record& r : records) fuzz::checkTextRoundTrip(r);
  fuzz::checkBinaryRoundTrip(records);
  return 0;
}

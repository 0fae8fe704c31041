// libFuzzer target: the restricted pickle reader (common/pickle.h). Each input must be read or
// refused with memfloor::Error. What is read is walked (depths as promised, every dict lookup
// answering) and written back (common/pickle_writer.h): that must read back, and writing it again
// must give the same bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <sstream>
#include <string>
#include <unordered_set>

#include "common/error.h"
#include "common/pickle.h"
#include "common/pickle_writer.h"

namespace {

using memfloor::common::PickleDocument;
using memfloor::common::PickleEntry;
using memfloor::common::PickleKind;
using memfloor::common::PickleValue;

[[noreturn]] void failCheck(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

// Each value once: a depth is 0 for a scalar and 1 + the deepest item for a container, within
// kMaxPickleDepth; a dict's str and int keys are found.
void walk(const PickleValue& value, std::unordered_set<const PickleValue*>& seen) {
  if (!seen.insert(&value).second) return;
  int deepest = 0;
  for (const PickleValue* item : value.items()) {
    walk(*item, seen);
    deepest = std::max(deepest, item->depth() + 1);
  }
  for (const PickleEntry& entry : value.entries()) {
    walk(*entry.key, seen);
    walk(*entry.value, seen);
    deepest = std::max({deepest, entry.key->depth() + 1, entry.value->depth() + 1});
    const PickleKind kind = entry.key->kind();
    const PickleValue* found = kind == PickleKind::kStr   ? value.find(entry.key->text())
                               : kind == PickleKind::kInt ? value.find(entry.key->integer())
                                                          : entry.value;
    if (found == nullptr) failCheck("a dict's key is not found");
  }
  const PickleKind kind = value.kind();
  const bool container = kind == PickleKind::kList || kind == PickleKind::kTuple ||
                         kind == PickleKind::kSet || kind == PickleKind::kDict;
  if (value.depth() != (container ? std::max(deepest, 1) : 0)) failCheck("a depth is wrong");
  if (value.depth() > memfloor::common::kMaxPickleDepth) failCheck("nested past the limit");
}

std::string written(const PickleValue& root) {
  std::ostringstream out;
  memfloor::common::PickleWriter writer(out);
  memfloor::common::writePickleValue(writer, root);
  writer.finish();
  return out.str();
}

std::span<const uint8_t> bytesOf(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor;
  std::string first;
  try {
    const PickleDocument doc = common::readPickle({data, size}, "fuzz.pickle");
    std::unordered_set<const PickleValue*> seen;
    walk(doc.root(), seen);
    first = written(doc.root());  // throws for a bytes value, which the writer does not write
  } catch (const Error&) {
    return 0;  // a clear error is the expected answer to bad input
  }
  try {
    const PickleDocument again = common::readPickle(bytesOf(first), "written.pickle");
    if (written(again.root()) != first) failCheck("writer -> reader -> writer changed the bytes");
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    failCheck("the writer's pickle did not read back");
  }
  return 0;
}

// What the pickle tests share: the fixtures of testdata/pickle/, reading bytes in memory and
// comparing documents.
#pragma once

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/pickle.h"

namespace memfloor::common::test {

inline std::string fixturePath(const std::string& name) {
  return (std::filesystem::path(MEMFLOOR_TESTDATA_DIR) / "pickle" / name).string();
}

// The bytes of testdata/pickle/<name>.
inline std::string fixture(const std::string& name) {
  std::ifstream in(fixturePath(name), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  REQUIRE(!bytes.str().empty());
  return bytes.str();
}

inline std::span<const uint8_t> bytesOf(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

inline PickleDocument read(std::string_view bytes) {
  return readPickle(bytesOf(bytes), "x.pickle");
}

// The message of the Error that reading `bytes` throws.
inline std::string failure(std::string_view bytes) {
  try {
    read(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no error for a pickle of " << bytes.size() << " bytes");
  return "";
}

// The ints of a list of ints.
inline std::vector<int64_t> ints(const PickleValue& list) {
  std::vector<int64_t> out;
  for (const PickleValue* item : list.items()) out.push_back(item->integer());
  return out;
}

// Whether `a` and `b` hold the same data (floats compared by their bits), each pair of values
// compared once however often the DAGs share it.
inline bool same(const PickleValue& a, const PickleValue& b,
                 std::set<std::pair<const PickleValue*, const PickleValue*>>& seen) {
  if (!seen.emplace(&a, &b).second) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case PickleKind::kNone:
      return true;
    case PickleKind::kBool:
      return a.boolean() == b.boolean();
    case PickleKind::kInt:
      return a.integer() == b.integer();
    case PickleKind::kFloat:
      return std::bit_cast<uint64_t>(a.number()) == std::bit_cast<uint64_t>(b.number());
    case PickleKind::kStr:
    case PickleKind::kBytes:
      return a.text() == b.text();
    case PickleKind::kList:
    case PickleKind::kTuple:
    case PickleKind::kSet:
      return std::equal(
          a.items().begin(), a.items().end(), b.items().begin(), b.items().end(),
          [&](const PickleValue* x, const PickleValue* y) { return same(*x, *y, seen); });
    case PickleKind::kDict:
      return std::equal(a.entries().begin(), a.entries().end(), b.entries().begin(),
                        b.entries().end(), [&](const PickleEntry& x, const PickleEntry& y) {
                          return same(*x.key, *y.key, seen) && same(*x.value, *y.value, seen);
                        });
  }
  return false;
}

inline bool same(const PickleValue& a, const PickleValue& b) {
  std::set<std::pair<const PickleValue*, const PickleValue*>> seen;
  return same(a, b, seen);
}

// The fixtures Python wrote that the reader accepts.
inline const std::vector<std::string> kAcceptedFixtures{
    "plain.p0.pickle",  "plain.p1.pickle",    "plain.p2.pickle",  "plain.p3.pickle",
    "plain.p4.pickle",  "plain.p5.pickle",    "extras.p3.pickle", "extras.p4.pickle",
    "extras.p5.pickle", "snapshot.p4.pickle", "batches.p4.pickle"};

}  // namespace memfloor::common::test

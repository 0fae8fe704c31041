// What the pickle tests share: the fixtures of testdata/pickle/ and reading bytes in memory.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

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

// The fixtures Python wrote that the reader accepts.
inline const std::vector<std::string> kAcceptedFixtures{
    "plain.p0.pickle",  "plain.p1.pickle",    "plain.p2.pickle",  "plain.p3.pickle",
    "plain.p4.pickle",  "plain.p5.pickle",    "extras.p3.pickle", "extras.p4.pickle",
    "extras.p5.pickle", "snapshot.p4.pickle", "batches.p4.pickle"};

}  // namespace memfloor::common::test

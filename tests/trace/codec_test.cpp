// Tests of trace/codec.h: little-endian loads and stores, whatever the host and the alignment.
#include "trace/codec.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

namespace memfloor::trace {
namespace {

using Bytes = std::vector<uint8_t>;

TEST_CASE("stores write the least significant byte first", "[trace][codec]") {
  uint8_t b[8] = {};
  codec::storeLe16(b, 0x1122);
  CHECK(Bytes(b, b + 2) == Bytes{0x22, 0x11});
  codec::storeLe32(b, 0x11223344);
  CHECK(Bytes(b, b + 4) == Bytes{0x44, 0x33, 0x22, 0x11});
  codec::storeLe64(b, 0x1122334455667788);
  CHECK(Bytes(b, b + 8) == Bytes{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});
  const uint8_t in[8] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  CHECK(codec::loadLe16(in) == 0x7788);
  CHECK(codec::loadLe32(in) == 0x55667788);
  CHECK(codec::loadLe64(in) == 0x1122334455667788);
}

TEST_CASE("loads read back what stores wrote, at every alignment", "[trace][codec]") {
  std::mt19937_64 rng(7);
  uint8_t buffer[24];
  for (int i = 0; i < 200; ++i) {
    const uint64_t v = rng();
    for (size_t at = 0; at < 8; ++at) {
      INFO("value " << v << " at offset " << at);
      std::fill(std::begin(buffer), std::end(buffer), uint8_t{0xa5});
      codec::storeLe16(buffer + at, static_cast<uint16_t>(v));
      CHECK(codec::loadLe16(buffer + at) == static_cast<uint16_t>(v));
      codec::storeLe32(buffer + at, static_cast<uint32_t>(v));
      CHECK(codec::loadLe32(buffer + at) == static_cast<uint32_t>(v));
      codec::storeLe64(buffer + at, v);
      CHECK(codec::loadLe64(buffer + at) == v);
      CHECK(buffer[at + 8] == 0xa5);  // nothing written past the value
      if (at > 0) CHECK(buffer[at - 1] == 0xa5);
    }
  }
}

}  // namespace
}  // namespace memfloor::trace

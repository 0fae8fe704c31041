// Tests of printable: control bytes from a trace never reach a terminal as they are.
#include "common/printable.h"

#include <catch2/catch.hpp>
#include <string>

namespace memfloor::common::test {
namespace {

TEST_CASE("printable writes control bytes as \\xNN and keeps the rest", "[printable]") {
  CHECK(printable("model.layers[1].w") == "model.layers[1].w");
  CHECK(printable("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(printable(std::string("a\0b\n\t\x7f", 6)) == "a\\x00b\\x0a\\x09\\x7f");
  CHECK(printable("caf\xc3\xa9 \xe2\x86\x92") == "caf\xc3\xa9 \xe2\x86\x92");  // UTF-8 kept
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\xc2\\x9b2J");    // C1 CSI, as UTF-8 encodes it
  CHECK(printable("\xc2\xa0") == "\xc2\xa0");  // no-break space: not a control
  CHECK(printable("\xc2") == "\xc2");          // a lone lead byte at the end
  CHECK(printable("") == "");
}

}  // namespace
}  // namespace memfloor::common::test

// memfloor/markers.h without the hook: every call is a harmless no-op.
#include <memfloor/markers.h>

#include <catch2/catch.hpp>

TEST_CASE("markers are no-ops when the hook is absent", "[runtime_hook]") {
  CHECK(memfloor_range_push("iteration") == 0);
  CHECK(memfloor_range_pop() == 0);
  CHECK(memfloor_range_start("epoch", 1) == 0);
  CHECK(memfloor_range_end(1) == 0);
  CHECK(memfloor_mark("checkpoint") == 0);
}

// The chunk checksum (XXH3_64bits), computed with the widest vector unit this CPU has. The writer
// keeps xxhash's portable inline build (the hook must not depend on CPU dispatch); the value is
// the same either way.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memfloor::trace::detail {

uint64_t chunkChecksum(const void* data, size_t size);

}  // namespace memfloor::trace::detail

// XXH3_64bits compiled for AVX2 (this file only is built with -mavx2; checksum.cpp calls it only
// on a CPU that has AVX2).
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

#include <cstddef>
#include <cstdint>

namespace memfloor::trace::detail {

uint64_t chunkChecksumAvx2(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace memfloor::trace::detail

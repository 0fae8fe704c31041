// XXH3_64bits, SSE2 (the x86-64 baseline) or AVX2 when the CPU has it: xxhash's own code built
// twice, chosen once. Debian's libxxhash-dev ships the dispatching entry points only in the shared
// library, which the device bundles would then have to carry; this is the same choice in one file.
#include "trace/checksum.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace memfloor::trace::detail {

#if defined(MEMFLOOR_CHECKSUM_AVX2)
uint64_t chunkChecksumAvx2(const void* data, size_t size);  // checksum_avx2.cpp

uint64_t chunkChecksum(const void* data, size_t size) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? chunkChecksumAvx2(data, size) : XXH3_64bits(data, size);
}
#else
uint64_t chunkChecksum(const void* data, size_t size) { return XXH3_64bits(data, size); }
#endif

}  // namespace memfloor::trace::detail

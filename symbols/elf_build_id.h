// The GNU build id of an ELF file: how a module in a trace is matched with a file on this machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>

namespace memfloor::symbols {

// Reads `size` bytes at `offset` into `out`; false when they are not all there.
using ReadAt = std::function<bool(uint64_t offset, size_t size, std::string& out)>;

// Reads an open file (sizes are the caller's to bound: it allocates what it is asked for).
ReadAt fileReader(std::ifstream& file);

// The build id (NT_GNU_BUILD_ID in a PT_NOTE segment) as lower-case hex, "" when the bytes are not
// a 64-bit little-endian ELF file or carry no build id. Bounded work on any input (untrusted).
std::string elfBuildId(const ReadAt& read);

// The build id of a file, "" when it cannot be read or has none.
std::string elfBuildIdOfFile(const std::string& path);

}  // namespace memfloor::symbols

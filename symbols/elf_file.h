// ELF files read as untrusted bytes: the reader callback the ELF readers take, and what each of
// them checks first.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

namespace memfloor::symbols {

// Reads `size` bytes at `offset` into `out`; false when they are not all there.
using ReadAt = std::function<bool(uint64_t offset, size_t size, std::string& out)>;

// Reads an open file (sizes are the caller's to bound: it allocates what it is asked for).
ReadAt fileReader(std::ifstream& file);

// Reads bytes in memory, which must outlive the reader.
ReadAt bytesReader(const std::string& bytes);

// A T copied from bytes at `at`; the caller has checked that it lies inside.
template <typename T>
T loadAt(const std::string& bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// The header of a 64-bit little-endian ELF file; false for any other bytes.
bool readElfHeader(const ReadAt& read, Elf64_Ehdr& out);

}  // namespace memfloor::symbols

// Function names from an ELF file's own symbol table (.symtab, else .dynsym): how native frames
// are named where llvm-symbolizer is not installed (the machine that recorded a trace often has
// none). Each function symbol carries its size, so a name is given only to an address inside it,
// never to the nearest symbol before an unnamed function; there is no file or line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbols/elf_file.h"
#include "symbols/symbols.h"

namespace memfloor::symbols {

struct ElfFunction {
  uint64_t start = 0;  // the address in the file's own virtual address space
  uint64_t end = 0;    // start + size
  std::string name;    // as in the table (mangled)
};

// The defined function symbols with a size, sorted by start. Empty when the bytes are not a 64-bit
// little-endian ELF file or have no symbol table. Bounded work and memory on any input (untrusted).
std::vector<ElfFunction> elfFunctions(const ReadAt& read);

// The functions of a file; empty when it cannot be read.
std::vector<ElfFunction> elfFunctionsOfFile(const std::string& path);

// Per return address (an offset as frames carry it: one byte back is inside the call), the
// demangled name of the function that contains it, as a one-frame chain; empty when none does.
std::vector<std::vector<SourceLocation>> nameByElfSymbols(const std::vector<ElfFunction>& functions,
                                                          const std::vector<uint64_t>& offsets);

}  // namespace memfloor::symbols

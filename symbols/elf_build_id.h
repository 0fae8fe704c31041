// The GNU build id of an ELF file: how a module in a trace is matched with a file on this machine.
#pragma once

#include <string>

#include "symbols/elf_file.h"

namespace memfloor::symbols {

// The build id (NT_GNU_BUILD_ID in a PT_NOTE segment) as lower-case hex, "" when the bytes are not
// a 64-bit little-endian ELF file or carry no build id. Bounded work on any input (untrusted).
std::string elfBuildId(const ReadAt& read);

// The build id of a file, "" when it cannot be read or has none.
std::string elfBuildIdOfFile(const std::string& path);

}  // namespace memfloor::symbols

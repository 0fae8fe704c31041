// The GNU build id: ELF header -> program headers -> PT_NOTE segments -> the NT_GNU_BUILD_ID note.
#include "symbols/elf_build_id.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace memfloor::symbols {
namespace {

constexpr size_t kMaxProgramHeaders = 256;
constexpr size_t kMaxNoteBytes = 64 * 1024;

// Walks the notes of one segment; "" when none is a GNU build id.
std::string buildIdIn(const std::string& notes) {
  size_t at = 0;
  while (notes.size() - at >= sizeof(Elf64_Nhdr)) {
    auto header = loadAt<Elf64_Nhdr>(notes, at);
    at += sizeof header;
    uint64_t name_size = (uint64_t{header.n_namesz} + 3) & ~uint64_t{3};
    uint64_t desc_size = (uint64_t{header.n_descsz} + 3) & ~uint64_t{3};
    if (name_size > notes.size() - at || desc_size > notes.size() - at - name_size) return {};
    bool gnu = header.n_namesz == 4 && std::memcmp(notes.data() + at, "GNU", 4) == 0;
    if (gnu && header.n_type == NT_GNU_BUILD_ID && header.n_descsz > 0) {
      std::string hex;
      for (uint32_t i = 0; i < header.n_descsz; ++i) {
        hex += fmt::format("{:02x}", static_cast<unsigned char>(notes[at + name_size + i]));
      }
      return hex;
    }
    at += name_size + desc_size;
  }
  return {};
}

}  // namespace

std::string elfBuildId(const ReadAt& read) {
  Elf64_Ehdr ehdr{};
  if (!readElfHeader(read, ehdr) || ehdr.e_phentsize != sizeof(Elf64_Phdr)) return {};
  size_t count = std::min<size_t>(ehdr.e_phnum, kMaxProgramHeaders);
  std::string headers;
  if (!read(ehdr.e_phoff, count * sizeof(Elf64_Phdr), headers)) return {};
  for (size_t i = 0; i < count; ++i) {
    auto phdr = loadAt<Elf64_Phdr>(headers, i * sizeof(Elf64_Phdr));
    if (phdr.p_type != PT_NOTE || phdr.p_filesz > kMaxNoteBytes) continue;
    std::string notes;
    if (!read(phdr.p_offset, phdr.p_filesz, notes)) continue;
    if (std::string id = buildIdIn(notes); !id.empty()) return id;
  }
  return {};
}

std::string elfBuildIdOfFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  return elfBuildId(fileReader(file));
}

}  // namespace memfloor::symbols

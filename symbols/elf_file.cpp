// Readers of files and bytes, and the ELF header check.
#include "symbols/elf_file.h"

namespace memfloor::symbols {

ReadAt fileReader(std::ifstream& file) {
  return [&file](uint64_t offset, size_t size, std::string& out) {
    out.assign(size, '\0');
    file.clear();
    file.seekg(static_cast<std::streamoff>(offset));
    return file.read(out.data(), static_cast<std::streamsize>(size)).gcount() ==
           static_cast<std::streamsize>(size);
  };
}

ReadAt bytesReader(const std::string& bytes) {
  return [&bytes](uint64_t offset, size_t size, std::string& out) {
    if (offset > bytes.size() || size > bytes.size() - offset) return false;
    out = bytes.substr(offset, size);
    return true;
  };
}

bool readElfHeader(const ReadAt& read, Elf64_Ehdr& out) {
  std::string bytes;
  if (!read(0, sizeof(Elf64_Ehdr), bytes)) return false;
  out = loadAt<Elf64_Ehdr>(bytes, 0);
  return std::memcmp(out.e_ident, ELFMAG, SELFMAG) == 0 && out.e_ident[EI_CLASS] == ELFCLASS64 &&
         out.e_ident[EI_DATA] == ELFDATA2LSB;
}

}  // namespace memfloor::symbols

// ELF header -> section headers -> the symbol table and its string table -> function ranges.
#include "symbols/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

namespace memfloor::symbols {
namespace {

constexpr size_t kMaxSections = 65535;           // e_shnum is 16 bits
constexpr uint64_t kMaxTableBytes = 1ull << 30;  // a symbol or string table larger than 1 GiB: none
constexpr size_t kMaxName = 4096;                // longer names are cut
constexpr size_t kMaxNested = 8;                 // ranges looked at before an address

bool readSection(const ReadAt& read, const Elf64_Shdr& section, std::string& out) {
  return section.sh_type != SHT_NOBITS && section.sh_size <= kMaxTableBytes &&
         read(section.sh_offset, section.sh_size, out);
}

// The symbol table (type SHT_SYMTAB, else SHT_DYNSYM) and the string table it links to.
bool findTables(const ReadAt& read, std::string& symbols, std::string& strings) {
  Elf64_Ehdr ehdr{};
  if (!readElfHeader(read, ehdr) || ehdr.e_shentsize != sizeof(Elf64_Shdr) || ehdr.e_shnum == 0 ||
      ehdr.e_shnum > kMaxSections) {
    return false;
  }
  std::string headers;
  if (!read(ehdr.e_shoff, size_t{ehdr.e_shnum} * sizeof(Elf64_Shdr), headers)) return false;
  auto section = [&headers](size_t i) {
    return loadAt<Elf64_Shdr>(headers, i * sizeof(Elf64_Shdr));
  };
  for (uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (size_t i = 0; i < ehdr.e_shnum; ++i) {
      Elf64_Shdr table = section(i);
      if (table.sh_type != type || table.sh_entsize != sizeof(Elf64_Sym) ||
          table.sh_link >= ehdr.e_shnum || section(table.sh_link).sh_type != SHT_STRTAB) {
        continue;
      }
      if (readSection(read, table, symbols) && readSection(read, section(table.sh_link), strings)) {
        return true;
      }
    }
  }
  return false;
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out != nullptr ? std::string(out.get()) : name;
}

}  // namespace

std::vector<ElfFunction> elfFunctions(const ReadAt& read) {
  std::string symbols;
  std::string strings;
  std::vector<ElfFunction> out;
  if (!findTables(read, symbols, strings)) return out;
  for (size_t at = 0; at + sizeof(Elf64_Sym) <= symbols.size(); at += sizeof(Elf64_Sym)) {
    auto sym = loadAt<Elf64_Sym>(symbols, at);
    unsigned type = ELF64_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        sym.st_size == 0 || sym.st_name >= strings.size() ||
        sym.st_value > UINT64_MAX - sym.st_size) {
      continue;
    }
    size_t length =
        strnlen(strings.data() + sym.st_name, std::min(kMaxName, strings.size() - sym.st_name));
    out.push_back({sym.st_value, sym.st_value + sym.st_size,
                   std::string(strings.data() + sym.st_name, length)});
  }
  std::sort(out.begin(), out.end(), [](const ElfFunction& a, const ElfFunction& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  return out;
}

std::vector<ElfFunction> elfFunctionsOfFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  return elfFunctions(fileReader(file));
}

std::vector<std::vector<SourceLocation>> nameByElfSymbols(const std::vector<ElfFunction>& functions,
                                                          const std::vector<uint64_t>& offsets) {
  std::vector<std::vector<SourceLocation>> chains(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    uint64_t address = offsets[i] > 0 ? offsets[i] - 1 : 0;  // inside the call instruction
    auto after = std::upper_bound(functions.begin(), functions.end(), address,
                                  [](uint64_t a, const ElfFunction& f) { return a < f.start; });
    // The nearest functions starting at or before the address: the first that contains it
    // (ranges seldom nest: aliases of one range, a local symbol inside its function).
    for (size_t back = 0; back < kMaxNested && after != functions.begin(); ++back) {
      --after;
      if (address < after->end) {
        chains[i].push_back(SourceLocation{demangle(after->name), "", 0});
        break;
      }
    }
  }
  return chains;
}

}  // namespace memfloor::symbols

// Function names from ELF symbol tables: this test binary's own, and bytes that are not one.
#include "symbols/elf_symbols.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "symbols/elf_build_id.h"
#include "symbols/llvm_symbolizer.h"

namespace memfloor::symbols {

// A function of this binary to look up, in a namespace so its demangled name is known.
__attribute__((noinline)) int elfSymbolsProbe(int x) { return x * 3 + 1; }

namespace {

// This binary's load bias: a frame's offset is an address minus it.
uint64_t loadBias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;  // the first module is the executable
        return 1;
      },
      &bias);
  return bias;
}

}  // namespace

TEST_CASE("a return address inside a function is named from the binary's symbol table",
          "[symbols]") {
  std::vector<ElfFunction> functions = elfFunctionsOfFile("/proc/self/exe");
  REQUIRE(functions.size() > 100);
  CHECK(
      std::is_sorted(functions.begin(), functions.end(),
                     [](const ElfFunction& a, const ElfFunction& b) { return a.start < b.start; }));
  auto address = reinterpret_cast<uint64_t>(&elfSymbolsProbe) - loadBias();
  // Return addresses: one byte back is inside the call, so start + 1 names the function's first
  // byte and start + 2 its second; address 0 and the top of the space are nobody's.
  std::vector<std::vector<SourceLocation>> chains =
      nameByElfSymbols(functions, {address + 1, address + 2, 0, UINT64_MAX});
  REQUIRE(chains.size() == 4);
  REQUIRE(chains[0].size() == 1);
  CHECK(chains[0][0].function == "memfloor::symbols::elfSymbolsProbe(int)");
  CHECK(chains[0][0].file.empty());
  CHECK(chains[0][0].line == 0);
  REQUIRE(chains[1].size() == 1);
  CHECK(chains[1][0].function == chains[0][0].function);
  CHECK(chains[2].empty());
  CHECK(chains[3].empty());
  CHECK(elfSymbolsProbe(1) == 4);
}

TEST_CASE("bytes that are not an ELF file with a symbol table give no functions", "[symbols]") {
  CHECK(elfFunctions(bytesReader("")).empty());
  CHECK(elfFunctions(bytesReader(std::string(64, '\0'))).empty());
  CHECK(elfFunctionsOfFile("/nonexistent/file").empty());
  // A real ELF header cut short after its section headers' announced place.
  std::string header;
  {
    std::ifstream self("/proc/self/exe", std::ios::binary);
    header.assign(4096, '\0');
    self.read(header.data(), 4096);
  }
  CHECK(elfFunctions(bytesReader(header)).empty());
  // A header announcing 65535 sections far beyond the end: nothing read, nothing allocated.
  std::string huge = header.substr(0, 64);
  huge[0x3c] = '\xff';  // e_shnum
  huge[0x3d] = '\xff';
  CHECK(elfFunctions(bytesReader(huge)).empty());
}

}  // namespace memfloor::symbols

namespace memfloor::symbols {

TEST_CASE("without llvm-symbolizer the symbolizer names functions from the symbol tables",
          "[symbols]") {
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);  // no llvm-symbolizer to find
  LlvmSymbolizer symbolizer({"", {}});
  ::setenv("PATH", path.c_str(), 1);
  CHECK_FALSE(symbolizer.available());
  auto address = reinterpret_cast<uint64_t>(&elfSymbolsProbe) - loadBias();
  std::vector<std::vector<SourceLocation>> chains =
      symbolizer.resolve("/proc/self/exe", elfBuildIdOfFile("/proc/self/exe"), {address + 1});
  REQUIRE(chains.size() == 1);
  REQUIRE(chains[0].size() == 1);
  CHECK(chains[0][0].function == "memfloor::symbols::elfSymbolsProbe(int)");
  // A module whose file has another build id is not named from a stranger's table.
  chains = symbolizer.resolve("/proc/self/exe", "00ff00ff", {address + 1});
  REQUIRE(chains.size() == 1);
  CHECK(chains[0].empty());
}

}  // namespace memfloor::symbols

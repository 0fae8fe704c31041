// Builds the binary seed corpus for fuzz_binary_reader from the text fixtures:
//   make_seeds OUT_DIR FIXTURE.txt...   writes OUT_DIR/<name>.<chunk bytes>[.varint].mftrace:
//   small and default chunks with packed allocs/frees, and small chunks with varint ones.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "trace/sink.h"
#include "trace/text.h"
#include "trace/writer.h"

int main(int argc, char** argv) {
  using namespace memfloor::trace;
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_seeds OUT_DIR FIXTURE.txt...\n");
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    // Small and default chunks, allocs/frees packed (1.1) and as varints (1.0's encoding).
    for (uint32_t variant = 0; variant < 3; ++variant) {
      const uint32_t chunk_bytes =
          variant == 1 ? Writer::kDefaultChunkBytes : Writer::kMinChunkBytes;
      const Writer::Encoding encoding =
          variant == 2 ? Writer::Encoding::kVarint : Writer::Encoding::kPacked;
      std::ifstream in(argv[i]);
      TextReader reader(in, argv[i]);
      MemorySink sink;
      Writer writer(sink, chunk_bytes, encoding);
      bool ok = writer.begin();
      Record r;
      try {
        while (ok && reader.next(r)) ok = writer.write(r);
      } catch (const memfloor::Error& e) {
        std::fprintf(stderr, "make_seeds: %s\n", e.what());
        return 2;
      }
      ok = ok && writer.flush();
      const auto name = std::filesystem::path(argv[i]).stem().string() + "." +
                        std::to_string(chunk_bytes) + (variant == 2 ? ".varint" : "") + ".mftrace";
      std::ofstream out(out_dir / name, std::ios::binary);
      out.write(reinterpret_cast<const char*>(sink.bytes().data()),
                static_cast<std::streamsize>(sink.bytes().size()));
      if (!ok || !out) {
        std::fprintf(stderr, "make_seeds: could not write %s\n", name.c_str());
        return 2;
      }
    }
  }
  return 0;
}

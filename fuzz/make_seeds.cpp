// Builds the binary seed corpus for fuzz_binary_reader from the text fixtures:
//   make_seeds OUT_DIR FIXTURE.txt...   writes OUT_DIR/<name>.mftrace (and a small-chunk variant).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "trace/error.h"
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
    for (uint32_t chunk_bytes : {Writer::kMinChunkBytes, Writer::kDefaultChunkBytes}) {
      std::ifstream in(argv[i]);
      TextReader reader(in, argv[i]);
      MemorySink sink;
      Writer writer(sink, chunk_bytes);
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
                        std::to_string(chunk_bytes) + ".mftrace";
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

// libFuzzer target: the hook's reader of its environment (runtime_hook/config.h: MEMFLOOR_*; and
// runtime_hook/process_info.h: the rank variables and the ones recorded as properties). The input
// is the variables' values separated by NUL bytes, in the order of kNames; those past the last
// value are unset. The hook throws nothing: a bad value falls back to its default with a warning,
// and what is taken must be in the range the reader documents.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime_hook/config.h"
#include "runtime_hook/process_info.h"

namespace {

using namespace memfloor::hook;

constexpr const char* kNames[] = {"MEMFLOOR_OUTPUT_DIR",
                                  "MEMFLOOR_STACKS",
                                  "MEMFLOOR_BUFFER_SIZE",
                                  "MEMFLOOR_STACK_DEPTH",
                                  "MEMFLOOR_FLUSH_MS",
                                  "MEMFLOOR_ITERATION_PATTERN",
                                  "MEMFLOOR_VERBOSE",
                                  "RANK",
                                  "LOCAL_RANK",
                                  "WORLD_SIZE",
                                  "SLURM_PROCID",
                                  "SLURM_LOCALID",
                                  "SLURM_NTASKS",
                                  "PYTORCH_CUDA_ALLOC_CONF",
                                  "CUDA_VISIBLE_DEVICES",
                                  "OMPI_COMM_WORLD_RANK",
                                  "PMI_RANK",
                                  "PMIX_RANK",
                                  "OMPI_COMM_WORLD_LOCAL_RANK",
                                  "MPI_LOCALRANKID",
                                  "OMPI_COMM_WORLD_SIZE",
                                  "PMI_SIZE",
                                  "PYTORCH_ALLOC_CONF",
                                  "PYTORCH_NO_CUDA_MEMORY_CACHING",
                                  "CUDA_LAUNCH_BLOCKING",
                                  "NCCL_BUFFSIZE"};
constexpr std::size_t kCount = sizeof kNames / sizeof kNames[0];

struct Environment {
  std::vector<std::string> values;  // values[i] is kNames[i]'s; past the end: unset
};

const char* get(const char* name, void* context) {
  const auto& env = *static_cast<const Environment*>(context);
  for (std::size_t i = 0; i < env.values.size() && i < kCount; ++i) {
    if (std::strcmp(name, kNames[i]) == 0) return env.values[i].c_str();
  }
  return nullptr;
}

[[noreturn]] void fail(const char* what, const char* value) {
  std::fprintf(stderr, "fuzz check failed: %s: '%s'\n", what, value);
  std::abort();
}

// parseByteSize's documented forms: digits, then one of k, m, g (either case) or nothing; the
// value they say, computed here without overflow.
void checkByteSize(const char* text) {
  uint64_t out = 0;
  if (!parseByteSize(text, out)) return;
  const std::size_t digits = std::strspn(text, "0123456789");
  if (digits == 0) fail("parseByteSize took a value that does not start with a digit", text);
  const char* unit = text + digits;
  unsigned shift = 0;
  if (*unit != '\0') {
    const char* units = "kKmMgG";
    const char* at = std::strchr(units, *unit);
    if (at == nullptr || unit[1] != '\0') fail("parseByteSize took junk after the digits", text);
    shift = 10 * (1 + static_cast<unsigned>(at - units) / 2);
  }
  unsigned __int128 value = 0;
  for (std::size_t i = 0; i < digits && value <= UINT64_MAX; ++i) {
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  if ((value << shift) != out) fail("parseByteSize gave another value", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Environment env;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::size_t begin = 0;
  while (begin < bytes.size()) {
    std::size_t end = bytes.find('\0', begin);
    if (end == std::string::npos) end = bytes.size();
    env.values.push_back(bytes.substr(begin, end - begin));
    begin = end + 1;
  }
  for (const std::string& v : env.values) {
    checkByteSize(v.c_str());
    uint64_t count = 0;
    if (parseCount(v.c_str(), count) && v.find_first_not_of("0123456789") != std::string::npos) {
      fail("parseCount took a value that is not a count", v.c_str());
    }
  }

  std::string warnings;
  const Config config = readConfig(get, &env, warnings);
  if (config.buffer_bytes < 64 * 1024 || config.buffer_bytes > 256 * 1024 * 1024) {
    fail("buffer size out of range", std::to_string(config.buffer_bytes).c_str());
  }
  if (config.max_stack_depth > 512) fail("stack depth out of range", "");
  if (config.flush_period_ms < 1 || config.flush_period_ms > 3'600'000) {
    fail("flush period out of range", "");
  }
  if (config.output_dir.empty()) fail("empty output directory", "");

  const ProcessFacts facts = readProcessFacts(get, &env);
  for (int attempt : {0, 1, 99}) traceFileName(config.output_dir, facts, attempt);
  return 0;
}

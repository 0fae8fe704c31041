// Reads the process facts recorded in a trace and names the trace file.
#include "runtime_hook/process_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "trace/sink.h"

namespace memfloor::hook {

constexpr long kInt32Max = std::numeric_limits<int32_t>::max();
constexpr size_t kMaxCommandLine = 1024 * 1024;  // enough for any sane command line

bool parseInt32(const char* text, int32_t& out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < -kInt32Max || value > kInt32Max) return false;
  out = static_cast<int32_t>(value);
  return true;
}

namespace {

int32_t firstInt(GetEnv get, void* context, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    int32_t value = 0;
    if (parseInt32(get(name, context), value)) return value;
  }
  return -1;
}

std::string readCommandLine() {
  std::string result;
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return result;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.append(buffer, static_cast<size_t>(n));
    if (result.size() > kMaxCommandLine) break;  // enough for any sane command line
  }
  ::close(fd);
  while (!result.empty() && result.back() == '\0') result.pop_back();
  for (char& c : result) {
    if (c == '\0') c = ' ';
  }
  return result;
}

// Host names go into file names: keep them to a safe alphabet.
std::string safeHost() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
  std::string host(name);
  for (char& c : host) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_';
    if (!ok) c = '_';
  }
  return host;
}

}  // namespace

ProcessFacts readProcessFacts(GetEnv get, void* context) {
  ProcessFacts facts;
  facts.pid = static_cast<uint64_t>(::getpid());
  facts.host = safeHost();
  facts.command_line = readCommandLine();
  facts.rank = firstInt(get, context,
                        {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"});
  facts.local_rank =
      firstInt(get, context,
               {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"});
  facts.world_size =
      firstInt(get, context, {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
  for (const char* name :
       {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "CUDA_VISIBLE_DEVICES",
        "PYTORCH_NO_CUDA_MEMORY_CACHING", "CUDA_LAUNCH_BLOCKING", "NCCL_BUFFSIZE"}) {
    if (const char* value = get(name, context); value != nullptr) {
      facts.env.emplace_back(std::string("env.") + name, value);
    }
  }
  return facts;
}

std::string traceFileName(const std::string& dir, const ProcessFacts& facts, int attempt) {
  std::string path = dir.empty() ? std::string(".") : dir;
  if (path.back() != '/') path += '/';
  path += "memfloor.";
  path += facts.host;
  path += '.';
  path += std::to_string(facts.pid);
  if (facts.rank >= 0) {
    path += ".rank";
    path += std::to_string(facts.rank);
  }
  if (attempt > 0) {
    path += '.';
    path += std::to_string(attempt);
  }
  path += ".mftrace";
  return path;
}

int createTraceFile(const std::string& dir, const ProcessFacts& facts, std::string& path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    path = traceFileName(dir, facts, attempt);
    int fd = trace::FileSink::createExclusive(path.c_str());
    if (fd >= 0) return fd;
    if (errno != EEXIST) return -1;  // a symlink (ELOOP), a missing directory...: give up
  }
  return -1;
}

}  // namespace memfloor::hook

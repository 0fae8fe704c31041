// What the hook records about its process (host, command line, rank) and where its trace goes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime_hook/config.h"

namespace memfloor::hook {

struct ProcessFacts {
  uint64_t pid = 0;
  std::string host;
  std::string command_line;  // /proc/self/cmdline, arguments joined by spaces
  int32_t rank = -1;         // RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK
  int32_t local_rank =
      -1;  // LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID
  int32_t world_size = -1;  // WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE
  std::vector<std::pair<std::string, std::string>> env;  // environment recorded as properties
};

// Reads the facts through get (getenv or a test map); reads /proc/self/cmdline.
ProcessFacts readProcessFacts(GetEnv get, void* context);

// "<dir>/memfloor.<host>.<pid>[.rank<R>].mftrace"; attempt > 0 adds ".<attempt>" before the suffix.
std::string traceFileName(const std::string& dir, const ProcessFacts& facts, int attempt);

// Creates the trace file exclusively (never following a symlink, never overwriting): tries the
// plain name, then .1 ... .99. Returns the fd (or -1, with `path` the last name tried and errno).
int createTraceFile(const std::string& dir, const ProcessFacts& facts, std::string& path);

// Parses a decimal int32; false on anything else.
bool parseInt32(const char* text, int32_t& out);

}  // namespace memfloor::hook

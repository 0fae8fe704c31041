// How the ranks of one job find each other: the RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT environment
// and a TCP rendezvous that leaves every rank connected to its pipeline neighbours.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcp_stream.h"

namespace refmodel {

// What a launcher (torchrun, mpirun, the reference model's own --ranks) sets for each process.
struct RankEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // LOCAL_RANK, else RANK: the device index on a one-host job
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
};

// Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT through `getenv` (a parameter so
// tests need no process environment). nullopt when RANK is unset. Throws RankError naming the
// variable when a value is not a number, out of range (0 <= RANK < WORLD_SIZE, 1 <= port <= 65535)
// or when RANK is set without WORLD_SIZE. MASTER_ADDR defaults to 127.0.0.1, MASTER_PORT to 29500.
std::optional<RankEnv> rankEnvFrom(const std::function<const char*(const char*)>& getenv);

// What the rendezvous leaves each rank with.
struct NeighbourLinks {
  std::unique_ptr<StreamSocket> previous;  // to rank - 1; null on rank 0
  std::unique_ptr<StreamSocket> next;      // to rank + 1; null on the last rank
  std::vector<std::byte> token;            // the bytes rank 0 passed in, on every rank
};

// Rank 0 listens on MASTER_ADDR:MASTER_PORT and accepts WORLD_SIZE - 1 ranks. Every other rank
// connects there (retrying until the listener is up), opens its own listener on an ephemeral port
// and says (rank, port); rank 0 answers each with `token` and where its previous neighbour listens
// (the address rank 0 saw that neighbour connect from). Rank r > 1 then connects to rank r - 1;
// rank 1's link to rank 0 is its rendezvous connection. `token` (rank 0's argument; other ranks
// pass an empty span) carries what all ranks need from rank 0, such as NCCL's unique id.
// Throws RankError when the ranks do not all arrive within `timeout` (naming which are missing),
// on a rank that joins twice or out of range, or on a world size that disagrees with rank 0's.
NeighbourLinks rendezvous(const RankEnv& env, std::span<const std::byte> token,
                          std::chrono::milliseconds timeout);

// A port the kernel has just handed out on 127.0.0.1 and nothing listens on (bound to port 0, read
// back, closed): a MASTER_PORT for a launcher or a test. Throws RankError when none is free.
int freeLoopbackPort();

}  // namespace refmodel

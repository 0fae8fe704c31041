// --ranks N: starts one process per rank of this same program and waits for them.
#pragma once

namespace refmodel {

// Runs /proc/self/exe with `argv` N times, each with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR
// (127.0.0.1) and MASTER_PORT (a free port) set on top of this process's environment. When a rank
// fails, the others are stopped (SIGTERM). Returns the first failing rank's exit code (128 + the
// signal for a rank killed by one), 0 when all succeed, 1 (with a message) when one cannot start.
int launchRanks(int ranks, char** argv);

}  // namespace refmodel

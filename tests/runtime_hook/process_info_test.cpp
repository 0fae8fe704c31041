// Process facts (ranks, command line) and trace file naming/creation.
#include "runtime_hook/process_info.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>

#include "tests/runtime_hook/test_support.h"

using namespace memfloor::hook;
using test::Env;
using test::lookup;

namespace {

std::string tempDir() {
  char pattern[] = "/tmp/memfloor-hook-test-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  return pattern;
}

}  // namespace

TEST_CASE("ranks come from torchrun, then SLURM, then Open MPI", "[runtime_hook]") {
  Env env{{"SLURM_PROCID", "5"},
          {"RANK", "3"},
          {"LOCAL_RANK", "1"},
          {"WORLD_SIZE", "8"},
          {"PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"}};
  ProcessFacts facts = readProcessFacts(lookup, &env);
  CHECK(facts.rank == 3);
  CHECK(facts.local_rank == 1);
  CHECK(facts.world_size == 8);
  CHECK(facts.pid == static_cast<uint64_t>(::getpid()));
  CHECK_FALSE(facts.host.empty());
  CHECK_FALSE(facts.command_line.empty());
  REQUIRE(facts.env.size() == 1);
  CHECK(facts.env[0].first == "env.PYTORCH_CUDA_ALLOC_CONF");
  CHECK(facts.env[0].second == "backend:cudaMallocAsync");

  Env slurm{{"SLURM_PROCID", "5"}, {"OMPI_COMM_WORLD_RANK", "7"}};
  CHECK(readProcessFacts(lookup, &slurm).rank == 5);
  Env bad{{"RANK", "three"}, {"OMPI_COMM_WORLD_RANK", "7"}};
  CHECK(readProcessFacts(lookup, &bad).rank == 7);
  Env none;
  CHECK(readProcessFacts(lookup, &none).rank == -1);
}

TEST_CASE("trace file names carry host, pid and rank", "[runtime_hook]") {
  ProcessFacts facts;
  facts.host = "node1";
  facts.pid = 4242;
  CHECK(traceFileName("/out", facts, 0) == "/out/memfloor.node1.4242.mftrace");
  facts.rank = 3;
  CHECK(traceFileName("/out/", facts, 0) == "/out/memfloor.node1.4242.rank3.mftrace");
  CHECK(traceFileName("/out", facts, 2) == "/out/memfloor.node1.4242.rank3.2.mftrace");
}

TEST_CASE("trace files never overwrite and never follow symlinks", "[runtime_hook]") {
  std::string dir = tempDir();
  ProcessFacts facts;
  facts.host = "h";
  facts.pid = 1;
  std::string first;
  int fd1 = createTraceFile(dir, facts, first);
  REQUIRE(fd1 >= 0);
  CHECK(first == dir + "/memfloor.h.1.mftrace");
  std::string second;
  int fd2 = createTraceFile(dir, facts, second);
  REQUIRE(fd2 >= 0);
  CHECK(second == dir + "/memfloor.h.1.1.mftrace");  // pid reuse: a new name, not an overwrite
  ::close(fd1);
  ::close(fd2);

  // A symlink planted at the name: O_NOFOLLOW|O_EXCL refuses it, and we never write through it.
  facts.pid = 2;
  std::string target = dir + "/victim";
  std::string link = dir + "/memfloor.h.2.mftrace";
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  std::string path;
  int fd3 = createTraceFile(dir, facts, path);
  REQUIRE(fd3 >= 0);
  CHECK(path == dir + "/memfloor.h.2.1.mftrace");
  ::close(fd3);
  struct stat st;
  CHECK(::stat(target.c_str(), &st) != 0);  // the symlink's target was never created

  std::string missing;
  CHECK(createTraceFile(dir + "/no/such/dir", facts, missing) == -1);
  std::string cmd = "rm -rf " + dir;
  CHECK(std::system(cmd.c_str()) == 0);
}

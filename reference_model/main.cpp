// reference_model: trains the GPT workload and prints its own live bytes in every idle window.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>

#include "config.h"
#include "context.h"
#include "cuda_check.h"
#include "launcher.h"
#include "rank_rendezvous.h"
#include "stage_link.h"
#include "trainer.h"

namespace {

constexpr std::chrono::seconds kRendezvousTimeout{120};

// One rank of a job: its GPU, the rendezvous, the link to its neighbours, then its stage.
void runRank(const refmodel::Config& config, const refmodel::RankEnv& env) {
  // With --ranks, validate() holds it equal to --pipeline-stages, and this to WORLD_SIZE.
  refmodel::validateRanks(config, env.world_size);
  int devices = 0;
  REFMODEL_CUDA(cudaGetDeviceCount(&devices));
  if (config.p2p == refmodel::LinkKind::kNccl && env.local_rank >= devices) {
    throw refmodel::ConfigError("--p2p nccl needs one GPU per rank: LOCAL_RANK=" +
                                std::to_string(env.local_rank) + " but " + std::to_string(devices) +
                                " device(s); --p2p host lets ranks share a GPU");
  }
  REFMODEL_CUDA(cudaSetDevice(env.local_rank % devices));
  const auto token = refmodel::ncclIdForRendezvous(config.p2p, env);
  auto link = refmodel::makeStageLink(config.p2p, env,
                                      refmodel::rendezvous(env, token, kRendezvousTimeout));
  refmodel::Context ctx;
  refmodel::Trainer trainer(ctx, config, refmodel::RankPlace{env.rank, env.world_size, link.get()});
  trainer.run(std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    bool help = false;
    std::string help_text;
    const refmodel::Config config = refmodel::parseArgs(argc, argv, help, help_text);
    if (help) {
      std::cout << help_text;
      return 0;
    }
    const std::optional<refmodel::RankEnv> env =
        refmodel::rankEnvFrom([](const char* name) { return std::getenv(name); });
    if (env) {
      runRank(config, *env);
      return 0;
    }
    if (config.ranks > 0) return refmodel::launchRanks(config.ranks, argv);
    refmodel::Context ctx;
    refmodel::Trainer trainer(ctx, config);
    trainer.run(std::cout);
    return 0;
  } catch (const refmodel::ConfigError& e) {
    std::cerr << "reference_model: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "reference_model: error: " << e.what() << "\n";
    return 1;
  }
}

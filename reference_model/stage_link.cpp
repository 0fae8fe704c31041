// Moves pipeline-boundary tensors between the ranks of neighbouring stages: through host memory
// over the rendezvous sockets, or with NCCL point-to-point.
#include "stage_link.h"

#include "host_link.h"
#include "nccl_link.h"

namespace refmodel {

std::vector<std::byte> ncclIdForRendezvous(LinkKind kind, const RankEnv& env) {
  if (kind != LinkKind::kNccl || env.rank != 0) return {};
  return makeNcclUniqueId();
}

std::unique_ptr<StageLink> makeStageLink(LinkKind kind, const RankEnv& env, NeighbourLinks links) {
  if (kind == LinkKind::kNccl) return makeNcclLink(env, links.token);
  return makeHostLink(env, std::move(links));
}

}  // namespace refmodel

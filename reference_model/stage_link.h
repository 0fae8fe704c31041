// Moves pipeline-boundary tensors between the ranks of neighbouring stages: through host memory
// over the rendezvous sockets, or with NCCL point-to-point.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "rank_rendezvous.h"
#include "tensor.h"

namespace refmodel {

class Context;

struct LinkOp {
  bool send;
  int peer_rank;
  Tensor tensor;  // what is sent, or the buffer a receive fills (its size is the message's)
};

class StageLink {
 public:
  virtual ~StageLink() = default;
  // Posts the ops as one group, as torch.distributed.batch_isend_irecv does. On return, work queued
  // on ctx.stream() after this call sees the received data, and the sent tensors may be released.
  virtual void exchange(Context& ctx, const std::vector<LinkOp>& ops) = 0;
  virtual std::string describe() const = 0;
};

// kHost: each sent tensor is copied to the host and written to the neighbour's socket; a thread
// per neighbour reads what arrives into a queue, so a send never waits for the peer's receive and
// any order of sends and receives completes. Works for ranks sharing one GPU.
// kNccl: ncclSend/ncclRecv on the compute stream inside ncclGroupStart/End; libnccl.so.2 is loaded
// at run time. Rank 0 makes NCCL's unique id before the rendezvous (ncclIdForRendezvous) and the
// rendezvous carries it to every rank. NCCL needs one GPU per rank.
std::vector<std::byte> ncclIdForRendezvous(LinkKind kind, const RankEnv& env);
std::unique_ptr<StageLink> makeStageLink(LinkKind kind, const RankEnv& env, NeighbourLinks links);

}  // namespace refmodel

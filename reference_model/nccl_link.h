// The NCCL stage link: ncclSend/ncclRecv between neighbouring ranks, libnccl.so.2 loaded at run time.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "stage_link.h"

namespace refmodel {

// ncclGetUniqueId's bytes (rank 0 only: other ranks get them from the rendezvous).
std::vector<std::byte> makeNcclUniqueId();
std::unique_ptr<StageLink> makeNcclLink(const RankEnv& env, const std::vector<std::byte>& unique_id);

}  // namespace refmodel

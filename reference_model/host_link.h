// The host-staged stage link: device -> host copy, the neighbour's socket, host -> device copy.
#pragma once

#include <memory>

#include "stage_link.h"

namespace refmodel {

std::unique_ptr<StageLink> makeHostLink(const RankEnv& env, NeighbourLinks links);

}  // namespace refmodel

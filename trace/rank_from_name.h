// A rank from a file's name, as a job's files are named one per rank.
#pragma once

#include <cstdint>
#include <string_view>

namespace memfloor::trace {

// The rank a snapshot's file name gives, as a job's snapshots are named one per rank: the number
// after the last "rank" of its base name, with a '_' or '-' between or none ("rank3.pickle",
// "snapshot_rank_12.pickle", "Rank-0.json"); kUnknownRank when there is none.
int32_t rankFromName(std::string_view name);

}  // namespace memfloor::trace

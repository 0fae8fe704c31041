// Runs one pipeline stage's 1F1B program on its own rank: compute steps and boundary transfers.
#pragma once

#include "pipeline_executor.h"
#include "stage_link.h"

namespace refmodel {

class Context;
class GptModel;
struct Config;

// Where this process sits in a job of one rank per pipeline stage.
struct RankPlace {
  int rank = 0;
  int world_size = 1;
  StageLink* link = nullptr;
};

// The options a rank of a multi-process pipeline needs: one stage per rank, the 1F1B schedule, no
// evaluation forward (it would need the whole model). Throws ConfigError.
void validateRanks(const Config& config, int world_size);

// Stage `place.rank` of `place.world_size` runs oneFOneBRankProgram: a forward's input comes from
// the previous rank, its output is sent on and then pseudo-freed; a backward's output gradient
// comes from the next rank and its input gradient is sent back. Everything else is as
// PipelineExecutor does in one process, so the same seed gives the same bits. Returns the
// iteration's loss on the last stage (fp32 [1]) and zeros elsewhere.
class RankExecutor {
 public:
  RankExecutor(GptModel& stage, RankPlace place) : stage_(stage), place_(place) {}
  Tensor run(Context& ctx, const std::vector<MicroBatchData>& data);

 private:
  GptModel& stage_;
  RankPlace place_;
};

}  // namespace refmodel

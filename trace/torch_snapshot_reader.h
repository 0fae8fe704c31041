// Reads a PyTorch memory snapshot into trace/torch_snapshot.h's form: the pickle that
// torch.cuda.memory._dump_snapshot() writes (through common/pickle.h, which runs nothing the file
// names), or the same data as JSON (json.dump of torch.cuda.memory._snapshot()).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "trace/torch_snapshot.h"

namespace memfloor::common {
class PickleValue;
}

namespace memfloor::trace {

// Throw memfloor::Error naming `name` and the place in the document ("device_traces[0][12]:
// 'size' is not an integer") when it is not a snapshot.
TorchSnapshot readTorchSnapshot(const nlohmann::json& root, const std::string& name);
TorchSnapshot readTorchSnapshot(const common::PickleValue& root, const std::string& name);

// The snapshot file at `path` (a pickle when `pickle`, common::looksLikePickle tells; else JSON) as
// a binary trace in memory (encodeTorchSnapshot). Throws memfloor::Error naming the path on
// unusable input.
std::vector<uint8_t> encodeTorchSnapshotFile(const std::string& path, bool pickle);

}  // namespace memfloor::trace

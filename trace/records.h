// The trace records: the in-memory form shared by the writer, the readers and the analysis.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace memfloor::trace {

// Interned ids. 0 always means "none"; the writer hands out ids from 1 upwards.
using StringId = uint32_t;
using FrameId = uint32_t;
using StackId = uint32_t;
using ModuleId = uint32_t;
inline constexpr uint32_t kNoId = 0;

// Which memory an allocation lives in. Values are part of the file format.
enum class MemoryKind : uint8_t {
  kDevice = 0,        // cudaMalloc, cuMemAlloc, cudaMallocAsync, VMM mappings
  kPinned = 1,        // cudaMallocHost / cudaHostAlloc (page-locked host memory)
  kManaged = 2,       // cudaMallocManaged
  kDeviceStatic = 3,  // module globals (__device__ variables)
  kPool = 4,          // memory reserved by a memory pool (not handed out yet)
  kUnknown = 5,
  // 1.2: a block handed out by an allocator inside memory it reserved (PyTorch's caching
  // allocator); the same bytes are also counted by their segment, kind device.
  kBlock = 6,
};
inline constexpr uint8_t kMemoryKindCount = 7;

enum class MarkerType : uint8_t {
  kPush = 0,     // nvtxRangePush: nests per thread, closed by kPop on the same thread
  kPop = 1,      // nvtxRangePop: name is empty, closes the innermost push of its thread
  kStart = 2,    // nvtxRangeStart: closed by kEnd with the same id, from any thread
  kEnd = 3,      // nvtxRangeEnd
  kInstant = 4,  // nvtxMark
};
inline constexpr uint8_t kMarkerTypeCount = 5;

enum class PoolEventType : uint8_t { kCreated = 0, kTrimmed = 1, kDestroyed = 2 };
inline constexpr uint8_t kPoolEventTypeCount = 3;

enum class FrameKind : uint8_t { kNative = 0, kPython = 1 };
inline constexpr uint8_t kFrameKindCount = 2;

enum class DropSource : uint8_t {
  kCupti = 0,   // records CUPTI reported as dropped
  kWriter = 1,  // records the tracer could not buffer
};
inline constexpr uint8_t kDropSourceCount = 2;

// 1.3: what a census found a storage held by, from the edge that named its path. Values are part
// of the file format.
enum class HeldRole : uint8_t {
  kOther = 0,           // an attribute, a container's element, a local, a global, a closure
  kParameter = 1,       // an nn.Module's parameter
  kBuffer = 2,          // an nn.Module's buffer
  kGradient = 3,        // a tensor's .grad
  kOptimizerState = 4,  // an optimizer's state
};
inline constexpr uint8_t kHeldRoleCount = 5;

// 1.4: which end of a training step a step record marks. Values are part of the file format.
enum class StepPhase : uint8_t {
  kBegin = 0,  // its first forward: a module's forward with gradients on, the first since a step
  kEnd = 1,    // the end of its last optimizer step
};
inline constexpr uint8_t kStepPhaseCount = 2;

inline constexpr uint8_t kMemoryFlagAsync = 1;  // stream-ordered (cudaMallocAsync / cudaFreeAsync)
inline constexpr uint8_t kMemoryFlagVmm = 2;    // a virtual memory mapping (cuMemMap / cuMemUnmap)

// ---- definitions: untimed, each one defines an id that later records refer to ----

struct StringDef {
  StringId id = kNoId;
  std::string text;
  bool operator==(const StringDef&) const = default;
};

// A loaded module (shared object or executable) for offline symbolization.
struct ModuleDef {
  ModuleId id = kNoId;
  StringId path = kNoId;
  uint64_t base = 0;  // load address
  uint64_t size = 0;  // bytes mapped
  StringId build_id = kNoId;
  bool operator==(const ModuleDef&) const = default;
};

// One stack frame: a module and an offset, optionally resolved to function/file/line.
struct FrameDef {
  FrameId id = kNoId;
  FrameKind kind = FrameKind::kNative;
  ModuleId module = kNoId;
  uint64_t offset = 0;  // return address minus module base
  StringId function = kNoId;
  StringId file = kNoId;
  uint32_t line = 0;
  bool operator==(const FrameDef&) const = default;
};

// The file of the Python frame put outermost in an allocation's stack for the module whose forward
// (or backward) made it; its function is the module's path in the model,
// "GPT2LMHeadModel.transformer.h.3.attn" (docs/design.md, "Module paths"). No frame of code.
inline constexpr std::string_view kModuleFrameFile = "<nn.Module>";

// A call stack, innermost frame first. The analysis refuses a trace with a deeper one (the hook
// keeps at most 512 frames; a PyTorch snapshot's stacks are read up to this many too).
inline constexpr size_t kMaxStackFrames = 4096;
struct StackDef {
  StackId id = kNoId;
  std::vector<FrameId> frames;
  bool operator==(const StackDef&) const = default;
};

// ---- metadata: untimed ----

inline constexpr int32_t kUnknownRank = -1;

struct ProcessInfo {
  uint64_t pid = 0;
  uint64_t start_unix_ns = 0;  // wall clock at trace start
  StringId host = kNoId;
  StringId command_line = kNoId;  // arguments joined by spaces
  int32_t rank = kUnknownRank;    // RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK
  int32_t local_rank = kUnknownRank;
  int32_t world_size = kUnknownRank;
  bool operator==(const ProcessInfo&) const = default;
};

struct DeviceInfo {
  uint32_t device = 0;
  StringId name = kNoId;
  uint64_t total_memory = 0;
  bool operator==(const DeviceInfo&) const = default;
};

// A free-form setting, e.g. key "env.PYTORCH_CUDA_ALLOC_CONF" or "hook.stacks".
// Key kWarningProperty: what a trace made from another record lost (trace/torch_snapshot.h); the
// analysis lists it with its own warnings.
inline constexpr std::string_view kWarningProperty = "memfloor.warning";
struct Property {
  StringId key = kNoId;
  StringId value = kNoId;
  bool operator==(const Property&) const = default;
};

// ---- events: timed (timestamps in ns, CUPTI's clock) ----

// An allocation or a free; which one is the record's type.
struct MemoryEvent {
  uint64_t timestamp = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t thread = 0;       // OS thread id of the allocating/freeing thread, 0 if unknown
  uint64_t correlation = 0;  // CUPTI correlation id, 0 if unknown
  uint32_t stream = 0;       // 0 if none (synchronous)
  StackId stack = kNoId;
  uint32_t device = 0;
  MemoryKind kind = MemoryKind::kDevice;
  uint8_t flags = 0;  // kMemoryFlag*
  bool operator==(const MemoryEvent&) const = default;
};
struct Alloc : MemoryEvent {
  bool operator==(const Alloc&) const = default;
};
struct Free : MemoryEvent {
  bool operator==(const Free&) const = default;
};

struct PoolEvent {
  uint64_t timestamp = 0;
  uint64_t address = 0;   // pool handle or base address
  uint64_t size = 0;      // reserved bytes
  uint64_t utilized = 0;  // bytes in use
  uint32_t device = 0;
  PoolEventType type = PoolEventType::kCreated;
  uint8_t pool_type = 0;  // CUPTI's memoryPoolType (0 invalid, 1 local, 2 imported)
  bool operator==(const PoolEvent&) const = default;
};

struct Marker {
  uint64_t timestamp = 0;
  uint64_t thread = 0;
  uint64_t id = 0;  // range id pairing kStart with kEnd; 0 for push/pop/instant
  StringId name = kNoId;
  StringId domain = kNoId;
  MarkerType type = MarkerType::kPush;
  bool operator==(const Marker&) const = default;
};

// 1.3: a census of the storages a process holds, taken by a companion (the Python one) in an idle
// window; `storages` Held records with the census's timestamp and device follow it.
struct Census {
  uint64_t timestamp = 0;
  uint64_t objects = 0;      // objects walked
  uint64_t duration_ns = 0;  // what the census took
  uint64_t storages = 0;     // Held records of this census
  uint32_t device = 0;
  uint32_t step = 0;     // the program's training steps when it was taken, 0 if unknown
  bool complete = true;  // false: the walk stopped at its object limit
  bool operator==(const Census&) const = default;
};

// One storage of a census and the shortest named path from a root that holds it.
struct Held {
  uint64_t timestamp = 0;  // its census's
  uint64_t address = 0;    // the storage's first byte
  uint64_t size = 0;       // the storage's bytes
  StringId path = kNoId;   // e.g. "model.layers[1].mlp_norm_manager.tensor"
  StringId via = kNoId;    // autograd nodes on the way ("MulBackward0 > GeluBackward0"), 0 if none
  uint32_t device = 0;
  uint32_t holders = 1;  // distinct root variables that reach it
  HeldRole role = HeldRole::kOther;
  bool operator==(const Held&) const = default;
};

// 1.4: one end of a training step as a companion (the Python one) saw the program take it. The
// end is written once the next step's first forward (or the exit) showed which optimizer step was
// the last, so it can come later in the file than the records after its timestamp.
struct Step {
  uint64_t timestamp = 0;
  uint64_t thread = 0;           // OS thread id of the writing thread, 0 if unknown
  uint32_t step = 0;             // the training step, counted from 1
  uint32_t optimizer_steps = 0;  // kEnd: the optimizer steps it took (several optimizers); kBegin 0
  StepPhase phase = StepPhase::kBegin;
  bool operator==(const Step&) const = default;
};

// ---- bookkeeping ----

struct Dropped {
  DropSource source = DropSource::kCupti;
  uint64_t count = 0;
  bool operator==(const Dropped&) const = default;
};

// Written last by a writer that closed cleanly.
struct Trailer {
  uint64_t record_count = 0;  // records before the trailer
  uint64_t end_timestamp = 0;
  bool operator==(const Trailer&) const = default;
};

// One record. The alternative order is not the on-disk type code (see format.h).
using Record =
    std::variant<StringDef, ModuleDef, FrameDef, StackDef, ProcessInfo, DeviceInfo, Property, Alloc,
                 Free, PoolEvent, Marker, Census, Held, Step, Dropped, Trailer>;

// The timestamp of a timed record, or nullopt-like false for definitions and bookkeeping.
bool isTimed(const Record& record);
uint64_t timestampOf(const Record& record);  // 0 for untimed records

std::string_view toString(MemoryKind kind);
std::string_view toString(MarkerType type);
std::string_view toString(PoolEventType type);
std::string_view toString(FrameKind kind);
std::string_view toString(DropSource source);
std::string_view toString(HeldRole role);
std::string_view toString(StepPhase phase);

}  // namespace memfloor::trace

// The NCCL stage link: ncclSend/ncclRecv between neighbouring ranks, libnccl.so.2 loaded at run time.
#include "nccl_link.h"

#include <dlfcn.h>

#include <cstring>

#include "context.h"

namespace refmodel {

namespace {

// NCCL's C ABI as nccl.h 2.x declares it (stable across 2.x): the calls this link makes. Loading
// the library at run time keeps NCCL out of the build: it comes with the job's environment (pip's
// nvidia-nccl wheels, the CUDA containers), where one GPU per rank makes it usable at all.
using NcclResult = int;
using NcclComm = void*;
constexpr NcclResult kNcclSuccess = 0;
constexpr int kNcclUint8 = 1;  // ncclUint8 in ncclDataType_t
constexpr std::size_t kNcclUniqueIdBytes = 128;
struct NcclUniqueId {
  char internal[kNcclUniqueIdBytes];
};

struct NcclApi {
  NcclResult (*get_unique_id)(NcclUniqueId*) = nullptr;
  NcclResult (*comm_init_rank)(NcclComm*, int, NcclUniqueId, int) = nullptr;
  NcclResult (*comm_destroy)(NcclComm) = nullptr;
  NcclResult (*send)(const void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*recv)(void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*group_start)() = nullptr;
  NcclResult (*group_end)() = nullptr;
  const char* (*get_error_string)(NcclResult) = nullptr;
  NcclResult (*get_version)(int*) = nullptr;
};

template <typename F>
void bind(void* library, const char* name, F& function) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) throw RankError(std::string("libnccl.so.2 has no ") + name);
  function = reinterpret_cast<F>(symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

const NcclApi& ncclApi() {
  static const NcclApi api = [] {
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      throw RankError(std::string("--p2p nccl: cannot load libnccl.so.2 (") + (why ? why : "?") +
                      "); put its directory on LD_LIBRARY_PATH (pip's nvidia-nccl wheel installs it "
                      "under site-packages/nvidia/nccl/lib)");
    }
    NcclApi a;
    bind(library, "ncclGetUniqueId", a.get_unique_id);
    bind(library, "ncclCommInitRank", a.comm_init_rank);
    bind(library, "ncclCommDestroy", a.comm_destroy);
    bind(library, "ncclSend", a.send);
    bind(library, "ncclRecv", a.recv);
    bind(library, "ncclGroupStart", a.group_start);
    bind(library, "ncclGroupEnd", a.group_end);
    bind(library, "ncclGetErrorString", a.get_error_string);
    bind(library, "ncclGetVersion", a.get_version);
    return a;
  }();
  return api;
}

void check(NcclResult result, const char* call) {
  if (result != kNcclSuccess) {
    throw RankError(std::string(call) + ": " + ncclApi().get_error_string(result));
  }
}

class NcclLink final : public StageLink {
 public:
  NcclLink(const RankEnv& env, const std::vector<std::byte>& unique_id) {
    if (unique_id.size() != kNcclUniqueIdBytes) {
      throw RankError("rank " + std::to_string(env.rank) + ": NCCL unique id of " +
                      std::to_string(unique_id.size()) + " bytes from rank 0, expected " +
                      std::to_string(kNcclUniqueIdBytes));
    }
    NcclUniqueId id{};
    std::memcpy(id.internal, unique_id.data(), kNcclUniqueIdBytes);
    check(ncclApi().get_version(&version_), "ncclGetVersion");
    check(ncclApi().comm_init_rank(&comm_, env.world_size, id, env.rank), "ncclCommInitRank");
  }
  ~NcclLink() override {
    if (comm_ != nullptr) ncclApi().comm_destroy(comm_);
  }
  NcclLink(const NcclLink&) = delete;
  NcclLink& operator=(const NcclLink&) = delete;

  void exchange(Context& ctx, const std::vector<LinkOp>& ops) override {
    const NcclApi& nccl = ncclApi();
    check(nccl.group_start(), "ncclGroupStart");
    for (const LinkOp& op : ops) {
      if (op.send) {
        check(nccl.send(op.tensor.data(), op.tensor.nbytes(), kNcclUint8, op.peer_rank, comm_,
                        ctx.stream()),
              "ncclSend");
      } else {
        check(nccl.recv(op.tensor.data(), op.tensor.nbytes(), kNcclUint8, op.peer_rank, comm_,
                        ctx.stream()),
              "ncclRecv");
      }
    }
    check(nccl.group_end(), "ncclGroupEnd");
  }

  std::string describe() const override { return "nccl " + std::to_string(version_); }

 private:
  NcclComm comm_ = nullptr;
  int version_ = 0;
};

}  // namespace

std::vector<std::byte> makeNcclUniqueId() {
  NcclUniqueId id{};
  check(ncclApi().get_unique_id(&id), "ncclGetUniqueId");
  std::vector<std::byte> bytes(kNcclUniqueIdBytes);
  std::memcpy(bytes.data(), id.internal, kNcclUniqueIdBytes);
  return bytes;
}

std::unique_ptr<StageLink> makeNcclLink(const RankEnv& env, const std::vector<std::byte>& unique_id) {
  return std::make_unique<NcclLink>(env, unique_id);
}

}  // namespace refmodel

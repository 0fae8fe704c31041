// Storage semantics: aliases share memory, release() frees it for all aliases, the counter is
// exact.
#include <catch2/catch.hpp>

#include "context.h"
#include "gpu_test_support.h"
#include "schedule_node.h"
#include "tensor.h"

namespace refmodel {
namespace {

TEST_CASE("aliases share storage and the last owner or release() frees it", "[gpu][storage]") {
  if (!testing::gpuAvailable("storage aliasing")) return;
  Context ctx;
  const std::int64_t base = ctx.allocator().liveBytes();
  {
    Tensor a = Tensor::zeros(ctx, {1024}, DType::kFloat32);
    Tensor alias = a.detach();
    Tensor view = a.view({32, 32});
    CHECK(ctx.allocator().liveBytes() - base == 4096);
    CHECK(alias.data() == a.data());
    CHECK(view.storage() == a.storage());
    a = Tensor();
    CHECK(ctx.allocator().liveBytes() - base == 4096);  // the aliases still own it
    SECTION("release frees for every alias at once (resize_(0))") {
      releaseTensorStorage(ctx, {alias});
      CHECK(ctx.allocator().liveBytes() - base == 0);
      CHECK_FALSE(view.storage()->resident());
    }
  }
  CHECK(ctx.allocator().liveBytes() == base);
}

TEST_CASE("record_stream keeps memory until the other stream's work is done", "[gpu][storage]") {
  if (!testing::gpuAvailable("record_stream")) return;
  Context ctx;
  const std::int64_t base = ctx.allocator().liveBytes();
  Tensor a = Tensor::full(ctx, {1 << 20}, DType::kFloat32, 3.f);
  std::vector<float> host(1 << 20);
  cudaStreamSynchronize(ctx.stream());
  // read it on the side stream, then free it from the compute stream
  cudaMemcpyAsync(host.data(), a.data(), a.nbytes(), cudaMemcpyDeviceToHost, ctx.sideStream());
  a.storage()->recordStream(ctx.sideStream());
  a = Tensor();
  Tensor b = Tensor::full(ctx, {1 << 20}, DType::kFloat32, 5.f);  // may reuse the memory
  ctx.synchronize();
  CHECK(host.front() == 3.f);
  CHECK(host.back() == 3.f);
  CHECK(ctx.allocator().liveBytes() - base == static_cast<std::int64_t>(b.nbytes()));
}

TEST_CASE("offload to pinned host memory frees the device copy and reloads on access",
          "[gpu][storage]") {
  if (!testing::gpuAvailable("offload")) return;
  Context ctx;
  const std::int64_t base = ctx.allocator().liveBytes();
  Tensor a = Tensor::full(ctx, {4096}, DType::kFloat32, 7.f);
  a.storage()->offloadToHost(ctx.sideStream());
  CHECK(ctx.allocator().liveBytes() == base);
  CHECK(ctx.allocator().hostLiveBytes() == static_cast<std::int64_t>(a.nbytes()));
  std::vector<float> values = a.toHost(ctx);  // reloads
  CHECK(values[17] == 7.f);
  CHECK(ctx.allocator().liveBytes() - base == static_cast<std::int64_t>(a.nbytes()));
}

}  // namespace
}  // namespace refmodel

// Tests of symbols/site_namer: which frames are the user's code, which frame names a site, and how
// it is written.
#include "symbols/site_namer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/error.h"

namespace memfloor::symbols {
namespace {

using trace::FrameKind;

Frame python(std::string file, uint32_t line, std::string function) {
  Frame f;
  f.kind = FrameKind::kPython;
  f.file = std::move(file);
  f.line = line;
  f.function = std::move(function);
  return f;
}

Frame native(std::string module, uint64_t offset, std::string function = "", std::string file = "",
             uint32_t line = 0) {
  Frame f;
  f.module = std::move(module);
  f.offset = offset;
  f.function = std::move(function);
  f.file = std::move(file);
  f.line = line;
  return f;
}

// A C++ program's frame in its own binary, resolved.
Frame app(std::string file, uint32_t line, std::string function) {
  return native("/opt/app/bin/train", line, std::move(function), std::move(file), line);
}

Stack stack(std::vector<Frame> frames) { return Stack{1, std::move(frames)}; }

// What the CUDA caching allocator and PyTorch put innermost, under every Python frame.
std::vector<Frame> torchNative() {
  return {native("/usr/local/cuda/lib64/libcudart.so.13", 0x1589d),
          native("/venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so", 0x4a10),
          native("/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", 0x77, "at::empty",
                 "/pytorch/aten/src/ATen/Empty.cpp", 88)};
}

Stack pythonStack(std::vector<Frame> python_frames) {
  std::vector<Frame> frames = torchNative();
  frames.insert(frames.end(), python_frames.begin(), python_frames.end());
  frames.push_back(native("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", 0x100));
  frames.push_back(native("/usr/bin/python3.11", 0x200, "main"));
  return stack(std::move(frames));
}

std::string nameOne(const SiteNamer& namer, Stack s) { return namer.name({std::move(s)}).at(0); }

TEST_CASE("Library, interpreter and system frames are not the user's code", "[symbols]") {
  SiteNamer namer;
  CHECK_FALSE(namer.isUserFrame(
      python("/venv/lib/python3.11/site-packages/torch/nn/linear.py", 116, "forward")));
  CHECK_FALSE(namer.isUserFrame(python("/usr/lib/python3/dist-packages/numpy/core.py", 1, "f")));
  CHECK_FALSE(namer.isUserFrame(python("/src/pytorch/torch/nn/modules/module.py", 1, "_call")));
  CHECK_FALSE(namer.isUserFrame(python("torch/nn/modules/module.py", 1, "_call_impl")));
  CHECK_FALSE(namer.isUserFrame(python("/usr/lib/python3.11/threading.py", 1, "run")));
  CHECK_FALSE(namer.isUserFrame(python("<frozen importlib._bootstrap>", 1, "_load")));
  CHECK_FALSE(namer.isUserFrame(native("/usr/local/cuda/lib64/libcublasLt.so.13", 0x10)));
  CHECK_FALSE(namer.isUserFrame(native("/lib/x86_64-linux-gnu/libc.so.6", 0x10)));
  CHECK_FALSE(namer.isUserFrame(native("/lib64/ld-linux-x86-64.so.2", 0x10)));
  CHECK_FALSE(namer.isUserFrame(native("/usr/bin/python3.11", 0x10, "main")));
  // A library resolved with its own sources is still the library.
  CHECK_FALSE(namer.isUserFrame(torchNative()[2]));
  // The C++ standard library's headers, inlined into the user's binary.
  CHECK_FALSE(namer.isUserFrame(app("/usr/include/c++/12/bits/shared_ptr.h", 1010, "make_shared")));
  CHECK_FALSE(namer.isUserFrame(Frame{}));  // no file, no module: nowhere to look

  CHECK(namer.isUserFrame(python("train.py", 42, "forward")));
  CHECK(namer.isUserFrame(python("/home/me/project/model.py", 7, "Block.forward")));
  CHECK(namer.isUserFrame(python("<string>", 1, "<module>")));  // code run by exec()
  CHECK(namer.isUserFrame(app("src/layer.cpp", 53, "Layer::forward")));
  CHECK(namer.isUserFrame(native("/opt/app/bin/train", 0x62db2)));  // the user's, unresolved
  CHECK(namer.isUserFrame(native("reference_model", 0x62db2)));
}

TEST_CASE("Patterns: include wins over exclude, a pattern without a slash is a file name",
          "[symbols]") {
  const Frame mine = python("/venv/lib/python3.11/site-packages/mylib/ops.py", 12, "fused");
  const Frame helper = app("src/util/alloc_helpers.cpp", 9, "allocBuffer");
  const Frame layer = app("src/layer.cpp", 53, "Layer::forward");

  SiteNamer plain;
  CHECK_FALSE(plain.isUserFrame(mine));
  CHECK(plain.isUserFrame(helper));

  SiteNamer tuned({.include = {"*/site-packages/mylib/*"}, .exclude = {"alloc_helpers.cpp"}});
  CHECK(tuned.isUserFrame(mine));  // over the default exclude of site-packages
  CHECK_FALSE(tuned.isUserFrame(helper));
  CHECK(tuned.isUserFrame(layer));

  SiteNamer both({.include = {"*/util/*"}, .exclude = {"*/util/*"}});
  CHECK(both.isUserFrame(helper));

  // With a slash the whole path must match: "util/alloc_helpers.cpp" is not the path.
  SiteNamer whole({.exclude = {"util/alloc_helpers.cpp"}});
  CHECK(whole.isUserFrame(helper));
  SiteNamer glob({.exclude = {"*/util/alloc_helpers.cpp"}});
  CHECK_FALSE(glob.isUserFrame(helper));
  // A module is matched as a file is: an unresolved frame of a library the user names.
  SiteNamer lib({.exclude = {"libvendor.so*"}});
  CHECK_FALSE(lib.isUserFrame(native("/opt/vendor/lib/libvendor.so.2", 0x10)));
}

TEST_CASE("An empty site pattern is an error", "[symbols]") {
  CHECK_THROWS_AS(SiteNamer({.include = {""}}), Error);
  CHECK_THROWS_WITH(SiteNamer({.exclude = {"*/ok/*", ""}}),
                    Catch::Contains("empty site exclude pattern"));
  CHECK_THROWS_WITH(SiteNamer({.include = {""}}), Catch::Contains("empty site include pattern"));
  CHECK_NOTHROW(SiteNamer({.include = {"*"}, .exclude = {"*"}}));
}

TEST_CASE("A Python site is named by its innermost Python frame, the user's line beside it",
          "[symbols]") {
  SiteNamer namer;
  Stack s = pythonStack(
      {python("/venv/lib/python3.11/site-packages/torch/nn/functional.py", 2000, "linear"),
       python("/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", 116, "forward"),
       python("model.py", 42, "forward"), python("train.py", 9, "<module>")});
  CHECK(nameOne(namer, s) == "torch/nn/functional.py:2000 in linear <- model.py:42 in forward");

  // The user's own exclude moves the user's line out to the caller.
  SiteNamer outer({.exclude = {"model.py"}});
  CHECK(nameOne(outer, s) == "torch/nn/functional.py:2000 in linear <- train.py:9 in <module>");

  // The user's own line allocated: that line alone.
  Stack own =
      pythonStack({python("model.py", 40, "Model.forward"), python("train.py", 9, "<module>")});
  CHECK(nameOne(namer, own) == "model.py:40 in Model.forward");

  // No user frame at all (a library's thread): the library's frame alone.
  Stack lib = pythonStack({python("/usr/lib/python3.12/threading.py", 1010, "Thread.run")});
  CHECK(nameOne(namer, lib) == "threading.py:1010 in Thread.run");

  // A trace symbolized with --prefix-map holds paths from the prefix's root: still a library.
  Stack mapped =
      pythonStack({python("site-packages/transformers/trainer.py", 2500, "Trainer.train"),
                   python("train.py", 25, "<module>")});
  CHECK(nameOne(namer, mapped) ==
        "transformers/trainer.py:2500 in Trainer.train <- train.py:25 in <module>");
}

TEST_CASE("A graph that torch.compile generated is written as a compiled graph", "[symbols]") {
  SiteNamer namer;
  const std::string hashed = "cd3nkxhwrdsj7gn4ghhp5arihk3duftxz6pkjsqwrj4xtsapjxoc.py";
  Stack s = pythonStack({python("/tmp/torchinductor_root/d3/" + hashed, 816, "Runner.call"),
                         python("/venv/lib/python3.12/site-packages/torch/_inductor/output_code.py",
                                656, "CompiledFxGraph.__call__"),
                         python("train.py", 36, "main")});
  CHECK(nameOne(namer, s) == "<compiled graph>:816 in Runner.call <- train.py:36 in main");
  // An operator the graph calls through PyTorch's Python op call is named by the graph's line.
  Stack extern_kernel = s;
  extern_kernel.frames.insert(
      extern_kernel.frames.begin() + 3,
      python("/venv/lib/python3.12/site-packages/torch/_ops.py", 865, "OpOverload.__call__"));
  CHECK(nameOne(namer, extern_kernel) ==
        "<compiled graph>:816 in Runner.call <- train.py:36 in main");
  // So is one that a dispatch mode sees on its way (AOTAutograd's, while it runs the graph).
  Stack moded = extern_kernel;
  moded.frames.insert(moded.frames.begin() + 3,
                      python("/venv/lib/python3.12/site-packages/torch/_functorch/_aot_autograd/"
                             "runtime_wrappers.py",
                             409, "_AnalyzeCustomOpInputOutputMode.__torch_dispatch__"));
  CHECK(nameOne(namer, moded) == "<compiled graph>:816 in Runner.call <- train.py:36 in main");
  // Elsewhere (TORCHINDUCTOR_CACHE_DIR) it is told by its hashed name; other files are not.
  CHECK(SiteNamer::write(python("/cache/d3/" + hashed, 5, "call")) == "<compiled graph>:5 in call");
  CHECK(SiteNamer::write(python("/cache/d3/c.py", 5, "call")) == "/cache/d3/c.py:5 in call");
  CHECK_FALSE(namer.isUserFrame(python("/cache/d3/" + hashed, 5, "call")));
  CHECK_FALSE(namer.isUserFrame(python("<eval_with_key>.3", 5, "forward")));
  CHECK(SiteNamer({.include = {"*/d3/*"}}).isUserFrame(python("/cache/d3/" + hashed, 5, "call")));
}

TEST_CASE("A compiled graph whose source the companion told is named after it", "[symbols]") {
  SiteNamer namer;
  const std::string hashed = "cd3nkxhwrdsj7gn4ghhp5arihk3duftxz6pkjsqwrj4xtsapjxoc.py";
  // The companion saw the file written at the recording machine's path; the trace may have been
  // symbolized with --prefix-map since: the file's hashed name is what tells it.
  namer.nameCompiled("/tmp/torchinductor_root/d3/" + hashed, "TransformerEncoder.forward");
  Stack s = pythonStack({python("d3/" + hashed, 873, "Runner.call"),
                         python("/venv/lib/python3.12/site-packages/torch/_inductor/output_code.py",
                                656, "CompiledFxGraph.__call__"),
                         python("train.py", 36, "main")});
  CHECK(nameOne(namer, s) ==
        "<compiled TransformerEncoder.forward>:873 in Runner.call <- train.py:36 in main");
  // Another graph, not told, keeps the plain name.
  const std::string other = "cab7nkxhwrdsj7gn4ghhp5arihk3duftxz6pkjsqwrj4xtsapjxo.py";
  Stack t = pythonStack({python("/tmp/torchinductor_root/ab/" + other, 12, "Runner.call"),
                         python("train.py", 40, "main")});
  CHECK(nameOne(namer, t) == "<compiled graph>:12 in Runner.call <- train.py:40 in main");
  CHECK(SiteNamer::write(python("x/" + hashed, 5, "call"), "step") == "<compiled step>:5 in call");
}

TEST_CASE("Backward on the autograd engine's threads is named by its node", "[symbols]") {
  SiteNamer namer;
  const std::string cpu = "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so";
  auto engine = [&](std::string node_apply) {
    return stack({native("/usr/local/cuda/lib64/libcudart.so.13", 0x41b5e),
                  native(cpu, 0x10, "at::detail::empty_generic(c10::ArrayRef<long>)"),
                  native(cpu, 0x20, node_apply),
                  native(cpu, 0x30, "torch::autograd::Node::operator()(std::vector<at::Tensor>&&)"),
                  native(cpu, 0x40,
                         "torch::autograd::Engine::thread_main(std::shared_ptr<"
                         "torch::autograd::GraphTask> const&)")});
  };
  Stack mm = engine("torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)");
  Stack nll =
      engine("torch::autograd::generated::NllLossBackward0::apply(std::vector<at::Tensor>&&)");
  CHECK(namer.name({mm, nll}) == std::vector<std::string>{"MmBackward0", "NllLossBackward0"});
  // A Python node has no name of its own there: the frames not all share name it, as before.
  Stack py = engine("torch::autograd::PyNode::apply(std::vector<at::Tensor>&&)");
  CHECK(nameOne(namer, py) == "libcudart.so.13+0x41b5e");
  // cuBLAS's workspace made in a backward GEMM is cuBLAS's.
  Stack gemm = stack({native("/usr/lib/libcublasLt.so.13", 0x99), mm.frames[1], mm.frames[2],
                      mm.frames[3], mm.frames[4]});
  CHECK(nameOne(namer, gemm) == "libcublasLt.so.13 via MmBackward0");
}

TEST_CASE("A stack without a user frame is named as before: the first frame not all share",
          "[symbols]") {
  SiteNamer namer;
  const std::string cudart = "/usr/local/cuda/lib64/libcudart.so.13";
  const std::string torch = "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  Stack a = stack({native(cudart, 0x1589d), native(torch, 0x30)});
  Stack b = stack({native(cudart, 0x1589d), native(torch, 0x40)});
  Stack c = stack({native(cudart, 0x1589d), native(torch, 0x50), native(torch, 0x60)});
  CHECK(namer.name({a, b, c}) == std::vector<std::string>{"libtorch_cuda.so+0x30",
                                                          "libtorch_cuda.so+0x40",
                                                          "libtorch_cuda.so+0x50"});
  CHECK(namer.name({a}) == std::vector<std::string>{"libcudart.so.13+0x1589d"});  // alone
  // Copies of one stack (two ids, the same frames) tell nothing apart.
  CHECK(namer.name({a, a}) ==
        std::vector<std::string>{"libcudart.so.13+0x1589d", "libcudart.so.13+0x1589d"});
  // A stack with user frames is named by them, and does not shorten the others' shared frames.
  Stack user = pythonStack({python("train.py", 3, "step")});
  CHECK(namer.name({a, user, b}) == std::vector<std::string>{"libtorch_cuda.so+0x30",
                                                             "train.py:3 in step",
                                                             "libtorch_cuda.so+0x40"});
  CHECK(namer.name({stack({}), a}) ==
        std::vector<std::string>{"(empty stack)", "libcudart.so.13+0x1589d"});
}

TEST_CASE("User frames that all stacks through them share are skipped: a user's allocator",
          "[symbols]") {
  SiteNamer namer;
  const Frame cudart = native("/usr/local/cuda/lib64/libcudart.so.13", 0x1589d, "cudaMallocAsync");
  const Frame allocate = app("src/allocator.cpp", 25, "ns::Allocator::allocate(unsigned long)");
  const Frame empty = app("src/tensor.cpp", 29, "ns::Tensor::empty(std::vector<long> const&)");
  const Frame shared_ptr = app("/usr/include/c++/12/bits/shared_ptr.h", 1010, "std::make_shared");
  const Frame main = app("src/main.cpp", 20, "main");
  Stack layer =
      stack({cudart, allocate, shared_ptr, empty,
             app("src/layer.cpp", 53, "ns::Layer::forward(ns::Tensor const&) const"), main});
  Stack adam = stack({cudart, allocate, shared_ptr, empty,
                      app("src/optimizer.cpp", 17, "ns::Adam::Adam(float)"), main});
  // The same allocation line reached from another caller keeps the line's name.
  Stack layer_again =
      stack({cudart, allocate, shared_ptr, empty,
             app("src/layer.cpp", 53, "ns::Layer::forward(ns::Tensor const&) const"),
             app("src/recompute.cpp", 21, "ns::recompute()"), main});
  // A library's workspace, made by the user's code without the allocator, is its own group: it
  // does not stop the others from skipping the allocator's frames. cuBLAS made it: its name says.
  Stack workspace = stack({native("/usr/local/cuda/lib64/libcublas.so.13", 0x5b45ee),
                           app("src/context.cpp", 16, "ns::Context::Context()"), main});

  CHECK(namer.name({layer, adam, layer_again, workspace}) ==
        std::vector<std::string>{"src/layer.cpp:53 in ns::Layer::forward",
                                 "src/optimizer.cpp:17 in ns::Adam::Adam",
                                 "src/layer.cpp:53 in ns::Layer::forward",
                                 "libcublas.so.13 via src/context.cpp:16 in ns::Context::Context"});
  // Alone, a stack is named by its innermost user frame: nothing to tell apart.
  CHECK(namer.name({layer}) ==
        std::vector<std::string>{"src/allocator.cpp:25 in ns::Allocator::allocate"});
  // Never past the shortest stack's last user frame (a stack cut short).
  Stack cut = stack({cudart, allocate, empty});
  CHECK(namer.name({layer, cut}) ==
        std::vector<std::string>{"src/tensor.cpp:29 in ns::Tensor::empty",
                                 "src/tensor.cpp:29 in ns::Tensor::empty"});
}

TEST_CASE("Stacks alike in their user frames are named by the innermost one", "[symbols]") {
  // One line allocating through two library paths (say, a cache hit and a miss).
  SiteNamer namer;
  const std::vector<Frame> user = {python("model.py", 42, "forward"),
                                   python("train.py", 9, "main")};
  Stack hit = stack({native("/usr/lib/libtorch_cuda.so", 0x10), user[0], user[1]});
  Stack miss = stack({native("/usr/lib/libtorch_cuda.so", 0x20), user[0], user[1]});
  CHECK(namer.name({hit, miss}) ==
        std::vector<std::string>{"model.py:42 in forward", "model.py:42 in forward"});
}

TEST_CASE("NCCL's own allocations are sites of their own, named by the user's line", "[symbols]") {
  SiteNamer namer;
  const Frame nccl_lib =
      native("/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", 0x5a000);
  const Frame cuda = native("/usr/lib/libcuda.so.1", 0x10, "cuMemCreate");
  const Frame setup = python("train.py", 30, "main");
  // The communicator's buffers, made in init_process_group (the hook writes a Python process's
  // native frames after its Python ones), and the user's own tensor made on the same line through
  // PyTorch's allocator.
  Stack comm = stack({python("/venv/lib/python3.12/site-packages/torch/distributed/c10d.py", 9,
                             "init_process_group"),
                      setup, cuda, nccl_lib, native("/venv/torch/lib/libtorch_cuda.so", 0x99),
                      native("/usr/bin/python3.12", 0x200, "main")});
  Stack own = pythonStack({setup});
  CHECK(namer.name({comm, own}) ==
        std::vector<std::string>{
            "libnccl.so.2 via torch/distributed/c10d.py:9 in init_process_group <- train.py:30 in "
            "main",
            "train.py:30 in main"});
  // A C++ program calling NCCL itself; NCCL above the user's frame does not count.
  Stack cpp = stack({cuda, nccl_lib, app("src/link.cpp", 40, "Link::Link")});
  Stack above = stack({cuda, app("src/plugin.cpp", 7, "grow"), nccl_lib});
  CHECK(namer.name({cpp, above}) ==
        std::vector<std::string>{"libnccl.so.2 via src/link.cpp:40 in Link::Link",
                                 "src/plugin.cpp:7 in grow"});
  // Without a user frame, as such stacks are named; a name that is NCCL's frame already says so.
  Stack bare = stack({cuda, nccl_lib, native("/usr/lib/libc.so.6", 0x1)});
  CHECK(namer.name({bare}) == std::vector<std::string>{"libnccl.so.2 via cuMemCreate"});
  Stack bare_other = stack({cuda, native("/usr/lib/libc.so.6", 0x2)});
  CHECK(namer.name({bare, bare_other}) ==
        std::vector<std::string>{"libnccl.so.2+0x5a000", "libc.so.6+0x2"});
}

TEST_CASE("A site's frame is written file:line in function", "[symbols]") {
  CHECK(SiteNamer::write(python("train.py", 42, "forward")) == "train.py:42 in forward");
  CHECK(SiteNamer::write(python("train.py", 1, "<module>")) == "train.py:1 in <module>");
  CHECK(SiteNamer::write(python("train.py", 3, "")) == "train.py:3");
  CHECK(SiteNamer::write(app("path/file.cpp", 53, "void ns::Class<int>::method(int) const")) ==
        "path/file.cpp:53 in ns::Class::method");
  CHECK(SiteNamer::write(native("/opt/app/bin/train", 0x10, "helper", "util.h")) ==
        "util.h in helper");
  CHECK(SiteNamer::write(native("/usr/lib/libcuda.so.1", 0x10, "cuMemAlloc_v2")) ==
        "cuMemAlloc_v2");
  CHECK(SiteNamer::write(native("/usr/lib/libcuda.so.1", 0x1a2b)) == "libcuda.so.1+0x1a2b");
  CHECK(SiteNamer::write(Frame{}) == "?+0x0");
}

TEST_CASE("A module frame names no site and tells no stacks apart", "[site_namer]") {
  SiteNamer namer;
  const Frame line = python("/work/train.py", 25, "<module>");
  const Frame library =
      python("/venv/lib/python3.11/site-packages/transformers/trainer.py", 900, "Trainer.train");
  Stack bare = pythonStack({library, line});
  Stack h0 = bare, h1 = bare;
  h0.frames.push_back(python(std::string(kModuleFile), 0, "GPT2LMHeadModel.transformer.h.0"));
  h1.frames.push_back(python(std::string(kModuleFile), 0, "GPT2LMHeadModel.transformer.h.1"));
  CHECK(isModuleFrame(h0.frames.back()));
  CHECK_FALSE(isModuleFrame(line));
  const std::string expected =
      "transformers/trainer.py:900 in Trainer.train <- /work/train.py:25 in "
      "<module>";
  CHECK(namer.name({bare, h0, h1}) == std::vector<std::string>{expected, expected, expected});
  // A stack of a module frame alone (no frame of code was captured) has nothing to name it.
  CHECK(nameOne(namer, stack({h0.frames.back()})) == "(empty stack)");
}

}  // namespace
}  // namespace memfloor::symbols

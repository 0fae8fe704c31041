// memfloor-gen-trace: writes synthetic training traces of any size for benchmarks and the demo.
//
// Each iteration allocates activations in forward and frees them in backward (LIFO address reuse,
// as a pool allocator does), allocates and frees short-lived temporaries, and ends with an idle
// window. Two threads' records go into separate buffers that are flushed as whole chunks when
// full, so chunks overlap in time as CUPTI buffers do. Options add the two retention shapes the
// analysis must find: a buffer kept from one iteration into the next (inter-iteration, the first
// seed's shape) and a buffer never freed (a leak). Two more make the trace one of PyTorch's caching
// allocator as the Python companion records it: --blocks makes every allocation a block (kind
// block) inside segments (kind device) reserved as the blocks reach past them, and --censuses adds
// a census in the idle window after iterations 2, 4, 8, 16... (the companion's default), with a
// held storage for each weight and the kept buffer.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "trace/records.h"
#include "trace/sink.h"
#include "trace/writer.h"

namespace {

using namespace memfloor::trace;

struct Options {
  std::string output;
  uint64_t events = 1'000'000;  // allocation and free records, approximately
  uint32_t persistent = 200;    // weights allocated before the first iteration
  uint32_t activations = 64;    // activations per iteration (alive forward -> backward)
  uint64_t retain_bytes = 0;    // per iteration, kept into the next iteration
  uint64_t leak_bytes = 0;      // per iteration, never freed
  uint32_t buffer_records = 4096;
  uint32_t seed = 1;
  bool blocks = false;    // allocations are allocator blocks inside reserved segments
  bool censuses = false;  // a census of the weights and the kept buffer after iterations 2, 4, 8...
};

constexpr uint64_t kThreadMain = 1001;
constexpr uint64_t kThreadSide = 1002;
constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kSegmentBytes = uint64_t{64} << 20;  // reserved at a time with --blocks
constexpr StringId kWeightPaths = 100000;               // + weight: "model.layers[i].weight"
constexpr StringId kKeptPath = kWeightPaths - 1;        // "model.cache.tensor"

// Hands out addresses LIFO per size class, as caching allocators do, so addresses repeat fast.
class AddressPool {
 public:
  uint64_t take(uint64_t size) {
    auto& free_list = free_[sizeClass(size)];
    if (!free_list.empty()) {
      uint64_t address = free_list.back();
      free_list.pop_back();
      return address;
    }
    uint64_t address = next_;
    next_ += (size + 511) / 512 * 512;
    return address;
  }
  void give(uint64_t address, uint64_t size) { free_[sizeClass(size)].push_back(address); }
  // The end of the addresses handed out so far.
  uint64_t end() const { return next_; }

 private:
  static size_t sizeClass(uint64_t size) { return static_cast<size_t>(std::bit_width(size)); }
  std::vector<uint64_t> free_[65];
  uint64_t next_ = kBase;
};

class Generator {
 public:
  Generator(const Options& options, Writer& writer)
      : options_(options), writer_(writer), rng_(options.seed) {}

  bool run() {
    bool ok = writer_.begin() && defineSites();
    for (uint32_t i = 0; ok && i < options_.persistent; ++i) ok = alloc(1 << 20, kSiteWeights);
    persistent_.swap(live_);
    uint32_t iteration = 0;
    while (ok && emitted_ < options_.events) ok = runIteration(++iteration);
    return ok && flushBuffers() && writer_.finish(now_);
  }

  uint64_t emitted() const { return emitted_; }

 private:
  enum Site : StackId {
    kSiteWeights = 1,
    kSiteActivation,
    kSiteTemporary,
    kSiteRetained,
    kSiteLeak,
    kSiteSegment,
  };
  struct Live {
    uint64_t address, size;
  };

  bool defineSites() {
    const char* names[] = {"init_weights",    "Layer::forward",
                           "gemm_workspace",  "HyperConnectionLayer::forwardPostMlp",
                           "Cache::remember", "CUDACachingAllocator::malloc"};
    bool ok = writer_.write(Record{StringDef{1, "train"}}) &&
              writer_.write(Record{ModuleDef{1, 1, 0x400000, 0x100000, kNoId}});
    const uint32_t sites = options_.blocks ? kSiteSegment : kSiteLeak;  // segments' with blocks
    for (uint32_t s = 0; ok && s < sites; ++s) {
      StringId fn = 10 + s;
      FrameId frames[2] = {s + 1, 100};
      ok = writer_.writeString(fn, names[s]) &&
           writer_.write(
               Record{FrameDef{s + 1, FrameKind::kNative, 1, 0x1000 + s * 64, fn, 1, 10 + s}}) &&
           (s != 0 || writer_.write(Record{FrameDef{100, FrameKind::kNative, 1, 0x40, 1, 1, 1}})) &&
           writer_.writeStack(s + 1, frames, 2);
    }
    if (options_.censuses) {
      ok = ok && writer_.writeString(kKeptPath, "model.cache.tensor");
      for (uint32_t w = 0; ok && w < options_.persistent; ++w) {
        ok = writer_.writeString(kWeightPaths + w, fmt::format("model.layers[{}].weight", w));
      }
    }
    return ok;
  }

  bool runIteration(uint32_t iteration) {
    bool ok = marker(MarkerType::kPush, iteration);
    std::vector<Live> activations;
    for (uint32_t a = 0; ok && a < options_.activations; ++a) {
      ok = alloc(sizeDist(rng_), kSiteActivation) && temporaries(2);
      activations.push_back(live_.back());
      live_.pop_back();
    }
    if (!retained_.empty()) ok = ok && release(retained_);  // freed in the next forward
    if (ok && options_.retain_bytes) {
      ok = alloc(options_.retain_bytes, kSiteRetained);
      retained_.push_back(live_.back());
      live_.pop_back();
    }
    if (options_.leak_bytes) ok = ok && alloc(options_.leak_bytes, kSiteLeak);
    while (ok && !activations.empty()) {
      ok = temporaries(1) && release(activations);
    }
    ok = ok && marker(MarkerType::kPop, iteration);
    // As the companion's default (`--census auto`): after steps 2, 4, 8, 16...
    if (options_.censuses && iteration >= 2 && std::has_single_bit(iteration)) ok = ok && census();
    now_ += 50'000;  // the idle window
    return ok && temporaries(1);
  }

  // A census of the weights and the kept buffer, as the companion takes one in the idle window.
  bool census() {
    now_ += 10;
    const uint64_t storages = persistent_.size() + retained_.size();
    bool ok =
        emit(Record{Census{now_, 10 * storages, 1'000'000, storages, 0, 0, true}}, kThreadMain);
    for (size_t w = 0; ok && w < persistent_.size(); ++w) {
      ok = emit(
          Record{Held{now_, persistent_[w].address, persistent_[w].size,
                      kWeightPaths + static_cast<StringId>(w), kNoId, 0, 1, HeldRole::kParameter}},
          kThreadMain);
    }
    for (const Live& kept : retained_) {
      ok = ok && emit(Record{Held{now_, kept.address, kept.size, kKeptPath, kNoId, 0, 1,
                                  HeldRole::kOther}},
                      kThreadMain);
    }
    return ok;
  }

  bool temporaries(int count) {
    bool ok = true;
    for (int t = 0; ok && t < count; ++t) {
      ok = alloc(4096 << (rng_() % 6), kSiteTemporary, kThreadSide) && release(live_, kThreadSide);
    }
    return ok;
  }

  bool alloc(uint64_t size, StackId site, uint64_t thread = kThreadMain) {
    Alloc a;
    const uint64_t address = pool_.take(size);
    // A block reaching past the segments reserved so far reserves more first, adjacent to them
    // (a block may span two, as under expandable segments).
    bool ok = true;
    while (ok && options_.blocks && pool_.end() > reserved_end_) {
      Alloc segment;
      fill(segment, reserved_end_, kSegmentBytes, kSiteSegment, thread);
      reserved_end_ += kSegmentBytes;
      ok = emit(Record{segment}, thread);
    }
    fill(a, address, size, site, thread);
    if (options_.blocks) a.kind = MemoryKind::kBlock;
    live_.push_back({a.address, a.size});
    return ok && emit(Record{a}, thread);
  }

  bool release(std::vector<Live>& from, uint64_t thread = kThreadMain) {
    Live l = from.back();
    from.pop_back();
    Free f;
    fill(f, l.address, l.size, kNoId, thread);
    if (options_.blocks) f.kind = MemoryKind::kBlock;
    pool_.give(l.address, l.size);
    return emit(Record{f}, thread);
  }

  void fill(MemoryEvent& e, uint64_t address, uint64_t size, StackId stack, uint64_t thread) {
    now_ += 100 + rng_() % 400;
    e.timestamp = now_;
    e.address = address;
    e.size = size;
    e.thread = thread;
    e.correlation = ++correlation_;
    e.stream = 7;
    e.stack = stack;
    e.flags = kMemoryFlagAsync;
    ++emitted_;
  }

  bool marker(MarkerType type, uint32_t iteration) {
    now_ += 10;
    Marker m{now_, kThreadMain, 0, kNoId, kNoId, type};
    if (type == MarkerType::kPush) {
      m.name = 1000 + iteration;
      if (!writer_.writeString(m.name, fmt::format("iteration {}", iteration))) return false;
    }
    return emit(Record{m}, kThreadMain);
  }

  // Each thread's records wait in its own buffer, written as one chunk when full.
  bool emit(Record record, uint64_t thread) {
    auto& buffer = thread == kThreadMain ? main_buffer_ : side_buffer_;
    buffer.push_back(std::move(record));
    return buffer.size() < options_.buffer_records || flushBuffer(buffer);
  }
  bool flushBuffer(std::vector<Record>& buffer) {
    bool ok = true;
    for (const Record& r : buffer) ok = ok && writer_.write(r);
    buffer.clear();
    return ok && writer_.flush();
  }
  bool flushBuffers() { return flushBuffer(main_buffer_) && flushBuffer(side_buffer_); }

  const Options& options_;
  Writer& writer_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<uint64_t> sizeDist{1 << 16, 1 << 22};
  AddressPool pool_;
  std::vector<Live> live_, persistent_, retained_;
  std::vector<Record> main_buffer_, side_buffer_;
  uint64_t reserved_end_ = kBase;  // with --blocks: the segments cover [kBase, reserved_end_)
  uint64_t now_ = 1'000'000;
  uint64_t correlation_ = 0;
  uint64_t emitted_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"memfloor-gen-trace: write a synthetic training trace"};
  app.add_option("-o,--output", options.output, "trace to create")->required();
  app.add_option("--events", options.events, "alloc + free records (approximate)");
  app.add_option("--persistent", options.persistent, "1 MiB weights allocated up front");
  app.add_option("--activations", options.activations, "activations per iteration");
  app.add_option("--retain-bytes", options.retain_bytes, "kept from one iteration into the next");
  app.add_option("--leak-bytes", options.leak_bytes, "never freed, per iteration");
  app.add_option("--buffer-records", options.buffer_records, "records per out-of-order buffer");
  app.add_option("--seed", options.seed, "random seed");
  app.add_flag("--blocks", options.blocks,
               "allocator blocks (kind block) inside segments (kind device) reserved as needed");
  app.add_flag("--censuses", options.censuses,
               "a census of the weights and the kept buffer after iterations 2, 4, 8...");
  uint32_t chunk_bytes = Writer::kDefaultChunkBytes;
  app.add_option("--chunk-bytes", chunk_bytes,
                 "chunk body size of the trace (the writer's default)");
  CLI11_PARSE(app, argc, argv);

  int fd = FileSink::createExclusive(options.output.c_str());
  if (fd < 0) {
    fmt::print(stderr, "memfloor-gen-trace: error: {}: cannot create (must not exist)\n",
               options.output);
    return 2;
  }
  FileSink sink(fd);
  Writer writer(sink, chunk_bytes);
  Generator generator(options, writer);
  if (!generator.run()) {
    fmt::print(stderr, "memfloor-gen-trace: error: {}: write failed\n", options.output);
    return 2;
  }
  fmt::print("{} events written to {}\n", generator.emitted(), options.output);
  return 0;
}

// [gpu] The hook end to end: tests/gpu/alloc_paths under `memfloor run`, its trace compared with
// what the program says it did: exactly the same allocations, frees, bytes and markers.
// Skips (visibly) without a GPU. Binaries: $MEMFLOOR_TEST_BIN_DIR (the device machine), else the
// build tree.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_command.h"
#include "trace/reader.h"
#include "trace/source.h"

using namespace memfloor;
namespace fs = std::filesystem;

namespace {

std::string binary(const char* name, const char* built) {
  if (const char* dir = std::getenv("MEMFLOOR_TEST_BIN_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/" + name;
  }
  return built;
}

bool haveGpu() {
  struct stat st;
  return ::stat("/dev/nvidiactl", &st) == 0 || ::stat("/dev/nvidia0", &st) == 0;
}

// The kinds the program allocates; device-static and the rest are not its doing.
bool programKind(trace::MemoryKind kind) {
  return kind == trace::MemoryKind::kDevice || kind == trace::MemoryKind::kPinned ||
         kind == trace::MemoryKind::kManaged;
}

std::string line(char what, const trace::MemoryEvent& e) {
  std::ostringstream s;
  s << what << ' ' << trace::toString(e.kind) << ' ' << std::hex << e.address << std::dec << ' '
    << e.size << ' ' << static_cast<int>(e.flags);
  return s.str();
}

struct Traced {
  std::multiset<std::string> memory;  // "A ..." / "F ..." lines
  std::vector<std::string> markers;   // NVTX markers in file order ("M push name")
  std::vector<std::string> api_markers;
  std::vector<uint64_t> range_ids;  // start/end ids
  size_t with_stack = 0;
  size_t with_thread = 0;
  size_t allocs = 0;
  uint64_t dropped = 0;
  size_t device_static = 0;
  trace::Ending ending = trace::Ending::kCorrupt;
};

Traced readTrace(const std::string& path) {
  Traced t;
  std::map<trace::StringId, std::string> strings;
  trace::FileSource source(path);
  trace::FileOrderReader reader(source);
  trace::Record r;
  static const char* kTypes[] = {"push", "pop", "start", "end", "instant"};
  while (reader.next(r)) {
    if (auto* s = std::get_if<trace::StringDef>(&r)) strings[s->id] = s->text;
    const trace::MemoryEvent* event = nullptr;
    char what = 0;
    if (auto* a = std::get_if<trace::Alloc>(&r)) {
      event = a;
      what = 'A';
    }
    if (auto* f = std::get_if<trace::Free>(&r)) {
      event = f;
      what = 'F';
    }
    if (event != nullptr) {
      if (event->kind == trace::MemoryKind::kDeviceStatic) ++t.device_static;
      if (!programKind(event->kind)) continue;
      t.memory.insert(line(what, *event));
      if (what == 'A') {
        ++t.allocs;
        t.with_stack += event->stack != trace::kNoId ? 1 : 0;
        t.with_thread += event->thread != 0 ? 1 : 0;
      }
    }
    if (auto* m = std::get_if<trace::Marker>(&r)) {
      std::string name = m->name != trace::kNoId ? strings[m->name] : "-";
      std::string text = std::string("M ") + kTypes[static_cast<int>(m->type)] + " " + name;
      bool api = m->domain != trace::kNoId && strings[m->domain] == "memfloor";
      (api ? t.api_markers : t.markers).push_back(text);
      if (m->type == trace::MarkerType::kStart || m->type == trace::MarkerType::kEnd) {
        t.range_ids.push_back(m->id);
      }
    }
    if (auto* d = std::get_if<trace::Dropped>(&r)) t.dropped += d->count;
  }
  t.ending = reader.end().ending;
  return t;
}

void compareRun(const std::string& stacks) {
  std::string program = binary("memfloor_alloc_paths", MEMFLOOR_ALLOC_PATHS_BIN);
  std::string hook = binary("libmemfloor_hook.so", MEMFLOOR_HOOK_LIB);
  char pattern[] = "/tmp/memfloor-gpu-test-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  std::string dir = pattern;
  std::string expect = dir + "/expected.txt";

  cli::RunRequest request;
  request.command = {program, "--expect", expect};
  request.hook_path = hook;
  request.output_dir = dir;
  request.stacks = stacks;
  request.quiet = true;
  REQUIRE(cli::runTraced(request) == 0);

  std::vector<std::string> traces;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".mftrace") traces.push_back(entry.path().string());
  }
  REQUIRE(traces.size() == 1);
  Traced t = readTrace(traces[0]);

  std::multiset<std::string> expected_memory;
  std::vector<std::string> expected_markers;
  size_t expected_allocs = 0;
  unsigned long long expected_bytes = 0;
  std::ifstream in(expect);
  for (std::string l; std::getline(in, l);) {
    if (l[0] == 'M') {
      expected_markers.push_back(l);
    } else {
      expected_memory.insert(l);
      if (l[0] == 'A') {
        ++expected_allocs;
        expected_bytes += std::stoull(l.substr(l.rfind(' ', l.size() - 3) + 1));
      }
    }
  }
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(expected_memory.begin(), expected_memory.end(), t.memory.begin(),
                      t.memory.end(), std::back_inserter(missing));
  std::set_difference(t.memory.begin(), t.memory.end(), expected_memory.begin(),
                      expected_memory.end(), std::back_inserter(extra));
  for (size_t i = 0; i < missing.size() && i < 10; ++i) UNSCOPED_INFO("missing: " << missing[i]);
  for (size_t i = 0; i < extra.size() && i < 10; ++i) UNSCOPED_INFO("extra: " << extra[i]);
  std::printf(
      "gpu-check alloc_paths stacks=%s: expected %zu records (%zu allocs, %llu bytes), traced "
      "%zu, missing %zu, extra %zu; markers %zu/%zu; api markers %zu; allocs with stack %zu, "
      "with thread %zu; device-static %zu; dropped %llu; ending %s\n",
      stacks.c_str(), expected_memory.size(), expected_allocs, expected_bytes, t.memory.size(),
      missing.size(), extra.size(), t.markers.size(), expected_markers.size(), t.api_markers.size(),
      t.with_stack, t.with_thread, t.device_static, static_cast<unsigned long long>(t.dropped),
      t.ending == trace::Ending::kTrailer ? "trailer" : "NO TRAILER");
  std::fflush(stdout);
  CHECK(missing.empty());
  CHECK(extra.empty());
  CHECK(t.markers == expected_markers);
  REQUIRE(t.range_ids.size() == 2);
  CHECK(t.range_ids[0] != 0);
  CHECK(t.range_ids[0] == t.range_ids[1]);
  CHECK(t.api_markers == std::vector<std::string>{"M push api marker", "M pop -"});
  CHECK(t.dropped == 0);
  CHECK(t.ending == trace::Ending::kTrailer);
  if (stacks == "native") {
    CHECK(t.with_stack == t.allocs);
    CHECK(t.with_thread == t.allocs);
  }
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("alloc_paths: the trace holds exactly what the program did", "[gpu]") {
  if (!haveGpu()) {
    WARN("SKIPPED: no GPU on this machine");
    return;
  }
  SECTION("stacks none") { compareRun("none"); }
  SECTION("stacks native") { compareRun("native"); }
}

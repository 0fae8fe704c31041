// memfloor_trace_probe: a small reader for the GPU checks. Prints a one-line summary of a trace
// and, with --live-at REGEX, the live device bytes at every push/start marker whose name matches:
//   live <name> <timestamp> total=<device bytes> async=<bytes of stream-ordered allocations>
// Replays in timestamp order (CUPTI delivers records out of order), pairing frees with the live
// allocation at the same address.
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <regex>
#include <string>
#include <unordered_map>

#include "trace/reader.h"
#include "trace/source.h"

using namespace memfloor;

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::strcmp(argv[2], "--live-at") == 0)) {
    std::fprintf(stderr, "usage: %s TRACE [--live-at REGEX]\n", argv[0]);
    return 2;
  }
  try {
    std::regex pattern(argc == 4 ? argv[3] : ".*", std::regex::ECMAScript | std::regex::icase);
    trace::FileSource source(argv[1]);
    trace::TimeOrderReader reader(source);
    std::unordered_map<trace::StringId, std::string> strings;
    struct Live {
      uint64_t size;
      bool async;
    };
    std::unordered_map<uint64_t, Live> live;  // device memory by address
    uint64_t live_total = 0;
    uint64_t live_async = 0;
    std::map<std::string, uint64_t> counts;
    uint64_t unmatched_frees = 0;
    uint64_t dropped = 0;
    trace::Record r;
    while (reader.next(r)) {
      if (auto* s = std::get_if<trace::StringDef>(&r)) strings[s->id] = s->text;
      if (auto* a = std::get_if<trace::Alloc>(&r)) {
        ++counts[std::string("alloc.") + std::string(trace::toString(a->kind))];
        if (a->kind == trace::MemoryKind::kDevice) {
          bool async = (a->flags & trace::kMemoryFlagAsync) != 0;
          auto [it, inserted] = live.emplace(a->address, Live{a->size, async});
          if (!inserted) {  // an alloc over a live one: the free was lost
            ++counts["alloc.over_live"];
            live_total -= it->second.size;
            if (it->second.async) live_async -= it->second.size;
            it->second = Live{a->size, async};
          }
          live_total += a->size;
          if (async) live_async += a->size;
        }
      }
      if (auto* f = std::get_if<trace::Free>(&r)) {
        ++counts[std::string("free.") + std::string(trace::toString(f->kind))];
        if (f->kind == trace::MemoryKind::kDevice) {
          auto it = live.find(f->address);
          if (it == live.end()) {
            ++unmatched_frees;
          } else {
            live_total -= it->second.size;
            if (it->second.async) live_async -= it->second.size;
            live.erase(it);
          }
        }
      }
      if (auto* m = std::get_if<trace::Marker>(&r)) {
        ++counts[std::string("marker.") + std::string(trace::toString(m->type))];
        bool opens = m->type == trace::MarkerType::kPush || m->type == trace::MarkerType::kStart;
        std::string name = strings[m->name];
        if (argc == 4 && opens && std::regex_match(name, pattern)) {
          std::printf("live %s %llu total=%llu async=%llu\n", name.c_str(),
                      static_cast<unsigned long long>(m->timestamp),
                      static_cast<unsigned long long>(live_total),
                      static_cast<unsigned long long>(live_async));
        }
      }
      if (auto* d = std::get_if<trace::Dropped>(&r)) dropped += d->count;
    }
    std::printf("summary %s:", argv[1]);
    for (const auto& [key, n] : counts) {
      std::printf(" %s=%llu", key.c_str(), static_cast<unsigned long long>(n));
    }
    std::printf(" unmatched_frees=%llu dropped=%llu end=\"%s\"\n",
                static_cast<unsigned long long>(unmatched_frees),
                static_cast<unsigned long long>(dropped), trace::describe(reader.end()).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memfloor_trace_probe: %s\n", e.what());
    return 2;
  }
}

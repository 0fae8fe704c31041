// The hook's frame walk, callable from Python through ctypes: ctypes.CDLL releases the GIL around
// a call (as PyTorch does around its operators), ctypes.PyDLL keeps it. test_python_frames.py
// compares what the walk reads with what the interpreter itself says.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "runtime_hook/python_frames.h"

namespace {

using memfloor::hook::PythonFrameRef;
using memfloor::hook::PythonFrames;

constexpr size_t kMaxFrames = 256;
constexpr useconds_t kUsPerMs = 1000;

const PythonFrames* frames(std::string& why) {
  static std::string reason;
  static std::unique_ptr<PythonFrames> found = PythonFrames::find(reason);
  why = reason;
  return found.get();
}

// "file\tfunction\tline\n" per frame, innermost first; -1 and the reason when there is no walk.
int walk(char* out, size_t capacity, int max) {
  std::string why;
  const PythonFrames* walker = frames(why);
  std::string text;
  int count = -1;
  if (walker == nullptr) {
    text = why;
  } else {
    PythonFrameRef refs[kMaxFrames];
    size_t limit =
        max > 0 && static_cast<size_t>(max) < kMaxFrames ? static_cast<size_t>(max) : kMaxFrames;
    size_t n = walker->capture(refs, limit);
    for (size_t i = 0; i < n; ++i) {
      std::string file, function;
      uint32_t line = 0;
      walker->describe(refs[i], file, function, line);
      text += file + "\t" + function + "\t" + std::to_string(line) + "\n";
    }
    count = static_cast<int>(n);
  }
  if (capacity > 0) std::snprintf(out, capacity, "%s", text.c_str());
  return count;
}

struct ThreadWalk {
  char* out;
  size_t capacity;
  int result;
};

void* walkInThread(void* arg) {
  auto* w = static_cast<ThreadWalk*>(arg);
  w->result = walk(w->out, w->capacity, 0);
  return nullptr;
}

}  // namespace

extern "C" {

// The caller's frames after delay_ms (another thread may take the GIL meanwhile).
__attribute__((visibility("default"))) int memfloor_probe_frames(char* out, size_t capacity,
                                                                 int max, int delay_ms) {
  if (delay_ms > 0) ::usleep(static_cast<useconds_t>(delay_ms) * kUsPerMs);
  return walk(out, capacity, max);
}

// The frames of a new native thread, which has no Python thread state.
__attribute__((visibility("default"))) int memfloor_probe_frames_in_new_thread(char* out,
                                                                               size_t capacity) {
  ThreadWalk w{out, capacity, -2};
  pthread_t thread;
  if (pthread_create(&thread, nullptr, walkInThread, &w) != 0) return -2;
  pthread_join(thread, nullptr);
  return w.result;
}

// Sleeps; called through PyDLL it holds the GIL meanwhile.
__attribute__((visibility("default"))) void memfloor_probe_sleep(int ms) {
  ::usleep(static_cast<useconds_t>(ms) * kUsPerMs);
}

// The version the walk supports in this process, or why it cannot walk.
__attribute__((visibility("default"))) int memfloor_probe_version(char* out, size_t capacity) {
  std::string why;
  const PythonFrames* walker = frames(why);
  std::snprintf(out, capacity, "%s", walker != nullptr ? walker->version().c_str() : why.c_str());
  return walker != nullptr ? 1 : 0;
}
}

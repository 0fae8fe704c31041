// CPython's frames of the calling thread, read without the GIL, for the stacks of allocations in
// Python processes.
//
// Why without the GIL: PyTorch releases it around its operators, and its caching allocator calls
// cudaMalloc while holding its own mutex; taking the GIL there deadlocks against a thread that
// holds the GIL and waits for that mutex. A thread's frames change only while that thread runs
// Python, so the thread itself, stopped inside a CUDA call, can read them: no lock taken, no
// reference count touched, nothing allocated by the interpreter. Each frame is kept as (code
// object, instruction offset); names and lines are read once per new pair, by the same thread,
// before it returns to Python.
//
// The layouts are CPython's private structs, so each supported minor version has its own table
// (3.11 and 3.12); the code object's field offsets are read from the interpreter itself
// (PyCode_Type's member table). Any other version, a debug build, or an interpreter without the
// symbols leaves Python frames off with a reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace memfloor::hook {

struct PythonFrameRef {
  uint64_t code = 0;   // the code object's address
  int64_t offset = 0;  // byte offset of the instruction in the code's bytecode (-2: not started)
};

// Names a frame captured by the calling thread, while its code object is alive (before the
// thread returns to Python). An interface, so stack interning is testable without an interpreter.
class PythonFrameNamer {
 public:
  virtual ~PythonFrameNamer() = default;
  virtual void describe(const PythonFrameRef& ref, std::string& file, std::string& function,
                        uint32_t& line) const = 0;
};

class PythonFrames final : public PythonFrameNamer {
 public:
  struct Layout;  // one supported CPython's private offsets (python_frames.cpp)
  struct Api;     // the interpreter's functions and objects found in the process

  // The CPython running in this process, if it is a supported one; otherwise null, with the
  // reason in why ("no Python interpreter in this process" when there is none).
  static std::unique_ptr<PythonFrames> find(std::string& why);
  // Whether any CPython runs in this process, supported or not.
  static bool interpreterPresent();
  ~PythonFrames() override;
  PythonFrames(const PythonFrames&) = delete;
  PythonFrames& operator=(const PythonFrames&) = delete;

  // The calling thread's Python frames, innermost first, at most max. Zero for a thread without
  // a Python thread state or frames, and once the interpreter is finalizing.
  size_t capture(PythonFrameRef* out, size_t max) const;

  // File, qualified function name and line of a frame that capture() returned in this thread.
  void describe(const PythonFrameRef& ref, std::string& file, std::string& function,
                uint32_t& line) const override;

  const std::string& version() const { return version_; }  // "3.12.3"

 private:
  PythonFrames(const Layout& layout, std::unique_ptr<Api> api, std::string version);
  std::string readString(uint64_t object) const;

  const Layout& layout_;
  std::unique_ptr<Api> api_;
  std::string version_;
};

}  // namespace memfloor::hook

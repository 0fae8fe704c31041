// The GIL-free frame walk over CPython 3.11 and 3.12's private structs.
#include "runtime_hook/python_frames.h"

#include <dlfcn.h>

#include <cstring>

namespace memfloor::hook {

// Offsets in CPython's private structs (Include/cpython/pystate.h, Include/internal/
// pycore_frame.h, Include/cpython/unicodeobject.h of each version), for x86-64 and aarch64
// release builds.
struct PythonFrames::Layout {
  unsigned minor;
  size_t tstate_cframe;   // PyThreadState.cframe
  size_t cframe_current;  // _PyCFrame.current_frame
  size_t frame_code;      // _PyInterpreterFrame.f_code
  size_t frame_previous;  // _PyInterpreterFrame.previous
  size_t frame_instr;     // _PyInterpreterFrame.prev_instr
  size_t frame_owner;     // _PyInterpreterFrame.owner (a char)
  int cstack_owner;       // FRAME_OWNED_BY_CSTACK: a shim frame, no Python code (-1: none)
  size_t ascii_size;      // sizeof(PyASCIIObject): where a compact ASCII string's bytes start
  size_t compact_utf8;    // PyCompactUnicodeObject.utf8 (its utf8_length precedes it)
  size_t compact_size;    // sizeof(PyCompactUnicodeObject): a compact non-ASCII string's data
};

namespace {

constexpr PythonFrames::Layout kLayouts[] = {
    // 3.11: frames {f_func, f_globals, f_builtins, f_locals, f_code, frame_obj, previous,
    // prev_instr, stacktop, is_entry, owner}; strings still carry wstr.
    {11, 56, 8, 32, 48, 56, 69, -1, 48, 56, 72},
    // 3.12: frames {f_code, previous, f_funcobj, f_globals, f_builtins, f_locals, frame_obj,
    // prev_instr, stacktop, return_offset, owner}; _PyCFrame lost use_tracing, strings wstr.
    {12, 56, 0, 0, 8, 56, 70, 3, 40, 48, 56},
};

constexpr size_t kObType = 8;          // PyObject.ob_type
constexpr size_t kTypeBasicSize = 32;  // PyTypeObject.tp_basicsize, after the var header and name
constexpr size_t kStringLength = 16;   // PyASCIIObject.length
constexpr size_t kStringState = 32;    // PyASCIIObject.state bit field
constexpr unsigned kKindShift = 2;     // state: interned:2, kind:3, compact:1, ascii:1
constexpr unsigned kKindMask = 7;
constexpr unsigned kCompactBit = 1u << 5;
constexpr unsigned kAsciiBit = 1u << 6;
constexpr int kTpMembers = 72;         // Py_tp_members (Include/typeslots.h)
constexpr int64_t kMaxString = 4096;   // longer names are cut
constexpr size_t kMaxWalk = 100000;    // frames visited per capture: a cycle cannot hang us
constexpr unsigned kVersionShift = 8;  // Py_Version: 0xMMmmuu..

template <typename T>
T load(uint64_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
  return value;
}

// PyMemberDef, stable since 3.0.
struct MemberDef {
  const char* name;
  int type;
  ptrdiff_t offset;
  int flags;
  const char* doc;
};

void appendUtf8(std::string& out, uint32_t cp) {
  constexpr uint32_t kOne = 0x80, kTwo = 0x800, kThree = 0x10000;
  constexpr unsigned kSix = 6, kTwelve = 12, kEighteen = 18;
  constexpr uint32_t kLow6 = 0x3f, kCont = 0x80, kLead2 = 0xc0, kLead3 = 0xe0, kLead4 = 0xf0;
  auto put = [&out](uint32_t byte) { out += static_cast<char>(byte); };
  if (cp < kOne) {
    put(cp);
  } else if (cp < kTwo) {
    put(kLead2 | (cp >> kSix));
    put(kCont | (cp & kLow6));
  } else if (cp < kThree) {
    put(kLead3 | (cp >> kTwelve));
    put(kCont | ((cp >> kSix) & kLow6));
    put(kCont | (cp & kLow6));
  } else {
    put(kLead4 | (cp >> kEighteen));
    put(kCont | ((cp >> kTwelve) & kLow6));
    put(kCont | ((cp >> kSix) & kLow6));
    put(kCont | (cp & kLow6));
  }
}

void* symbol(const char* name) { return ::dlsym(RTLD_DEFAULT, name); }

}  // namespace

struct PythonFrames::Api {
  void* (*this_thread_state)() = nullptr;     // PyGILState_GetThisThreadState
  int (*addr_to_line)(void*, int) = nullptr;  // PyCode_Addr2Line
  int (*is_finalizing)() = nullptr;           // _Py_IsFinalizing
  uint64_t code_type = 0;                     // &PyCode_Type
  uint64_t unicode_type = 0;                  // &PyUnicode_Type
  uint64_t code_bytes = 0;     // the bytecode's offset in a code object: PyCode_Type.tp_basicsize
  uint64_t code_filename = 0;  // PyCodeObject.co_filename, from PyCode_Type's members
  uint64_t code_qualname = 0;  // PyCodeObject.co_qualname
};

namespace {

// The code object's field offsets, from the interpreter's own member table of PyCode_Type.
bool readCodeMembers(PythonFrames::Api& api, std::string& why) {
  auto get_slot = reinterpret_cast<void* (*)(void*, int)>(symbol("PyType_GetSlot"));
  if (get_slot == nullptr) {
    why = "PyType_GetSlot not found";
    return false;
  }
  auto* members =
      static_cast<const MemberDef*>(get_slot(reinterpret_cast<void*>(api.code_type), kTpMembers));
  for (const MemberDef* m = members; m != nullptr && m->name != nullptr; ++m) {
    if (std::strcmp(m->name, "co_filename") == 0) api.code_filename = m->offset;
    if (std::strcmp(m->name, "co_qualname") == 0) api.code_qualname = m->offset;
  }
  api.code_bytes = load<uint64_t>(api.code_type + kTypeBasicSize);
  if (api.code_filename == 0 || api.code_qualname == 0 || api.code_bytes == 0) {
    why = "the code object's fields are not in PyCode_Type's members";
    return false;
  }
  return true;
}

std::unique_ptr<PythonFrames::Api> findApi(std::string& why) {
  auto api = std::make_unique<PythonFrames::Api>();
  api->this_thread_state = reinterpret_cast<void* (*)()>(symbol("PyGILState_GetThisThreadState"));
  api->addr_to_line = reinterpret_cast<int (*)(void*, int)>(symbol("PyCode_Addr2Line"));
  void* finalizing = symbol("Py_IsFinalizing");  // public from 3.13, private before
  if (finalizing == nullptr) finalizing = symbol("_Py_IsFinalizing");
  api->is_finalizing = reinterpret_cast<int (*)()>(finalizing);
  api->code_type = reinterpret_cast<uint64_t>(symbol("PyCode_Type"));
  api->unicode_type = reinterpret_cast<uint64_t>(symbol("PyUnicode_Type"));
  if (api->this_thread_state == nullptr || api->addr_to_line == nullptr ||
      api->is_finalizing == nullptr || api->code_type == 0 || api->unicode_type == 0) {
    why =
        "the interpreter lacks PyGILState_GetThisThreadState, PyCode_Addr2Line, "
        "Py_IsFinalizing, PyCode_Type or PyUnicode_Type";
    return nullptr;
  }
  if (!readCodeMembers(*api, why)) return nullptr;
  return api;
}

}  // namespace

bool PythonFrames::interpreterPresent() { return symbol("Py_IsInitialized") != nullptr; }

std::unique_ptr<PythonFrames> PythonFrames::find(std::string& why) {
  const auto* py_version = static_cast<const unsigned long*>(symbol("Py_Version"));
  if (py_version == nullptr) {
    why = interpreterPresent() ? "CPython older than 3.11 (Python frames need 3.11 or 3.12)"
                               : "no Python interpreter in this process";
    return nullptr;
  }
  constexpr unsigned kByte = 0xff;
  unsigned major = (*py_version >> (3 * kVersionShift)) & kByte;
  unsigned minor = (*py_version >> (2 * kVersionShift)) & kByte;
  unsigned micro = (*py_version >> kVersionShift) & kByte;
  std::string version =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(micro);
  const Layout* layout = nullptr;
  for (const Layout& l : kLayouts) {
    if (major == 3 && l.minor == minor) layout = &l;
  }
  if (layout == nullptr) {
    why = "CPython " + version + " is not supported (Python frames need 3.11 or 3.12)";
    return nullptr;
  }
  if (symbol("_Py_ForgetReference") != nullptr) {  // Py_TRACE_REFS: objects have two more fields
    why = "CPython " + version + " is a trace-refs debug build";
    return nullptr;
  }
  std::unique_ptr<Api> api = findApi(why);
  if (api == nullptr) return nullptr;
  return std::unique_ptr<PythonFrames>(new PythonFrames(*layout, std::move(api), version));
}

PythonFrames::PythonFrames(const Layout& layout, std::unique_ptr<Api> api, std::string version)
    : layout_(layout), api_(std::move(api)), version_(std::move(version)) {}

PythonFrames::~PythonFrames() = default;

size_t PythonFrames::capture(PythonFrameRef* out, size_t max) const {
  if (api_->is_finalizing() != 0) return 0;  // other threads' states may be freed from now on
  auto tstate = reinterpret_cast<uint64_t>(api_->this_thread_state());
  if (tstate == 0) return 0;
  auto cframe = load<uint64_t>(tstate + layout_.tstate_cframe);
  if (cframe == 0) return 0;
  size_t n = 0;
  auto frame = load<uint64_t>(cframe + layout_.cframe_current);
  for (size_t visited = 0; frame != 0 && n < max && visited < kMaxWalk; ++visited) {
    uint64_t current = frame;
    frame = load<uint64_t>(current + layout_.frame_previous);
    if (layout_.cstack_owner >= 0 &&
        load<char>(current + layout_.frame_owner) == static_cast<char>(layout_.cstack_owner)) {
      continue;
    }
    auto code = load<uint64_t>(current + layout_.frame_code);
    if (code == 0 || load<uint64_t>(code + kObType) != api_->code_type) continue;
    auto instr = load<uint64_t>(current + layout_.frame_instr);
    // Code units of two bytes; prev_instr is one unit before the first at a frame's start.
    auto units = static_cast<int64_t>(instr - (code + api_->code_bytes)) / 2;
    out[n++] = PythonFrameRef{code, units * 2};
  }
  return n;
}

std::string PythonFrames::readString(uint64_t object) const {
  if (object == 0 || load<uint64_t>(object + kObType) != api_->unicode_type) return "?";
  auto length = load<int64_t>(object + kStringLength);
  auto state = load<uint32_t>(object + kStringState);
  if ((state & kCompactBit) == 0 || length < 0) return "?";  // legacy strings: not in code
  if (length > kMaxString) length = kMaxString;
  const auto* bytes = reinterpret_cast<const char*>(object + layout_.ascii_size);
  if ((state & kAsciiBit) != 0) return std::string(bytes, static_cast<size_t>(length));
  if (auto utf8 = load<uint64_t>(object + layout_.compact_utf8); utf8 != 0) {
    auto utf8_length = load<int64_t>(object + layout_.compact_utf8 - sizeof(int64_t));
    if (utf8_length >= 0 && utf8_length <= kMaxString) {
      return std::string(reinterpret_cast<const char*>(utf8), static_cast<size_t>(utf8_length));
    }
  }
  unsigned kind = (state >> kKindShift) & kKindMask;  // bytes per code point: 1, 2 or 4
  uint64_t data = object + layout_.compact_size;
  std::string out;
  for (int64_t i = 0; i < length; ++i) {
    uint64_t at = data + static_cast<uint64_t>(i) * kind;
    uint32_t cp = kind == 1   ? load<uint8_t>(at)
                  : kind == 2 ? load<uint16_t>(at)
                              : load<uint32_t>(at);
    appendUtf8(out, cp);
  }
  return out;
}

void PythonFrames::describe(const PythonFrameRef& ref, std::string& file, std::string& function,
                            uint32_t& line) const {
  file = readString(load<uint64_t>(ref.code + api_->code_filename));
  function = readString(load<uint64_t>(ref.code + api_->code_qualname));
  int offset = ref.offset < 0 ? -1 : static_cast<int>(ref.offset);
  int number = api_->addr_to_line(reinterpret_cast<void*>(ref.code), offset);
  line = number > 0 ? static_cast<uint32_t>(number) : 0;
}

}  // namespace memfloor::hook

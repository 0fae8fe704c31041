// The configuration decides what is heavy: here only names matching "Blob" are, so the Tensor
// member is not reported and the Blob members are.
#include "mini_std.h"

// config: {"heavy_type_patterns": ["Blob$"], "light_types": ["LightBlob"]}

struct Tensor {
  float* data = nullptr;
};
struct DeviceBlob {
  void* ptr = nullptr;
};
struct LightBlob {
  void* ptr = nullptr;
};
template <class T>
struct Wrapper {
  T inner;
};

class Cache {
 public:
  void store(const Tensor& t, const DeviceBlob& b) {
    tensor_ = t;
    blob_ = b;  // expect: MF002
    blobs_.push_back(b);  // expect: MF002
    wrapped_ = Wrapper<DeviceBlob>{b};  // expect: MF002
    light_ = LightBlob{};
    light_ = LightBlob{b.ptr};
  }

 private:
  Tensor tensor_;
  DeviceBlob blob_;
  std::vector<DeviceBlob> blobs_;
  Wrapper<DeviceBlob> wrapped_;
  LightBlob light_;
};

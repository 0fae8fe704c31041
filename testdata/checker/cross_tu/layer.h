// Cross-unit MF001: the belief is learned in base_layer.cpp and applied in hc_layer.cpp.
#pragma once
#include "../mini_std.h"

struct Tensor {
  float* data = nullptr;
};

class OffloadInterface {
 public:
  Tensor groupOffload(const Tensor& t);
  Tensor peek(const Tensor& t);

 private:
  Tensor tensor_;
};

class Layer {
 public:
  virtual ~Layer() = default;
  virtual Tensor postMlp(const Tensor& x);
  void releaseManager();
  bool hasManager() const;

 protected:
  std::shared_ptr<OffloadInterface> manager_;
};

class HcLayer : public Layer {
 public:
  Tensor postMlp(const Tensor& x) override;
  Tensor postMlpReleasedByHelper(const Tensor& x);
  Tensor peekIfAny(const Tensor& x);
};

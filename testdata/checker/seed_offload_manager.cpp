// Seed 000 in C++: the hyper-connection layer's fused post-MLP step calls groupOffload on the
// layer's MLP-norm manager and, unlike the base class, never clears it (MF001). The one-line fix
// clears without guarding: a replay that skips the pre-MLP step dereferences null (MF004, a note).
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

class FineGrainedActivationOffloadingInterface {
 public:
  FineGrainedActivationOffloadingInterface(bool offload, const Tensor& tensor)
      : offload_(offload), tensor_(tensor) {}
  Tensor enter() { return tensor_; }
  void exit() {}
  Tensor groupOffload(const Tensor& t) { return t; }

 private:
  bool offload_;
  Tensor tensor_;  // stored unconditionally: this is what the member keeps alive
};

class TransformerLayer {
 public:
  virtual ~TransformerLayer() = default;
  virtual Tensor forward(const Tensor& hidden) {
    return forwardPostMlp(forwardPreMlpLayernorm(hidden));
  }

 protected:
  Tensor forwardPreMlpLayernorm(const Tensor& hidden) {
    mlp_norm_manager_ =
        std::make_shared<FineGrainedActivationOffloadingInterface>(false, hidden);
    Tensor input = mlp_norm_manager_->enter();
    mlp_norm_manager_->exit();
    return input;
  }
  Tensor forwardPostMlp(const Tensor& mlp_output) {
    Tensor output = mlp_output;
    if (mlp_norm_manager_ != nullptr) {
      output = mlp_norm_manager_->groupOffload(output);
      mlp_norm_manager_ = nullptr;
    }
    return output;
  }

  std::shared_ptr<FineGrainedActivationOffloadingInterface> mlp_norm_manager_;
};

class HyperConnectionTransformerLayer : public TransformerLayer {
 public:
  Tensor forward(const Tensor& hidden) override {
    return forwardPostMlpWithFusedHyperConnection(forwardPreMlpLayernorm(hidden));
  }
  // A CUDA-graph replay that resumes the post-MLP step without re-running the pre-MLP step.
  Tensor replayPostMlp(const Tensor& mlp_output) {
    return mlp_norm_manager_->groupOffload(mlp_output);  // expect: MF001{{'TransformerLayer::forwardPostMlp' releases it}}
  }

 private:
  Tensor forwardPostMlpWithFusedHyperConnection(const Tensor& mlp_output) {
    Tensor output = mlp_output;
    if (mlp_norm_manager_ != nullptr) {
      output = mlp_norm_manager_->groupOffload(output);  // expect: MF001{{'mlp_norm_manager_' keeps its device memory after 'FineGrainedActivationOffloadingInterface::groupOffload' in 'HyperConnectionTransformerLayer::forwardPostMlpWithFusedHyperConnection'}}
    }
    return output;
  }
};

// The fixed layer: clears after the terminal call (no finding).
class FixedHyperConnectionLayer : public TransformerLayer {
 public:
  Tensor forward(const Tensor& hidden) override {
    Tensor output = forwardPreMlpLayernorm(hidden);
    if (mlp_norm_manager_) {
      output = mlp_norm_manager_->groupOffload(output);
      mlp_norm_manager_ = nullptr;
    }
    return output;
  }
};

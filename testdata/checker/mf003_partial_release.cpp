// MF003: a method releases several members that another method assigned, but keeps some.
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

class Node {
 public:
  void forward(const Tensor& x) {
    input_ = x;
    output_ = x;
    residual_ = x;  // expect: MF002
    saved_.push_back(x);
  }
  void releaseState() {
    input_ = Tensor();  // expect: MF003{{'Node::releaseState' releases 3 members assigned by 'Node::forward' but keeps 'residual_'}}
    output_ = {};
    saved_.clear();
  }
  // Releasing only one member is not a partial release of a group.
  void dropOutput() { output_ = Tensor(); }
  // Reassigning a member is not keeping it.
  void refresh(const Tensor& x) {
    input_ = Tensor();
    output_ = Tensor();
    saved_.clear();
    residual_ = x;  // expect: MF002
  }

 private:
  Tensor input_;
  Tensor output_;
  Tensor residual_;
  std::vector<Tensor> saved_;
};

// Releases all it assigns: no finding.
class Complete {
 public:
  void forward(const Tensor& x) {
    a_ = x;
    b_ = x;
  }
  void release() {
    a_ = Tensor();
    b_ = Tensor();
  }

 private:
  Tensor a_;
  Tensor b_;
};

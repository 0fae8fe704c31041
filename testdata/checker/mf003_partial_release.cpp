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

// Helpers: what a method releases through methods it calls on its own object (and theirs) counts
// as released, at the call.
class Step {
 public:
  void forward(const Tensor& x) {
    input_ = x;
    output_ = x;
    grad_ = x;
    cache_ = x;
  }
  void releaseState() {
    dropActivations();  // expect: MF003{{'Step::releaseState' releases 3 members assigned by 'Step::forward' but keeps 'cache_'}}
    grad_ = Tensor();
  }
  // Releases the whole group through two levels of helpers: no finding here or below.
  void releaseAll() {
    releaseEverything();
  }
  void releaseEverything() {
    releaseState();
    cache_ = {};
  }
  // Releases nothing beyond its helper: the helper is judged, not this caller.
  void endOfStep() { releaseState(); }

 private:
  // A part of the callers' release, judged with them.
  void dropActivations() {
    input_ = Tensor();
    output_ = Tensor();
  }

  Tensor input_;
  Tensor output_;
  Tensor grad_;
  Tensor cache_;
};

// A helper called only on another object is not a helper of the caller.
class Pair {
 public:
  void forward(const Tensor& x) {
    a_ = x;
    b_ = x;
    c_ = x;
  }
  void dropTwo() {  // judged on its own: it releases 2 and keeps c_
    a_ = Tensor();  // expect: MF003{{'Pair::dropTwo' releases 2 members assigned by 'Pair::forward' but keeps 'c_'}}
    b_ = Tensor();
  }
  void dropOther(Pair& other) {
    other.dropTwo();
    c_ = Tensor();
  }

 private:
  Tensor a_;
  Tensor b_;
  Tensor c_;
};

// MF002 and stores made while objects are built: a registry filled only from constructors (in their
// bodies or member initializers, directly or through functions that only constructors call) keeps
// its members for the object's lifetime by design. The same store reached from any other caller,
// or from no caller in the program, is reported.
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

Tensor make();

struct NamedParameter {
  int id = 0;
  Tensor tensor;
};

// As reference_model/parameter_store: the layers' constructors register their weights.
class ParameterStore {
 public:
  Tensor normal(int id) { return add(id, make()); }
  Tensor constant(int id) { return add(id, Tensor()); }

 private:
  Tensor add(int id, const Tensor& t) {
    params_.push_back({id, t});
    return t;
  }

  std::vector<NamedParameter> params_;
};

class Layer {
 public:
  Layer(ParameterStore& params) : bias_(params.constant(1)) { weight_ = makeWeight(params); }

 private:
  Tensor makeWeight(ParameterStore& params) { return params.normal(2); }  // only Layer() calls it

  Tensor weight_;
  Tensor bias_;
};

// Called from a lambda that only the constructor calls.
class Buffers {
 public:
  Buffers() {
    auto fill = [this] { grow(); };
    fill();
  }

 private:
  void grow() { blocks_.push_back(make()); }

  std::vector<Tensor> blocks_;
};

// Positives. Called from a constructor and from a step: the step's value is retained.
class Cache {
 public:
  Cache() { warm(); }
  void step() { warm(); }

 private:
  void warm() { last_ = make(); }  // expect: MF002{{'last_' is assigned in 'Cache::warm'}}

  Tensor last_;
};

// No caller in the program (a public API, or callers in units not checked).
class Registry {
 public:
  void add(const Tensor& t) { entries_.push_back(t); }  // expect: MF002

 private:
  std::vector<Tensor> entries_;
};
void loadCheckpoint(Registry& registry) { registry.add(make()); }

// A virtual call through the base class reaches the override, whatever Linear() does.
class Module {
 public:
  virtual ~Module() = default;
  virtual void reload(const Tensor&) {}
  void step(const Tensor& t) { reload(t); }
};
class Linear : public Module {
 public:
  explicit Linear(const Tensor& t) { reload(t); }
  void reload(const Tensor& t) override { weight_ = t; }  // expect: MF002

 private:
  Tensor weight_;
};

// Calls that only go round in a cycle prove nothing.
class PingPong {
 public:
  void ping(const Tensor& t, int n) {
    if (n > 0) pong(t, n - 1);
  }
  void pong(const Tensor& t, int n) {
    kept_ = t;  // expect: MF002
    ping(t, n);
  }

 private:
  Tensor kept_;
};

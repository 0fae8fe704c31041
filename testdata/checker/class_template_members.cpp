// Members of class templates are checked once, on the template itself (not on each instance): the
// template below is instantiated three times (one explicitly) and each finding is reported once.
// Code that depends on the template's parameters is not seen (a member of type `Config` is never
// heavy there); calls of the template's own methods count (helpers, predicates).
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

struct Manager {
  Tensor saved;
  Tensor commit() { return saved; }
  Tensor peek() { return saved; }
};

template <class Config>
class Layer {
 public:
  void prepare() { manager_ = std::make_shared<Manager>(); }
  void finish() {
    if (manager_) {
      manager_->commit();
      manager_ = nullptr;
    }
  }
  Tensor replay() {
    return manager_->commit();  // expect: MF001{{while 'Layer::finish' releases it}}
  }
  bool hasManager() const { return manager_ != nullptr; }
  Tensor checked() { return hasManager() ? manager_->peek() : Tensor(); }
  Tensor prepared() {
    prepare();
    return manager_->peek();
  }

  void remember(const Tensor& t) {
    last_ = t;  // expect: MF002{{'last_' is assigned in 'Layer::remember' and released nowhere in 'Layer'}}
  }
  void configure(const Config& c) { config_ = c; }

  void forward(const Tensor& x) {
    input_ = x;
    output_ = x;
    grad_ = x;
  }
  void releaseState() {
    dropInput();  // expect: MF003{{'Layer::releaseState' releases 2 members assigned by 'Layer::forward' but keeps 'grad_'}}
    output_ = Tensor();
  }
  void dropInput() { input_ = Tensor(); }
  void dropGrad() { grad_ = {}; }

 private:
  std::shared_ptr<Manager> manager_;
  Tensor last_;
  Tensor input_;
  Tensor output_;
  Tensor grad_;
  Config config_;
};

struct Small {};
template class Layer<Small>;

void run(Layer<int>& a, Layer<Tensor>& b, const Tensor& t) {
  a.remember(t);
  b.remember(t);
  b.configure(t);
  a.prepare();
}

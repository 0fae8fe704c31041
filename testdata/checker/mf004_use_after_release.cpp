// MF004: a released member dereferenced without a null check or a dominating assignment.
#include "mini_std.h"

// config: {"disabled_rules": ["MF001"]}

struct Tensor {
  float* data = nullptr;
};

struct Manager {
  Tensor saved;
  Tensor commit() { return saved; }
  bool ready() const { return true; }
};

Tensor newTensor();

class Layer {
 public:
  void prepare() { manager_ = std::make_shared<Manager>(); }
  void finish() {
    if (manager_) {
      manager_->commit();
      manager_ = nullptr;
    }
    raw_ = nullptr;
    maybe_.reset();
  }

  // Unguarded: flagged once per function and member.
  Tensor replay() {
    Tensor t = manager_->commit();  // expect: MF004{{'manager_' is dereferenced in 'Layer::replay' with no null check and no assignment before it on every path, but 'Layer::finish' releases it}}
    manager_->commit();
    return t;
  }
  Tensor rawUse() {
    return raw_->commit();  // expect: MF004
  }
  Tensor optionalUse() {
    return maybe_->commit();  // expect: MF004
  }
  Tensor optionalValue() {
    return maybe_.value().commit();  // expect: MF004
  }
  Tensor onOnePath(bool fresh) {
    if (fresh) prepare();
    return manager_->commit();  // expect: MF004
  }

  // Guarded.
  Tensor checked() {
    if (manager_ != nullptr) return manager_->commit();
    return Tensor();
  }
  Tensor earlyExit() {
    if (!manager_) return Tensor();
    return manager_->commit();
  }
  bool shortCircuit() const { return manager_ && manager_->ready(); }
  Tensor assignedFirst() {
    manager_ = std::make_shared<Manager>();
    return manager_->commit();
  }
  Tensor helperAssigns() {
    prepare();
    return manager_->commit();
  }
  Tensor stable() { return never_released_->commit(); }

 private:
  std::shared_ptr<Manager> manager_;
  std::shared_ptr<Manager> never_released_;
  Manager* raw_ = nullptr;
  std::optional<Manager> maybe_;
};

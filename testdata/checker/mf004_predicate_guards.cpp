// MF004 and null checks made through a predicate: a bool method of the object whose every return
// tests the member (`state_ != nullptr`, `!static_cast<bool>(state_)`, `maybe_.has_value()`) guards
// a dereference when it is called in the branch condition. One level: the predicate's own body is
// looked into, not the methods it calls.
#include "mini_std.h"

// config: {"disabled_rules": ["MF001"]}

struct Tensor {
  float* data = nullptr;
};

struct State {
  Tensor saved;
  Tensor commit() { return saved; }
  bool ready() const { return true; }
};

class Layer {
 public:
  void prepare() {
    state_ = std::make_shared<State>();
    maybe_ = State{};
    raw_ = new State;
  }
  void release() {
    state_ = nullptr;
    maybe_.reset();
    raw_ = nullptr;
  }

  bool hasState() const { return state_ != nullptr; }
  bool empty() const { return !static_cast<bool>(state_); }
  bool hasValue() const { return maybe_.has_value(); }
  bool hasRaw() const { return raw_ != nullptr; }
  bool viaOther() const { return hasState(); }  // two levels: not followed
  bool always() const { return true; }
  bool sometimes(bool flag) const {
    if (flag) return true;  // this return tests nothing
    return state_ != nullptr;
  }
  // A predicate that dereferences tests nothing (and is itself unguarded).
  bool stateReady() const { return state_->ready(); }  // expect: MF004

  // Guarded through a predicate.
  Tensor checked() {
    if (hasState()) return state_->commit();
    return Tensor();
  }
  Tensor earlyExit() {
    if (empty()) return Tensor();
    return state_->commit();
  }
  Tensor notEmpty() { return !empty() ? state_->commit() : Tensor(); }
  Tensor optional() { return hasValue() ? maybe_->commit() : Tensor(); }
  Tensor optionalValue() { return this->hasValue() ? maybe_.value().commit() : Tensor(); }
  Tensor rawChecked() { return hasRaw() ? raw_->commit() : Tensor(); }
  bool shortCircuit() const { return hasState() && state_->ready(); }
  Tensor otherObject(Layer& other) {
    if (!other.hasState()) return Tensor();
    return other.state_->commit();
  }

  // Not guards.
  Tensor derefPredicate() {
    if (stateReady()) return state_->commit();  // expect: MF004
    return Tensor();
  }
  Tensor twoLevels() {
    if (viaOther()) return state_->commit();  // expect: MF004
    return Tensor();
  }
  Tensor unrelated() {
    if (always()) return state_->commit();  // expect: MF004
    return Tensor();
  }
  Tensor notOnEveryReturn() {
    if (sometimes(true)) return state_->commit();  // expect: MF004
    return Tensor();
  }
  Tensor calledOutsideTheCondition() {
    const bool ok = hasState();
    return state_->commit();  // expect: MF004
  }
  Tensor otherMember() {
    if (hasValue()) return state_->commit();  // expect: MF004
    return Tensor();
  }
  Tensor otherObjectsPredicate(Layer& other) {
    if (other.hasState()) return state_->commit();  // expect: MF004
    return Tensor();
  }

 private:
  std::shared_ptr<State> state_;
  std::optional<State> maybe_;
  State* raw_ = nullptr;
};

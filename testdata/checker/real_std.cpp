// The idioms as the real standard library spells them (<memory>, <optional>, <vector>, <utility>):
// one input parsed with the system headers to keep the minimal library honest.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

struct Tensor {
  std::shared_ptr<float> storage;
};

struct Manager {
  Tensor saved;
  Tensor groupOffload(const Tensor& t) { return t; }
};

class Layer {
 public:
  void pre() {
    manager_ = std::make_shared<Manager>();
    unique_ = std::make_unique<Manager>();
  }
  void remember(const Tensor& t) {
    inputs_.push_back(t);
    maybe_ = Manager{};
  }
  Tensor post(const Tensor& t) {
    if (!manager_) return t;
    Tensor out = manager_->groupOffload(t);
    manager_ = nullptr;
    return out;
  }
  Tensor postUnique(const Tensor& t) {
    if (unique_ == nullptr) return t;
    Tensor out = unique_->groupOffload(t);
    unique_.reset();
    return out;
  }
  Tensor postExchange(const Tensor& t) {
    if (!manager_) return t;
    Tensor out = manager_->groupOffload(t);
    std::exchange(manager_, nullptr);
    return out;
  }
  Tensor postMove(const Tensor& t) {
    if (!manager_) return t;
    Tensor out = manager_->groupOffload(t);
    std::shared_ptr<Manager> gone = std::move(manager_);
    return out;
  }
  Tensor postExchangeLocal(const Tensor& t) {
    Tensor out = t;
    if (auto m = std::exchange(manager_, nullptr)) out = m->groupOffload(t);
    return out;
  }
  Tensor postCopyLocal(const Tensor& t) {
    Tensor out = t;
    if (auto m = manager_) out = m->groupOffload(t);  // expect: MF001
    return out;
  }
  Tensor postSwap(const Tensor& t) {
    if (!manager_) return t;
    Tensor out = manager_->groupOffload(t);
    std::shared_ptr<Manager> empty;
    std::swap(manager_, empty);
    return out;
  }
  Tensor postSwapTemporary(const Tensor& t) {
    if (!manager_) return t;
    Tensor out = manager_->groupOffload(t);
    std::shared_ptr<Manager>().swap(manager_);
    return out;
  }
  Tensor postThroughReference(const Tensor& t) {
    auto& m = manager_;
    if (!m) return t;
    Tensor out = m->groupOffload(t);
    m.reset();
    return out;
  }
  Tensor postKept(const Tensor& t) {
    return unique_->groupOffload(t);  // expect: MF001
  }
  void clear() {
    inputs_.clear();
    maybe_ = std::nullopt;
  }
  Tensor useOptional(const Tensor& t) {
    return maybe_->groupOffload(t);  // expect: MF001
  }

 private:
  std::shared_ptr<Manager> manager_;
  std::unique_ptr<Manager> unique_;
  std::vector<Tensor> inputs_;
  std::optional<Manager> maybe_;
};

// MF001 with every release idiom: each holder teaches "release after consume()" with one idiom;
// the deviant sites keep the object on some path. Negatives sit next to the positives.
#include "mini_std.h"

// config: {"disabled_rules": ["MF004"]}

struct Tensor {
  float* data = nullptr;
};

// Holds a tensor (heavy through its member).
class Buffer {
 public:
  void consume();
  void peek() const;

 private:
  Tensor tensor_;
};

void sink(std::shared_ptr<Buffer> b);
bool failed();

class Holder {
 public:
  // Teachers: each releases after consume() on every path, each with another idiom.
  void assignNull() {
    shared_->consume();
    shared_ = nullptr;
  }
  void assignEmpty() {
    shared_->consume();
    shared_ = {};
  }
  void reset() {
    unique_->consume();
    unique_.reset();
  }
  void exchange() {
    shared_->consume();
    std::exchange(shared_, nullptr);
  }
  void moveOut() {
    shared_->consume();
    sink(std::move(shared_));
  }
  void raw() {
    raw_->consume();
    raw_ = nullptr;
  }
  void deleteRaw() {
    raw_->consume();
    delete raw_;
  }
  void optionalReset() {
    optional_->consume();
    optional_ = std::nullopt;
  }
  void guarded() {
    if (shared_) {
      shared_->consume();
      shared_ = nullptr;
    }
  }
  void throughHelper() {
    shared_->consume();
    drop();
  }
  void loopThenRelease(int n) {
    for (int i = 0; i < n; ++i) shared_->peek();
    shared_->consume();
    shared_ = nullptr;
  }
  void abortPath() {
    shared_->consume();
    if (failed()) std::abort();
    shared_ = nullptr;
  }

  // Deviants.
  void someBranch(bool flag) {
    shared_->consume();  // expect: MF001{{while 'Holder::assignNull' releases it after the same call}}
    if (flag) shared_ = nullptr;
  }
  void earlyReturn() {
    unique_->consume();  // expect: MF001
    if (failed()) return;
    unique_.reset();
  }
  void never() {
    raw_->consume();  // expect: MF001
  }
  void optionalKept() {
    optional_->consume();  // expect: MF001
  }
  void releasedBeforeUse() {
    shared_ = nullptr;
    shared_->consume();  // expect: MF001
  }

  // Negatives: peek() is followed by a release once (in loopThenRelease) and not at three other
  // sites: below mf001_min_belief_ratio, so nothing is learned about it.
  void peekOnly() { shared_->peek(); }
  void peekTwice() {
    shared_->peek();
    shared_->peek();
    unique_->peek();
  }
  // A local object dies with the function.
  void local() {
    std::shared_ptr<Buffer> mine = std::make_shared<Buffer>();
    mine->consume();
  }
  // memfloor-check: ignore[MF001]
  void suppressed() { shared_->consume(); }

 private:
  void drop() { shared_ = nullptr; }

  std::shared_ptr<Buffer> shared_;
  std::unique_ptr<Buffer> unique_;
  Buffer* raw_ = nullptr;
  std::optional<Buffer> optional_;
};

// MF002: heavy members assigned outside constructors and released nowhere.
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

// Heavy only through its member.
struct Manager {
  Tensor saved;
};

// Heavy by annotation, whatever its members.
struct [[clang::annotate("memfloor::heavy")]] DeviceArena {
  int handle = 0;
};

struct Plain {
  int value = 0;
};

class Model {
 public:
  explicit Model(const Tensor& t) : weight_(t) { bias_ = t; }

  void cache(const Tensor& t) {
    last_input_ = t;  // expect: MF002{{'last_input_' is assigned in 'Model::cache' and released nowhere in 'Model'}}
    scratch_ = t;
  }
  void record(const Tensor& t) {
    history_.push_back(t);  // expect: MF002
    pending_.push_back(t);
  }
  void attach(std::shared_ptr<Manager> m) {
    manager_ = m;  // expect: MF002
    watcher_ = m;
    plain_ = std::make_shared<Plain>();
  }
  void arena(std::unique_ptr<DeviceArena> a) {
    arena_ = std::move(a);  // expect: MF002
  }
  // A raw pointer owns nothing; a stack popped elsewhere is released.
  void borrow(Tensor* t) { borrowed_ = t; }
  void push(const Tensor& t) { stack_.push_back(t); }
  void pop() { stack_.pop_back(); }
  void flush() {
    scratch_ = Tensor();
    pending_.clear();
  }
  void keepOnPurpose(const Tensor& t) {
    // memfloor-check: ignore[MF002]
    pinned_ = t;
    other_ = t;  // memfloor-check: ignore[MF002]
  }
  virtual ~Model() { last_input_ = Tensor(); }

 protected:
  Tensor weight_;
  Tensor bias_;
  Tensor last_input_;
  Tensor scratch_;
  Tensor pinned_;
  Tensor other_;
  Tensor derived_only_;
  std::vector<Tensor> history_;
  std::vector<Tensor> pending_;
  std::vector<Tensor> stack_;
  Tensor* borrowed_ = nullptr;
  std::shared_ptr<Manager> manager_;
  std::weak_ptr<Manager> watcher_;
  std::shared_ptr<Plain> plain_;
  std::unique_ptr<DeviceArena> arena_;
};

// A release in a subclass counts for the whole hierarchy.
class Derived : public Model {
 public:
  using Model::Model;
  void set(const Tensor& t) { derived_only_ = t; }
  void drop() { derived_only_ = {}; }
};

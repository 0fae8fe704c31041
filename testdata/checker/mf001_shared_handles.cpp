// MF001 through std::shared_ptr copies: a shared_ptr parameter or a local copied from elsewhere
// shares the object with its other owners, so keeping it after commit() keeps the memory beyond
// the function. A shared_ptr made in the function, and objects and unique_ptrs held by value, die
// with it. The teacher releases the member after commit().
#include "mini_std.h"

// The negatives are sites of commit() too, and most of them keep their object: a lower belief
// ratio lets the two releasing sites teach.
// config: {"disabled_rules": ["MF004"], "mf001_min_belief_ratio": 0.1}

struct Tensor {
  float* data = nullptr;
};

struct Manager {
  Tensor saved;
  Tensor commit() { return saved; }
};

std::shared_ptr<Manager> current();

class Layer {
 public:
  // Teacher: release after commit() on every path.
  void finish() {
    manager_->commit();
    manager_ = nullptr;
  }

  // Deviants: copies of a shared object.
  void byValue(std::shared_ptr<Manager> m) {
    m->commit();  // expect: MF001{{'m' keeps its device memory after 'Manager::commit' in 'Layer::byValue'}}
  }
  void memberCopy() {
    std::shared_ptr<Manager> copy = manager_;
    copy->commit();  // expect: MF001{{while 'Layer::finish' releases it after the same call}}
  }
  void resultCopy() {
    auto shared = current();
    shared->commit();  // expect: MF001{{'shared' keeps its device memory}}
  }

  // Negatives: a copy released after the call; objects the function owns alone.
  void byValueReleased(std::shared_ptr<Manager> m) {
    m->commit();
    m = nullptr;
  }
  void made() {
    auto fresh = std::make_shared<Manager>();
    fresh->commit();
  }
  void adopted() {
    std::shared_ptr<Manager> fresh(new Manager);
    fresh->commit();
  }
  void empty() {
    std::shared_ptr<Manager> none = nullptr;
    none->commit();
  }
  void unique(std::unique_ptr<Manager> m) { m->commit(); }
  void plain(Manager m) { m.commit(); }

 private:
  std::shared_ptr<Manager> manager_;
};

// MF001 and the releases that hand the member's object over or reach it through another name:
// std::exchange, std::move out of the member, a swap with an empty handle, a reset through a
// reference bound to the member. Each releases the member, and a local that takes the object
// over owns it alone: it dies at the end of its scope. Next to each negative sits its positive,
// the same code with the member only copied (or swapped with a full handle): it still holds the
// memory after commit().
#include "mini_std.h"

// Most sites of commit() here keep their object on purpose: a lower belief ratio lets the
// releasing ones teach whichever way the handover idioms are counted.
// config: {"disabled_rules": ["MF004"], "mf001_min_belief_ratio": 0.1}

struct Tensor {
  float* data = nullptr;
};

struct Manager {
  Tensor saved;
  Tensor commit(const Tensor& t);
};

class Layer {
 public:
  // Teacher: release after commit() on every path.
  Tensor finish(Tensor h) {
    h = mgr_->commit(h);
    mgr_ = nullptr;
    return h;
  }

  // std::exchange: the member is released, the local dies at the end of the `if`.
  Tensor exchanged(Tensor h) {
    if (auto m = std::exchange(mgr_, nullptr)) h = m->commit(h);
    return h;
  }
  Tensor exchangedCopy(Tensor h) {
    if (auto m = mgr_) h = m->commit(h);  // expect: MF001{{'m' keeps its device memory}}
    return h;
  }
  Tensor exchangedAfter(Tensor h) {
    h = mgr_->commit(h);
    auto old = std::exchange(mgr_, nullptr);
    return h;
  }
  Tensor exchangedForFull(Tensor h) {
    h = mgr_->commit(h);  // expect: MF001{{while 'Layer::finish' releases it after the same call}}
    auto old = std::exchange(mgr_, spare_);
    return h;
  }
  // The old object is the local's alone, whatever the member holds next.
  Tensor exchangedOld(Tensor h) {
    auto old = std::exchange(mgr_, spare_);
    return old->commit(h);
  }

  // std::move out of the member.
  Tensor moved(Tensor h) {
    std::shared_ptr<Manager> m = std::move(mgr_);
    return m->commit(h);
  }
  Tensor movedCopy(Tensor h) {
    std::shared_ptr<Manager> m = mgr_;
    return m->commit(h);  // expect: MF001{{'m' keeps its device memory}}
  }
  Tensor movedAfter(Tensor h) {
    h = mgr_->commit(h);
    auto gone = std::move(mgr_);
    return h;
  }
  Tensor movedAfterCopy(Tensor h) {
    h = mgr_->commit(h);  // expect: MF001
    auto kept = mgr_;
    return h;
  }
  // Moved on from a local that owns its object alone, or from a copy that shares it.
  Tensor movedTwice(Tensor h) {
    auto first = std::move(mgr_);
    auto second = std::move(first);
    return second->commit(h);
  }
  Tensor movedFromShared(std::shared_ptr<Manager> shared, Tensor h) {
    auto mine = std::move(shared);
    return mine->commit(h);  // expect: MF001{{'mine' keeps its device memory}}
  }

  // A swap with an empty handle: a local declared empty, or a temporary.
  Tensor swapped(Tensor h) {
    h = mgr_->commit(h);
    std::shared_ptr<Manager> empty;
    std::swap(mgr_, empty);
    return h;
  }
  Tensor swappedFull(Tensor h) {
    h = mgr_->commit(h);  // expect: MF001
    std::swap(mgr_, spare_);
    return h;
  }
  Tensor swappedMember(Tensor h) {
    h = mgr_->commit(h);
    std::shared_ptr<Manager> empty = nullptr;
    mgr_.swap(empty);
    return h;
  }
  Tensor swappedMemberFull(Tensor h) {
    h = mgr_->commit(h);  // expect: MF001
    auto other = std::make_shared<Manager>();
    mgr_.swap(other);
    return h;
  }
  Tensor swappedTemporary(Tensor h) {
    h = mgr_->commit(h);
    std::shared_ptr<Manager>().swap(mgr_);
    return h;
  }
  Tensor swappedIntoLocal(Tensor h) {
    std::shared_ptr<Manager> m;
    m.swap(mgr_);
    return m->commit(h);
  }

  // A reset through a reference bound to the member.
  Tensor resetThroughReference(Tensor h) {
    auto& m = mgr_;
    h = m->commit(h);
    m.reset();
    return h;
  }
  Tensor resetThroughCopy(Tensor h) {
    h = mgr_->commit(h);  // expect: MF001
    auto m = mgr_;
    m.reset();
    return h;
  }
  Tensor nulledThroughReference(Tensor h) {
    h = mgr_->commit(h);
    std::shared_ptr<Manager>& m = mgr_;
    m = nullptr;
    return h;
  }
  Tensor keptThroughReference(Tensor h) {
    auto& m = mgr_;
    return m->commit(h);  // expect: MF001{{'m' keeps its device memory}}
  }

 private:
  std::shared_ptr<Manager> mgr_;
  std::shared_ptr<Manager> spare_;
};

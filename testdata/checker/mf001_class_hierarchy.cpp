// MF001 across a class hierarchy: a belief is keyed by the member and the call, whichever class's
// method holds the release. Seed 000's shape in the framework: the base layer's method commits the
// manager and clears it; a subclass adds a method of another name that commits it and keeps it.
// Each positive sits beside a negative of the same shape.
#include "mini_std.h"

struct Tensor {
  float* data = nullptr;
};

class OffloadInterface {
 public:
  explicit OffloadInterface(const Tensor& t) : tensor_(t) {}
  Tensor commit(const Tensor& t) { return t; }

 private:
  Tensor tensor_;
};

class BaseLayer {
 public:
  virtual ~BaseLayer() = default;
  void preNorm(const Tensor& x) { manager_ = std::make_shared<OffloadInterface>(x); }
  Tensor postNorm(const Tensor& x) {
    Tensor out = x;
    if (manager_ != nullptr) {
      out = manager_->commit(x);
      manager_ = nullptr;
    }
    return out;
  }

 protected:
  std::shared_ptr<OffloadInterface> manager_;
};

// The release is in a base method of another name: MF001 names it.
class FusedLayer : public BaseLayer {
 public:
  Tensor postNormFused(const Tensor& x) {
    if (manager_ != nullptr) return manager_->commit(x);  // expect: MF001{{'manager_' keeps its device memory after 'OffloadInterface::commit' in 'FusedLayer::postNormFused': it is not released on every path to the exit, while 'BaseLayer::postNorm' releases it after the same call}}
    return x;
  }
};

// The same subclass with the clear: nothing to report.
class FixedFusedLayer : public BaseLayer {
 public:
  Tensor postNormFused(const Tensor& x) {
    Tensor out = x;
    if (manager_ != nullptr) {
      out = manager_->commit(x);
      manager_ = nullptr;
    }
    return out;
  }
};

// Unguarded as well (a replay path): one finding on the line, MF001, which explains it; the missing
// guard (MF004) is its note, and is reported on its own once the release is added.
class ReplayLayer : public BaseLayer {
 public:
  Tensor replayPostNorm(const Tensor& x) {
    return manager_->commit(x);  // expect: MF001{{while 'BaseLayer::postNorm' releases it}}
  }
};

// Cleared but not guarded: the use-after-release hazard alone (MF004).
class ClearedReplayLayer : public BaseLayer {
 public:
  Tensor replayPostNorm(const Tensor& x) {
    Tensor out = manager_->commit(x);  // expect: MF004{{'manager_' is dereferenced in 'ClearedReplayLayer::replayPostNorm'}}
    manager_ = nullptr;
    return out;
  }
};

// An intermediate class between the base and the subclass changes nothing.
class MiddleLayer : public BaseLayer {
 public:
  Tensor extra(const Tensor& x) { return x; }
};

class DeepFusedLayer : public MiddleLayer {
 public:
  Tensor postNormDeep(const Tensor& x) {
    if (manager_ != nullptr) return manager_->commit(x);  // expect: MF001{{in 'DeepFusedLayer::postNormDeep': it is not released on every path to the exit, while 'BaseLayer::postNorm' releases it}}
    return x;
  }
};

class DeepFixedLayer : public MiddleLayer {
 public:
  Tensor postNormDeep(const Tensor& x) {
    Tensor out = x;
    if (manager_ != nullptr) {
      out = manager_->commit(x);
      manager_ = nullptr;
    }
    return out;
  }
};

// A mixin that declares the member and provides the releasing method, combined with another base:
// in C++ the member is the mixin's own, so the combined class's methods are taught like any
// subclass's (the teacher named is the mixin's method).
class Stats {
 public:
  int steps = 0;
};

class CommitMixin {
 protected:
  Tensor finishCommit(const Tensor& x) {
    Tensor out = x;
    if (stash_manager_ != nullptr) {
      out = stash_manager_->commit(x);
      stash_manager_ = nullptr;
    }
    return out;
  }
  std::shared_ptr<OffloadInterface> stash_manager_;
};

class MixedLayer : public Stats, public CommitMixin {
 public:
  void stash(const Tensor& x) { stash_manager_ = std::make_shared<OffloadInterface>(x); }
  Tensor fusedCommit(const Tensor& x) {
    if (stash_manager_ != nullptr) return stash_manager_->commit(x);  // expect: MF001{{while 'CommitMixin::finishCommit' releases it after the same call}}
    return x;
  }
};

class MixedFixedLayer : public Stats, public CommitMixin {
 public:
  Tensor fusedCommit(const Tensor& x) {
    Tensor out = x;
    if (stash_manager_ != nullptr) {
      out = stash_manager_->commit(x);
      stash_manager_ = nullptr;
    }
    return out;
  }
};

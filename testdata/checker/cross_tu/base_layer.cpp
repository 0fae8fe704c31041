// The base layer releases its manager after the terminal call, and offers a release helper and a
// null-check predicate.
#include "layer.h"

Tensor Layer::postMlp(const Tensor& x) {
  Tensor out = manager_->groupOffload(x);  // expect: MF004{{but 'Layer::postMlp' releases it}}
  manager_ = nullptr;
  return out;
}

void Layer::releaseManager() { manager_.reset(); }

bool Layer::hasManager() const { return manager_ != nullptr; }

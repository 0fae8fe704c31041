// The override in another unit keeps the manager; the helper defined in the other unit releases,
// and the predicate defined there checks it for null.
#include "layer.h"

Tensor HcLayer::postMlp(const Tensor& x) {
  Tensor out = manager_->groupOffload(x);  // expect: MF001{{while 'Layer::postMlp' releases it}}
  return out;
}

Tensor HcLayer::postMlpReleasedByHelper(const Tensor& x) {
  Tensor out = manager_->groupOffload(x);  // expect: MF004
  releaseManager();
  return out;
}

Tensor HcLayer::peekIfAny(const Tensor& x) {
  if (!hasManager()) return x;
  return manager_->peek(x);
}

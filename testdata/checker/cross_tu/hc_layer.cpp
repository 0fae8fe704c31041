// The override in another unit keeps the manager; the helper defined in the other unit releases.
#include "layer.h"

Tensor HcLayer::postMlp(const Tensor& x) {
  Tensor out = manager_->groupOffload(x);  // expect: MF001{{while 'Layer::postMlp' releases it}} MF004
  return out;
}

Tensor HcLayer::postMlpReleasedByHelper(const Tensor& x) {
  Tensor out = manager_->groupOffload(x);  // expect: MF004
  releaseManager();
  return out;
}

#include "coordinator/query_context.h"

#include <algorithm>

namespace granite::coordinator {

void QueryContext::Cancel() {
  cancelled_ = true;
  core::MutexLock lock(mu_);
  for (grpc::ClientContext* call : calls_) call->TryCancel();
}

bool QueryContext::Register(grpc::ClientContext* context) {
  core::MutexLock lock(mu_);
  if (cancelled_) return false;
  calls_.push_back(context);
  return true;
}

void QueryContext::Unregister(grpc::ClientContext* context) {
  core::MutexLock lock(mu_);
  calls_.erase(std::remove(calls_.begin(), calls_.end(), context), calls_.end());
}

}  // namespace granite::coordinator

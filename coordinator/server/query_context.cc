#include "coordinator/server/query_context.h"

#include <algorithm>

namespace granite::coordinator {

std::string_view QueryKindName(QueryKind kind) {
  switch (kind) {
    case QueryKind::kSelect:
      return "select";
    case QueryKind::kInsert:
      return "insert";
    case QueryKind::kDdl:
      return "ddl";
    case QueryKind::kOther:
      return "other";
  }
  return "other";
}

void QueryContext::Cancel() {
  cancelled_ = true;
  core::MutexLock lock(mu_);
  for (grpc::ClientContext* call : calls_) call->TryCancel();
  if (cancel_hook_) cancel_hook_();
}

bool QueryContext::SetCancelHook(std::function<void()> hook) {
  core::MutexLock lock(mu_);
  if (cancelled_) return false;
  cancel_hook_ = std::move(hook);
  return true;
}

void QueryContext::ClearCancelHook() {
  core::MutexLock lock(mu_);
  cancel_hook_ = nullptr;
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

void QueryContext::RecordWorkerElapsed(size_t index, uint64_t micros) {
  core::MutexLock lock(mu_);
  if (worker_elapsed_us_.size() <= index) worker_elapsed_us_.resize(index + 1);
  worker_elapsed_us_[index] += micros;
}

std::vector<uint64_t> QueryContext::WorkerElapsed() const {
  core::MutexLock lock(mu_);
  return worker_elapsed_us_;
}

void QueryContext::NoteMemory(uint64_t bytes) {
  uint64_t peak = peak_memory_.load(std::memory_order_relaxed);
  while (bytes > peak && !peak_memory_.compare_exchange_weak(peak, bytes)) {
  }
}

}  // namespace granite::coordinator

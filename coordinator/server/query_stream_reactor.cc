#include "coordinator/server/query_stream_reactor.h"

#include <utility>

#include "coordinator/server/clickhouse_service.h"
#include "coordinator/server/query_scheduler.h"
#include "coordinator/sql/parser.h"
#include "coordinator/server/statement_kind.h"
#include "core/error.h"
#include "core/memory/transport_memory_scope.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

namespace ch = clickhouse::grpc;

namespace {

absl::Status CancelledByClient() {
  return core::Error(core::ErrorCode::kQueryWasCancelled,
                     "The client cancelled the query while it sent the input");
}

}  // namespace

QueryStreamReactor::QueryStreamReactor(ClickHouseService* service,
                                       grpc::CallbackServerContext* context)
    : service_(service), context_(context) {
  StartRead(&first_);
}

void QueryStreamReactor::OnReadDone(bool ok) {
  switch (phase_) {
    case Phase::kFirst:
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no query"));
        return;
      }
      input_ = std::move(*first_.mutable_input_data());
      more_ = first_.next_query_info();
      // Parsed here, on the gRPC thread, once (statement_kind.h says what that costs).
      parsed_ = sql::ParseStatement(first_.query());
      streamed_ = TraitsOf(parsed_, 0, false).insert;
      if (!streamed_ && more_) {
        phase_ = Phase::kDrain;
        StartRead(&next_);
        return;
      }
      Dispatch();
      return;
    case Phase::kDrain:
      if (ok && next_.cancel()) {
        last_.set_cancelled(true);
        last_.set_query_id(first_.query_id());
        StartWriteAndFinish(&last_, grpc::WriteOptions(), grpc::Status::OK);
        return;
      }
      more_ = ok && next_.next_query_info();
      if (ok) input_.append(next_.input_data());
      if (more_) {
        StartRead(&next_);
      } else {
        Dispatch();
      }
      return;
    case Phase::kRunning: {
      if (!streamed_) {
        OnWatchReadDone(ok);
        return;
      }
      core::MutexLock lock(mu_);
      read_done_ = true;
      read_ok_ = ok;
      done_.notify_all();
      return;
    }
  }
}

void QueryStreamReactor::OnWriteDone(bool ok) {
  core::MutexLock lock(mu_);
  write_done_ = true;
  write_ok_ = ok;
  done_.notify_all();
}

void QueryStreamReactor::Dispatch() {
  phase_ = Phase::kRunning;
  absl::Status refused;
  query_ = service_->StartQuery(first_, context_->peer(), &refused);
  if (!refused.ok()) {
    Execute(refused);  // answered at once with the exception, never scheduled
    return;
  }
  // A client that goes away cancels the query, also while it waits for admission.
  QueryContext* query = query_.get();
  grpc::CallbackServerContext* context = context_;
  watch_.emplace(core::CancellationPoller::Global().Watch(
      [context] { return context->IsCancelled(); }, [query] { query->Cancel(); }));
  if (!streamed_) {
    {
      core::MutexLock lock(mu_);
      watched_query_ = query;
    }
    WatchForCancel();
  }
  QueryScheduler* scheduler = service_->scheduler_;
  const StatementTraits traits = TraitsOf(parsed_, first_.query().size() + input_.size(), more_);
  nice_ = service_->PriorityOf(traits);
  if (traits.admitted_select) {
    scheduled_select_ = true;
    // A lowered query never runs on gRPC's thread (core/thread_priority.h).
    scheduler->ScheduleSelect(
        query, [this](absl::StatusOr<AdmissionQueue::Slot> slot) { Execute(std::move(slot)); },
        /*may_run_inline=*/nice_ == 0);
  } else {
    // A small INSERT with all its rows at hand runs here when nothing else does (no hand-off).
    scheduler->ScheduleOther([this] { Execute(AdmissionQueue::Slot()); }, traits.short_insert);
  }
}

absl::StatusOr<bool> QueryStreamReactor::Next(std::string* piece) {
  while (more_) {
    {
      core::MutexLock lock(mu_);
      read_done_ = false;
    }
    {
      core::ScopedNormalPriority grpc_call;  // a bulk INSERT's reads: core/thread_priority.h
      StartRead(&next_);
    }
    bool ok = false;
    {
      core::MutexLock lock(mu_);
      while (!read_done_) done_.wait(mu_);
      ok = read_ok_;
    }
    if (!ok) break;  // the client closed its side: the input ends
    if (next_.cancel()) {
      more_ = false;
      cancelled_ = true;
      return CancelledByClient();
    }
    more_ = next_.next_query_info();
    if (next_.input_data().empty()) continue;
    piece->swap(*next_.mutable_input_data());
    return true;
  }
  more_ = false;
  if (cancelled_) return CancelledByClient();
  return false;
}

bool QueryStreamReactor::WriteAndWait(ch::Result& result) {
  {
    core::MutexLock lock(mu_);
    write_done_ = false;
  }
  {
    core::ScopedNormalPriority grpc_call;  // see core/thread_priority.h
    core::TransportMemoryScope transport;  // gRPC's slices are not the query's
    StartWrite(&result);
  }
  core::MutexLock lock(mu_);
  while (!write_done_) done_.wait(mu_);
  return write_ok_;
}

void QueryStreamReactor::WatchForCancel() {
  core::MutexLock lock(mu_);
  if (finishing_ || watched_query_ == nullptr) return;
  StartRead(&next_);
}

void QueryStreamReactor::OnWatchReadDone(bool ok) {
  if (!ok) return;  // the client closed its side (or the call ended): nothing more to watch
  if (!next_.cancel()) {
    WatchForCancel();  // input after the query started is ignored, as ClickHouse does
    return;
  }
  core::MutexLock lock(mu_);
  if (watched_query_ == nullptr) return;
  cancelled_ = true;
  watched_query_->Cancel();
}

void QueryStreamReactor::Execute(absl::StatusOr<AdmissionQueue::Slot> admitted) {
  if (admitted.ok() && scheduled_select_) query_->admitted = true;
  absl::Status admission = admitted.ok() ? absl::OkStatus() : admitted.status();
  ch::Result last = service_->RunStarted(
      [context = context_] { return context->IsCancelled(); }, first_, parsed_, input_,
      streamed_ ? this : nullptr,
      [this](ch::Result& part) {
        if (cancelled_) part.set_cancelled(true);
        return WriteAndWait(part);
      },
      query_.get(), admission, nice_);
  if (admitted.ok()) admitted->Release();  // the next queued SELECT may start now
  {
    core::MutexLock lock(mu_);
    watched_query_ = nullptr;
    finishing_ = true;
  }
  watch_.reset();  // waits for a cancel action in flight, which uses query_
  query_.reset();
  if (cancelled_) ClickHouseService::MarkCancelledByClient(&last);
  last_ = std::move(last);
  StartWriteAndFinish(&last_, grpc::WriteOptions(), grpc::Status::OK);
}

}  // namespace granite::coordinator

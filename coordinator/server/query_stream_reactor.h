// QueryStreamReactor: one ExecuteQueryWithStreamIO call on the callback gRPC server. gRPC's
// callback threads only start reads and writes and hand the query to the QueryScheduler; no thread
// waits for a queued query. The query's executor thread then runs it like the sync handler did:
// an INSERT reads its further input messages while it parses (Next() waits for each read), every
// output chunk is written before the next is made, and the last Result goes out with the finish.
//
// Protocol as the sync handler: the first QueryInfo holds the query; while one says
// next_query_info, more follow with input_data. A non-INSERT gets all its input before it runs; a
// cancel message then ends the call with a Result{cancelled} and runs nothing. A query is
// registered (system.processes, KILL QUERY) before it waits for admission, and a client that goes
// away cancels it, queued or running.
#pragma once

#include <condition_variable>
#include <memory>
#include <optional>
#include <string>

#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "coordinator/server/admission_queue.h"
#include "coordinator/exec/input_source.h"
#include "coordinator/server/query_context.h"
#include "coordinator/sql/ast.h"
#include "core/cancellation_poller.h"
#include "core/mutex.h"

namespace granite::coordinator {

class ClickHouseService;

// Serves one streamed query; deletes itself when gRPC is done with the call (OnDone).
// Thread-safety: OnReadDone / OnWriteDone run on gRPC threads, Next() and the query on an
// executor thread; they meet on mu_. The call is finished exactly once, after the query ended.
class QueryStreamReactor final
    : public grpc::ServerBidiReactor<clickhouse::grpc::QueryInfo, clickhouse::grpc::Result>,
      public InputSource {
 public:
  // REQUIRES: `service` outlives the call.
  QueryStreamReactor(ClickHouseService* service, grpc::CallbackServerContext* context);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override { delete this; }

  // InputSource: the input_data of the next QueryInfo (INSERTs only, on the executor thread).
  absl::StatusOr<bool> Next(std::string* piece) override;
  bool HasMore() const override { return more_; }

 private:
  enum class Phase { kFirst, kDrain, kRunning };

  // Registers the query and hands it to the scheduler.
  void Dispatch();
  // Runs the query on the executor thread and finishes the call.
  void Execute(absl::StatusOr<AdmissionQueue::Slot> admitted);
  // Writes `result` and waits until it is sent; false if the client went away.
  bool WriteAndWait(clickhouse::grpc::Result& result);

  ClickHouseService* const service_;
  grpc::CallbackServerContext* const context_;

  // Used by one thread at a time: gRPC's reads until Dispatch(), then the executor thread.
  Phase phase_ = Phase::kFirst;
  clickhouse::grpc::QueryInfo first_;
  clickhouse::grpc::QueryInfo next_;
  std::string input_;
  bool more_ = false;       // another QueryInfo follows
  bool streamed_ = false;   // an INSERT: reads its input while it runs
  // first_'s query, parsed when it arrives (statement_kind.h); run without parsing it again.
  absl::StatusOr<sql::Statement> parsed_ = absl::UnknownError("not parsed yet");
  bool cancelled_ = false;  // the client sent a cancel message
  bool scheduled_select_ = false;
  int nice_ = 0;  // the query's priority (ClickHouseService::PriorityOf)
  std::unique_ptr<QueryContext> query_;
  std::optional<core::CancellationPoller::Registration> watch_;
  clickhouse::grpc::Result last_;

  // Completion of the read or write the executor thread waits for.
  core::Mutex mu_{"query_stream_reactor"};
  std::condition_variable_any done_;
  bool read_done_ GUARDED_BY(mu_) = false;
  bool read_ok_ GUARDED_BY(mu_) = false;
  bool write_done_ GUARDED_BY(mu_) = false;
  bool write_ok_ GUARDED_BY(mu_) = false;
};

}  // namespace granite::coordinator

// Test-only: an in-process ClickHouse gRPC server with canned answers, for the client's tests
// (client_test.cc, query_runner_test.cc). Header-only so that it stays out of granite_client.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "core/mutex.h"
#include "grpcpp/grpcpp.h"

namespace granite::client::testing {

// What the fake answers to one query text.
struct CannedAnswer {
  std::vector<clickhouse::grpc::Result> results;  // Sent in order once the input is read.
  // After the results: keeps reading; on QueryInfo{cancel: true} answers Result{cancelled: true}
  // (unless `ignore_cancel`) and ends the call.
  bool wait_for_cancel = false;
  // Ignores cancels and the client's half-close: waits until the call is cancelled (10 s at most).
  bool ignore_cancel = false;
  std::function<void()> before_wait;  // Runs just before the wait (to trigger a cancel).
};

// Answers ExecuteQueryWithStreamIO from canned answers keyed by query text and records every
// QueryInfo of every call. Queries without an answer get an exception (code 1001).
// Thread-safety: thread-safe.
class FakeClickHouseService final : public clickhouse::grpc::ClickHouse::Service {
 public:
  void SetAnswer(const std::string& query, CannedAnswer answer) {
    core::MutexLock lock(mu_);
    answers_[query] = std::move(answer);
  }

  // Returns the messages of each finished call, calls in order of their end.
  std::vector<std::vector<clickhouse::grpc::QueryInfo>> Calls() {
    core::MutexLock lock(mu_);
    return calls_;
  }

  grpc::Status ExecuteQueryWithStreamIO(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<clickhouse::grpc::Result, clickhouse::grpc::QueryInfo>* stream)
      override {
    std::vector<clickhouse::grpc::QueryInfo> received;
    clickhouse::grpc::QueryInfo info;
    while (stream->Read(&info)) {
      received.push_back(info);
      if (!info.next_query_info()) break;
    }
    if (received.empty()) return grpc::Status::OK;
    CannedAnswer answer = Lookup(received.front().query());
    for (const clickhouse::grpc::Result& result : answer.results) stream->Write(result);
    if (answer.wait_for_cancel) {
      if (answer.before_wait) answer.before_wait();
      while (stream->Read(&info)) {
        received.push_back(info);
        if (info.cancel() && !answer.ignore_cancel) {
          clickhouse::grpc::Result cancelled;
          cancelled.set_cancelled(true);
          stream->Write(cancelled);
          break;
        }
      }
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (answer.ignore_cancel && !context->IsCancelled() &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    core::MutexLock lock(mu_);
    calls_.push_back(std::move(received));
    return grpc::Status::OK;
  }

 private:
  CannedAnswer Lookup(const std::string& query) {
    core::MutexLock lock(mu_);
    auto it = answers_.find(query);
    if (it != answers_.end()) return it->second;
    CannedAnswer missing;
    clickhouse::grpc::Exception* exception = missing.results.emplace_back().mutable_exception();
    exception->set_code(1001);
    exception->set_name("STD_EXCEPTION");
    exception->set_display_text("No canned answer for: " + query);
    return missing;
  }

  core::Mutex mu_{"fake_clickhouse_service"};
  std::map<std::string, CannedAnswer> answers_ GUARDED_BY(mu_);
  std::vector<std::vector<clickhouse::grpc::QueryInfo>> calls_ GUARDED_BY(mu_);
};

// Runs a FakeClickHouseService on an ephemeral loopback port until destroyed.
class FakeClickHouseServer {
 public:
  FakeClickHouseServer() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~FakeClickHouseServer() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }

  int port() const { return port_; }
  FakeClickHouseService& service() { return service_; }

 private:
  FakeClickHouseService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// Returns a Result carrying `output` bytes.
inline clickhouse::grpc::Result OutputResult(const std::string& output) {
  clickhouse::grpc::Result result;
  result.set_output(output);
  return result;
}

// Returns a Result carrying an exception.
inline clickhouse::grpc::Result ExceptionResult(int code, const std::string& name,
                                                const std::string& text) {
  clickhouse::grpc::Result result;
  result.mutable_exception()->set_code(code);
  result.mutable_exception()->set_name(name);
  result.mutable_exception()->set_display_text(text);
  return result;
}

// Returns a Result carrying stats with `rows`.
inline clickhouse::grpc::Result StatsResult(uint64_t rows) {
  clickhouse::grpc::Result result;
  result.mutable_stats()->set_rows(rows);
  return result;
}

}  // namespace granite::client::testing

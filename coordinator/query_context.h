// QueryContext: the per-query state shared by the service handler, the fan-out threads and the
// merger: id, cancellation (reaching every worker stream at once), and read statistics.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "core/mutex.h"

namespace granite::coordinator {

// Tracks one running query.
// Thread-safety: all methods are safe to call concurrently.
class QueryContext {
 public:
  explicit QueryContext(std::string query_id) : query_id_(std::move(query_id)) {}

  const std::string& query_id() const { return query_id_; }

  // Cancels the query: every registered worker call is cancelled now, later ones at once.
  void Cancel() EXCLUDES(mu_);
  bool cancelled() const { return cancelled_.load(); }

  // Registers a worker call so Cancel() reaches it; returns false if already cancelled.
  bool Register(grpc::ClientContext* context) EXCLUDES(mu_);
  void Unregister(grpc::ClientContext* context) EXCLUDES(mu_);

  std::atomic<uint64_t> read_rows{0};
  std::atomic<uint64_t> read_bytes{0};
  std::atomic<uint64_t> total_rows_to_read{0};
  std::atomic<uint64_t> merge_ns{0};

 private:
  const std::string query_id_;
  std::atomic<bool> cancelled_{false};
  core::Mutex mu_{"query_context"};
  std::vector<grpc::ClientContext*> calls_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator

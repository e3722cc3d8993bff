// ClickHouseService: the coordinator's client-facing gRPC boundary, wire-compatible with
// ClickHouse's clickhouse.grpc.ClickHouse service (all four methods). It gathers the query and its
// streamed input, runs it through the QueryExecutor, formats the result, and streams Result
// messages: output chunks, then a final one with progress and stats — or an exception.
#pragma once

#include <functional>

#include "clickhouse/grpc/clickhouse_grpc.grpc.pb.h"
#include "coordinator/query_executor.h"

namespace granite::coordinator {

// Serves ClickHouse gRPC clients.
// Thread-safety: handlers run concurrently on gRPC threads; each query has its own state.
class ClickHouseService final : public clickhouse::grpc::ClickHouse::Service {
 public:
  explicit ClickHouseService(QueryExecutor* executor) : executor_(executor) {}

  grpc::Status ExecuteQuery(grpc::ServerContext* context, const clickhouse::grpc::QueryInfo* info,
                            clickhouse::grpc::Result* result) override;
  grpc::Status ExecuteQueryWithStreamInput(
      grpc::ServerContext* context, grpc::ServerReader<clickhouse::grpc::QueryInfo>* reader,
      clickhouse::grpc::Result* result) override;
  grpc::Status ExecuteQueryWithStreamOutput(
      grpc::ServerContext* context, const clickhouse::grpc::QueryInfo* info,
      grpc::ServerWriter<clickhouse::grpc::Result>* writer) override;
  grpc::Status ExecuteQueryWithStreamIO(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<clickhouse::grpc::Result, clickhouse::grpc::QueryInfo>* stream)
      override;

 private:
  using Emit = std::function<bool(clickhouse::grpc::Result&)>;
  // Runs the query of `info` with `input`, emitting Results; the last one carries stats.
  void Run(grpc::ServerContext* context, const clickhouse::grpc::QueryInfo& info,
           const std::string& input, const Emit& emit);

  QueryExecutor* executor_;
};

}  // namespace granite::coordinator

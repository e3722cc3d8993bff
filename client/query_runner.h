// Runs one query against a ClickHouse-protocol gRPC server (the granite coordinator, or ClickHouse
// itself) over ExecuteQueryWithStreamIO, the way ClickHouse's own gRPC client does. Used by the
// command-line client (client.h) and meant for any other tool that sends queries (load generators).
//
// Wire behaviour (see shared/clickhouse-grpc-wire.md):
//   - The first QueryInfo carries the query (and the first input chunk, if there is input).
//   - Input is streamed as input_data chunks with next_query_info = true, then an empty QueryInfo.
//   - Each Result's output bytes are handed over as they arrive; progress increments are summed;
//     the last stats win; an exception or `cancelled` ends the query.
//   - While the query runs, a cancel request sends QueryInfo{cancel: true}; if the server has not
//     finished `cancel_grace` later, the call itself is cancelled.
//
// Only this file's .cc includes gRPC's C++ headers; callers see protobuf messages only.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "clickhouse/grpc/clickhouse_grpc.pb.h"

namespace grpc {
class Channel;
class ChannelCredentials;
}  // namespace grpc

namespace granite::client {

// Size of the input_data chunks that stock ClickHouse clients send.
inline constexpr size_t kInputChunkSize = 1 << 20;

// Fills `chunk` (cleared first) with the next piece of input; returns false at end of input.
using InputReader = std::function<bool(std::string* chunk)>;

// Returns a reader that reads `in` in chunks of `chunk_size` bytes.
// REQUIRES: `in` outlives the reader.
InputReader StreamInputReader(std::istream& in, size_t chunk_size = kInputChunkSize);

// How to run one query; every member is optional.
struct ExecuteOptions {
  // Receives each piece of Result.output as it arrives. If unset, the output is collected in
  // QueryResult::output instead.
  std::function<void(std::string_view)> on_output;
  // Receives each progress increment as it arrives.
  std::function<void(const clickhouse::grpc::Progress&)> on_progress;
  // Supplies input_data for the query (e.g. the rows of INSERT ... FORMAT CSV).
  InputReader input;
  // Polled (every `cancel_poll` and between input chunks) while the query runs; once it returns
  // true, a cancel is sent.
  std::function<bool()> cancel_requested;
  std::chrono::milliseconds cancel_poll{20};
  std::chrono::milliseconds cancel_grace{5000};
  // Deadline of the whole call; unset means none.
  std::optional<std::chrono::milliseconds> timeout;
};

// What the server answered for one query.
struct QueryResult {
  std::string output;  // Result.output bytes, unless ExecuteOptions::on_output took them.
  std::string totals;
  std::string extremes;
  clickhouse::grpc::Progress progress;  // Sum of the increments.
  clickhouse::grpc::Stats stats;        // The last stats received.
  std::optional<clickhouse::grpc::Exception> exception;  // The server's error, if any.
  bool cancelled = false;  // The server confirmed a cancel.
  std::string query_id;    // As reported by the server ("" if it did not say).
  std::string output_format;
  bool cancel_sent = false;  // The client sent QueryInfo{cancel: true}.
};

// Returns an insecure channel to host:port (IPv6 hosts are bracketed) with no limit on the size of
// received messages. Connecting is lazy: a dead server shows up as the first query's error.
std::shared_ptr<grpc::Channel> MakeChannel(
    const std::string& host, int port,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

// Returns "host:port", bracketing an IPv6 host ("[::1]:9100").
std::string HostPort(const std::string& host, int port);

// Runs `info` (query, settings, credentials, ...) on `channel` and waits for the end of the stream.
// A server-side error is not a failed Status: it is QueryResult::exception. A failed Status means
// the call itself failed (server unreachable, deadline, transport error); its code is the gRPC
// code and its message the gRPC message.
// Thread-safety: may run concurrently on one channel from many threads. `options` callbacks run on
// the calling thread, except `input` and `cancel_requested`, which run on a writer thread.
absl::StatusOr<QueryResult> ExecuteQuery(const std::shared_ptr<grpc::Channel>& channel,
                                         const clickhouse::grpc::QueryInfo& info,
                                         const ExecuteOptions& options = {});

// Returns a random RFC 4122 version 4 UUID in its text form, for query and session ids.
std::string RandomUuid();

}  // namespace granite::client

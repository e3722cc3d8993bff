// INSERT on the cluster: parses the rows (VALUES, a text format, or a SELECT), converts them to the
// table's column types, splits them across workers (by the table's sharding key, else evenly:
// coordinator/cluster/sharding_key.h) and sends each worker its share in two phases (prepare everywhere,
// then commit everywhere); the insert is acknowledged once every worker has committed.
// Text input is parsed and sent in chunks (InsertOptions): each chunk's slices go to the workers
// as further PrepareInsert calls under the insert's one token, so the coordinator holds about one
// chunk at a time however big the input; CommitInsert at the end makes all chunks visible at once.
// A malformed row in any chunk, or a worker failing to prepare any chunk, aborts the insert on
// every worker, so nothing becomes visible.
// With a parse pool (setting input_format_parallel_parsing), the chunks of a text format after the
// first are cut ahead and parsed, converted and encoded on the pool, a few at a time, while the
// insert's thread sends the earlier ones in order (exec/chunk_queue.h): rows arrive in input
// order, and an error names the row and line of the whole text as a serial parse would.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/formats/input_progress.h"
#include "coordinator/exec/input_source.h"
#include "coordinator/exec/result_sink.h"
#include "coordinator/sql/ast.h"
#include "coordinator/cluster/worker_set.h"
#include "core/block.h"
#include "core/block_codec.h"
#include "core/table_schema.h"

namespace granite::core {
class ThreadPool;
}  // namespace granite::core

namespace granite::coordinator {

// Runs a SELECT and returns its result block (for INSERT ... SELECT and non-literal VALUES).
using SelectRunner = std::function<absl::StatusOr<core::Block>(const sql::SelectStatement&)>;
// Runs a SELECT handing its rows to `sink` as they are produced (Begin first): a projecting
// SELECT streams block by block from the workers, any other arrives as one block.
using SelectStreamer = std::function<absl::Status(const sql::SelectStatement&, ResultSink*)>;

// Inserts into replicated shards (replicated_insert.h), from the query's settings.
struct ReplicationOptions {
  std::string quorum = "auto";      // insert_quorum: "auto" (a majority), 0 (= 1) or a count
  bool deduplicate = true;          // insert_deduplicate
  std::string deduplication_token;  // insert_deduplication_token
};

// How an insert of text input is cut into chunks.
struct InsertOptions {
  // A chunk ends after this many rows or after the row that reaches this many bytes of text.
  InputLimits chunk{1 << 20, 64 << 20};
  // Polled before each chunk is sent; when it returns true the insert is aborted everywhere
  // (QUERY_WAS_CANCELLED): KILL QUERY and a departed client stop a long load between chunks.
  std::function<bool()> cancelled;
  // input_format_null_as_default: a NULL for a column that is not Nullable becomes its default.
  bool null_as_default = true;
  // When set, chunks of text input are parsed, converted and encoded on this pool, at most
  // `parse_window` chunks at a time (0: the pool's threads + 1), while the insert's thread sends
  // earlier ones; each held chunk costs up to about `chunk.max_bytes` of text plus its columns.
  core::ThreadPool* parse_pool = nullptr;
  size_t parse_window = 0;
  // network_compression_method when the query set it; unset: LZ4 to workers on other hosts and
  // none to workers on this one, where compressing only costs CPU on both ends.
  std::optional<core::WireCompression> compression;
  ReplicationOptions replication;  // used when the cluster has replicas
  // When set, INSERT ... SELECT takes the SELECT's rows through it and sends them in chunks of
  // `chunk` rows as they come, so the coordinator never holds the whole result.
  SelectStreamer stream_select;
};

// Returns a fresh random token naming one two-phase insert on every worker (32 hex digits).
std::string NewInsertToken();

// Inserts into `schema`'s table; returns the number of rows written. The text of an
// INSERT ... FORMAT is the statement's inline data, then `input`, then the pieces of
// `more_input` (may be null).
absl::StatusOr<uint64_t> ExecuteInsert(const sql::InsertStatement& insert, std::string_view input,
                                       InputSource* more_input,
                                       const core::TableSchema& schema,
                                       const WorkerSet& workers, const SelectRunner& run_select,
                                       const InsertOptions& options = {});

}  // namespace granite::coordinator

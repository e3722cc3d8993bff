// Worker API, typed: the requests and answers of every worker RPC except Execute (whose fragment
// and result chunks are core/plan/), as plain structs over core types. The coordinator's
// WorkerClient (coordinator/cluster/worker_client.h) takes and returns these; core/wire/
// worker_codec.h converts them to and from the generated messages of
// proto/granite/worker/v1/worker.proto, field for field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/plan/fragment_result.h"
#include "core/table_schema.h"

namespace granite::core::worker_api {

// --- Inserts (two phases: storage/table.h) -------------------------------------------------

// Insert / PrepareInsert: one block of rows for `table`, LZ4-compressed (core/block_codec.h).
struct InsertRequest {
  std::string table;
  plan::EncodedBlock block;
  std::string insert_id;  // PrepareInsert: the insert's token
  uint64_t chunk = 0;     // PrepareInsert: 0, 1, ... within the token
  bool retain = false;    // keep the chunks for replicas that miss the block (block_log.h)
  std::string block_id;   // with retain, on the last chunk: the id the commit will record
};

struct InsertResult {
  uint64_t rows = 0;
  std::string part;   // Insert: the new parts' names, comma-separated
  std::string token;  // PrepareInsert: the token to commit or abort
};

struct CommitInsertRequest {
  std::string table;
  std::string token;
  std::string block_id;  // with replicas: the block's deduplication id
};

struct CommitInsertResult {
  std::vector<std::string> parts;  // made visible
  bool deduplicated = false;
};

// A block a replica retains for its peers (ListBlocks).
struct BlockEntry {
  std::string id;  // hex name of the block id, as GetBlock and ReleaseBlocks take it
  bool has_data = false;
};

// GetBlock: the retained chunks of one block.
struct RetainedBlock {
  std::vector<plan::EncodedBlock> chunks;
  uint64_t checksum = 0;  // core/chunk_checksum.h over the chunks
  std::string block_id;   // the id itself, for CommitInsert on the replica that misses it
};

// CloneReplica: what a replica copied from a peer (worker/replica_cloner.h).
struct CloneResult {
  uint64_t parts = 0;  // parts installed
  uint64_t rows = 0;
  uint64_t bytes = 0;  // bytes copied
  uint64_t reused_parts = 0;
};

// --- Tables and databases -----------------------------------------------------------------

struct CreateTableRequest {
  TableSchema schema;
  bool if_not_exists = false;
  bool or_replace = false;
};

struct TableInfo {
  TableSchema schema;
  uint64_t rows = 0;
  uint64_t parts = 0;
  uint64_t bytes_on_disk = 0;
};

struct BrokenTable {
  std::string name;
  std::string error;  // why it could not be opened
};

// ListTables: what one worker holds.
struct TableListing {
  std::vector<TableInfo> tables;
  std::vector<BrokenTable> broken_tables;
  std::vector<std::string> databases;
  std::string access;  // the access entities' text (storage/access_file.h); empty: none
};

struct CatalogOpRequest {
  enum class Kind {
    kCreateDatabase,
    kDropDatabase,
    kRenameTable,
    kTruncateTable,
    kSetAccess,
    kAlterSchema
  };
  Kind kind = Kind::kCreateDatabase;
  std::string name;
  std::string new_name;    // kRenameTable; kSetAccess: the access entities' text
  bool if_exists = false;  // no error if it exists (create) or is missing (drop, truncate)
  TableSchema schema;      // kAlterSchema: the table's new declared schema
};

// --- Parts and merges ---------------------------------------------------------------------

struct PartInfo {
  std::string table;
  std::string name;
  uint64_t rows = 0;
  uint64_t bytes_on_disk = 0;
  bool active = false;     // false: replaced by a merge, kept while a query still reads it
  std::string partition;   // the partition value as text ("tuple()" without PARTITION BY)
  uint32_t level = 0;
  std::string partition_id;
  uint64_t marks = 0;      // granules
  uint64_t min_block = 0;
  uint64_t max_block = 0;
  uint64_t data_uncompressed_bytes = 0;
  uint64_t data_compressed_bytes = 0;
  std::string part_type;  // "Wide" or "Compact"
  // Per schema column: its blocks' bytes on disk and decoded (system.columns).
  std::vector<uint64_t> column_compressed_bytes;
  std::vector<uint64_t> column_uncompressed_bytes;
};

struct DetachedPartInfo {
  std::string table;
  std::string name;          // directory name, as ATTACH PART / DROP DETACHED PART take it
  std::string reason;        // "broken" for damaged data, else ""
  std::string partition_id;  // empty when the name is no part name
  uint64_t min_block = 0;
  uint64_t max_block = 0;
  uint32_t level = 0;
  uint64_t bytes_on_disk = 0;
  std::string path;
};

// ListParts: active, outdated and detached parts of every table of one worker.
struct PartListing {
  std::vector<PartInfo> parts;
  std::vector<DetachedPartInfo> detached_parts;
};

// AttachPart / DropDetachedPart.
struct DetachedPartRequest {
  std::string table;
  std::string name;  // directory name under detached/
};

struct PartCheck {
  std::string part_path;
  bool is_passed = false;
  std::string message;
};

struct OptimizeRequest {
  std::string table;
  bool final = false;
};

struct MergeInfo {
  std::string table;
  std::string partition_id;
  std::string result_part;
  std::vector<std::string> source_parts;
  double elapsed = 0;   // seconds
  double progress = 0;  // 0..1
  uint64_t rows_read = 0;
  uint64_t rows_written = 0;
  uint64_t total_rows = 0;
  uint64_t total_bytes_compressed = 0;
  bool optimize = false;  // started by OPTIMIZE TABLE
};

// --- The process ----------------------------------------------------------------------------

// GetInfo: placement and process facts (worker/worker_info.h).
struct ProcessInfo {
  int32_t numa_node = -1;  // -1: not pinned
  std::string cpus;        // kernel list form, "0-3,8"
  uint32_t cpu_count = 0;
  std::string memory_policy;  // "bind", "preferred", "default" or "unsupported"
  uint32_t threads = 0;
  bool numa_supported = false;
  uint32_t numa_nodes = 0;
  std::string placement;  // the start-up "NUMA: ..." line
  uint32_t pid = 0;
  std::string hostname;
  std::string version;
  std::string data_dir;
  double uptime_seconds = 0;
};

}  // namespace granite::core::worker_api

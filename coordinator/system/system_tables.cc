#include "coordinator/system/system_tables.h"

#include <map>

#include "absl/strings/str_join.h"
#include "coordinator/access/users_table.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/system/catalog_tables.h"
#include "coordinator/system/functions_table.h"
#include "coordinator/system/replicas_tables.h"
#include "coordinator/system/table_builder.h"
#include "coordinator/system/workers_table.h"
#include "core/error.h"
#include "core/metrics/metrics_snapshot.h"

namespace granite::coordinator {

namespace api = core::worker_api;
using core::TypeId;

namespace {

// Asks every worker for its tables; a worker that does not answer gets an empty response and
// `up[i] = false`.
std::vector<api::TableListing> ListTablesEverywhere(const WorkerSet& workers,
                                                    std::vector<char>* up) {
  std::vector<api::TableListing> responses(workers.size());
  up->assign(workers.size(), false);
  (void)workers.CallAll([&](size_t i) {  // each call records its own outcome in `up`
    auto listing = WorkerClient(workers).ListTables(i, std::chrono::seconds(5));
    (*up)[i] = listing.ok();
    if (listing.ok()) responses[i] = *std::move(listing);
    return absl::OkStatus();
  });
  return responses;
}

// Asks every worker for its parts (active, outdated and detached); a worker that does not answer
// gets an empty response.
std::vector<api::PartListing> ListPartsEverywhere(const WorkerSet& workers) {
  std::vector<api::PartListing> responses(workers.size());
  (void)workers.CallAll([&](size_t i) {
    auto listing = WorkerClient(workers).ListParts(i, std::chrono::seconds(5));
    if (listing.ok()) responses[i] = *std::move(listing);
    return absl::OkStatus();
  });
  return responses;
}

// The coordinator's own metrics and every answering worker's, labelled by the `worker` column.
struct ProcessMetrics {
  std::string worker;
  core::MetricsReport metrics;
};

std::vector<ProcessMetrics> MetricsEverywhere(const WorkerSet& workers) {
  std::vector<ProcessMetrics> out(1);
  out[0].worker = "coordinator";
  out[0].metrics = core::ReportOf(core::TakeMetricsSnapshot());
  std::vector<absl::StatusOr<core::MetricsReport>> responses(workers.size());
  (void)workers.CallAll([&](size_t i) {
    responses[i] = WorkerClient(workers).GetMetrics(i, std::chrono::seconds(5));
    return absl::OkStatus();
  });
  for (size_t i = 0; i < workers.size(); ++i) {
    if (responses[i].ok()) out.push_back({std::to_string(i), *std::move(responses[i])});
  }
  return out;
}

LocalTable MetricRowsTable(const std::string& name_column, bool signed_value,
                           const std::vector<ProcessMetrics>& processes, bool events) {
  TableBuilder t({name_column, "value", "description", "worker"},
                 {TypeId::kString, signed_value ? TypeId::kInt64 : TypeId::kUInt64,
                  TypeId::kString, TypeId::kString});
  for (const ProcessMetrics& process : processes) {
    const auto& rows = events ? process.metrics.events : process.metrics.metrics;
    for (const core::MetricRow& row : rows) {
      t[0].AppendString(row.name);
      if (signed_value) {
        t[1].Append<int64_t>(row.value);
      } else {
        t[1].Append<uint64_t>(static_cast<uint64_t>(row.value));
      }
      t[2].AppendString(row.description);
      t[3].AppendString(process.worker);
    }
  }
  return t.Build();
}

LocalTable LocksTable(const std::vector<ProcessMetrics>& processes) {
  TableBuilder t({"name", "acquisitions", "contended", "wait_microseconds", "worker"},
                 {TypeId::kString, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                  TypeId::kString});
  for (const ProcessMetrics& process : processes) {
    for (const core::LockTotals& lock : process.metrics.locks) {
      t[0].AppendString(lock.name);
      t[1].Append<uint64_t>(lock.acquisitions);
      t[2].Append<uint64_t>(lock.contended);
      t[3].Append<uint64_t>(lock.wait_ns / 1000);
      t[4].AppendString(process.worker);
    }
  }
  return t.Build();
}

LocalTable ProcessesTable(const QueryRegistry* queries) {
  TableBuilder t({"query_id", "query", "query_kind", "elapsed", "read_rows", "read_bytes",
                  "queued", "user", "memory_usage", "peak_memory_usage"},
                 {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kFloat64,
                  TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt8, TypeId::kString,
                  TypeId::kInt64, TypeId::kInt64});
  if (queries == nullptr) return t.Build();
  for (const RunningQuery& query : queries->Running()) {
    t[0].AppendString(query.query_id);
    t[1].AppendString(query.query);
    t[2].AppendString(QueryKindName(query.kind));
    t[3].Append<double>(query.elapsed_seconds);
    t[4].Append<uint64_t>(query.read_rows);
    t[5].Append<uint64_t>(query.read_bytes);
    t[6].Append<uint8_t>(query.queued ? 1 : 0);  // waiting for a SELECT execution slot
    t[7].AppendString(query.user);
    // On the coordinator (core/memory/memory_tracker.h), as ClickHouse's initiator shows it.
    t[8].Append<int64_t>(query.memory_usage);
    t[9].Append<int64_t>(query.peak_memory_usage);
  }
  return t.Build();
}

uint32_t EpochSeconds(std::chrono::system_clock::time_point time) {
  return static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count());
}

int64_t EpochMicroseconds(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}

LocalTable QueryLogTable(const QueryRegistry* queries) {
  TableBuilder t({"type", "event_time", "query_start_time", "query_duration_ms", "read_rows",
                  "read_bytes", "written_rows", "result_rows", "memory_usage", "query",
                  "query_kind", "exception_code", "exception", "query_id", "worker_elapsed_us",
                  "final_merge_skipped", "selected_parts", "selected_parts_total",
                  "selected_marks", "selected_marks_total", "queue_wait_us", "user",
                  "event_date", "event_time_microseconds", "query_start_time_microseconds"},
                 {TypeId::kString, TypeId::kDateTime, TypeId::kDateTime, TypeId::kUInt64,
                  TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                  TypeId::kUInt64, TypeId::kString, TypeId::kString, TypeId::kInt32,
                  TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kUInt8,
                  TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                  TypeId::kUInt64, TypeId::kString, TypeId::kDate, core::MakeDateTime64(6),
                  core::MakeDateTime64(6)});
  if (queries == nullptr) return t.Build();
  for (const QueryLogEntry& entry : queries->Log()) {
    t[0].AppendString(entry.exception_code == 0 ? "QueryFinish" : "ExceptionWhileProcessing");
    t[1].Append<uint32_t>(EpochSeconds(entry.finish_time));
    t[2].Append<uint32_t>(EpochSeconds(entry.start_time));
    t[3].Append<uint64_t>(entry.duration_us / 1000);
    t[4].Append<uint64_t>(entry.read_rows);
    t[5].Append<uint64_t>(entry.read_bytes);
    t[6].Append<uint64_t>(entry.written_rows);
    t[7].Append<uint64_t>(entry.result_rows);
    t[8].Append<uint64_t>(entry.memory_usage);
    t[9].AppendString(entry.query);
    t[10].AppendString(QueryKindName(entry.kind));
    t[11].Append<int32_t>(entry.exception_code);
    t[12].AppendString(entry.exception);
    t[13].AppendString(entry.query_id);
    t[14].AppendString(absl::StrJoin(entry.worker_elapsed_us, ","));
    t[15].Append<uint8_t>(entry.final_merge_skipped ? 1 : 0);
    t[16].Append<uint64_t>(entry.selected_parts);
    t[17].Append<uint64_t>(entry.selected_parts_total);
    t[18].Append<uint64_t>(entry.selected_marks);
    t[19].Append<uint64_t>(entry.selected_marks_total);
    t[20].Append<uint64_t>(entry.queue_wait_us);
    t[21].AppendString(entry.user);
    t[22].Append<uint16_t>(static_cast<uint16_t>(EpochSeconds(entry.finish_time) / 86400));
    t[23].Append<int64_t>(EpochMicroseconds(entry.finish_time));
    t[24].Append<int64_t>(EpochMicroseconds(entry.start_time));
  }
  return t.Build();
}

}  // namespace

absl::StatusOr<LocalTable> BuildSystemTable(const std::string& name, const WorkerSet& workers,
                                            const Catalog& catalog, const QueryRegistry* queries) {
  if (name == "columns") {
    // Column sizes summed over every worker's active parts.
    ColumnBytes bytes;
    for (const api::PartListing& listing : ListPartsEverywhere(workers)) {
      for (const api::PartInfo& part : listing.parts) {
        if (!part.active) continue;
        std::vector<std::pair<uint64_t, uint64_t>>& sums = bytes[part.table];
        const size_t n = part.column_compressed_bytes.size();
        if (sums.size() < n) sums.resize(n);
        for (size_t c = 0; c < n && c < part.column_uncompressed_bytes.size(); ++c) {
          sums[c].first += part.column_compressed_bytes[c];
          sums[c].second += part.column_uncompressed_bytes[c];
        }
      }
    }
    return *BuildCatalogSystemTable(name, catalog, &bytes);
  }
  if (std::optional<LocalTable> table = BuildCatalogSystemTable(name, catalog)) return *table;
  if (name == "metrics") return MetricRowsTable("metric", true, MetricsEverywhere(workers), false);
  if (name == "events") return MetricRowsTable("event", false, MetricsEverywhere(workers), true);
  if (name == "locks") return LocksTable(MetricsEverywhere(workers));
  if (name == "processes") return ProcessesTable(queries);
  if (name == "functions") return BuildFunctionsTable();
  if (name == "users") return access::UsersTable(*access::AccessControl::Current());
  if (name == "query_log") return QueryLogTable(queries);
  if (name == "tables") {
    std::vector<char> up;  // not vector<bool>: threads write neighbouring entries
    auto responses = ListTablesEverywhere(workers, &up);
    std::map<std::string, std::pair<uint64_t, uint64_t>> totals;  // rows, bytes
    // With replicas, each shard counts once: its replica holding the most rows.
    std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> per_shard;
    for (size_t i = 0; i < responses.size(); ++i) {
      for (const auto& table : responses[i].tables) {
        auto& shards = per_shard[table.schema.name];
        shards.resize(workers.shard_count());
        auto& shard = shards[workers.ShardOf(i)];
        if (table.rows >= shard.first) shard = {table.rows, table.bytes_on_disk};
      }
    }
    for (const auto& [name, shards] : per_shard) {
      for (const auto& [rows, bytes] : shards) {
        totals[name].first += rows;
        totals[name].second += bytes;
      }
    }
    TableBuilder t({"database", "name", "engine", "total_rows", "total_bytes", "sharding_key"},
                   {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kUInt64,
                    TypeId::kUInt64, TypeId::kString});
    for (const auto& schema : catalog.All()) {
      QualifiedTable table = SplitTableName(schema.name);
      t[0].AppendString(table.database);
      t[1].AppendString(table.table);
      t[2].AppendString(schema.engine);
      t[3].Append<uint64_t>(totals[schema.name].first);
      t[4].Append<uint64_t>(totals[schema.name].second);
      t[5].AppendString(absl::StrJoin(schema.sharding_key, ", "));
    }
    return t.Build();
  }
  if (name == "workers") return BuildWorkersTable(workers);  // health and placement
  if (name == "clusters") return BuildClustersTable(workers);  // shards x replicas
  if (name == "replicas") return BuildReplicasTable(workers);
  if (name == "parts") {
    // Active parts and, with active = 0, parts replaced by a merge that a query still reads.
    std::vector<api::PartListing> responses = ListPartsEverywhere(workers);
    TableBuilder t({"database", "table", "partition", "partition_id", "name", "rows",
                    "bytes_on_disk", "data_uncompressed_bytes", "marks", "min_block_number",
                    "max_block_number", "level", "active", "worker", "data_compressed_bytes",
                    "part_type"},
                   {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                    TypeId::kString, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                    TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt32,
                    TypeId::kUInt8, TypeId::kUInt32, TypeId::kUInt64, TypeId::kString});
    for (size_t i = 0; i < workers.size(); ++i) {
      for (const auto& part : responses[i].parts) {
        QualifiedTable table = SplitTableName(part.table);
        t[0].AppendString(table.database);
        t[1].AppendString(table.table);
        t[2].AppendString(part.partition);
        t[3].AppendString(part.partition_id);
        t[4].AppendString(part.name);
        t[5].Append<uint64_t>(part.rows);
        t[6].Append<uint64_t>(part.bytes_on_disk);
        t[7].Append<uint64_t>(part.data_uncompressed_bytes);
        t[8].Append<uint64_t>(part.marks);
        t[9].Append<uint64_t>(part.min_block);
        t[10].Append<uint64_t>(part.max_block);
        t[11].Append<uint32_t>(part.level);
        t[12].Append<uint8_t>(part.active ? 1 : 0);
        t[13].Append<uint32_t>(i);
        t[14].Append<uint64_t>(part.data_compressed_bytes);
        t[15].AppendString(part.part_type);
      }
    }
    return t.Build();
  }
  if (name == "detached_parts") {
    // Parts taken out of their table (storage/detached_parts.h), as ClickHouse lists them.
    std::vector<api::PartListing> responses = ListPartsEverywhere(workers);
    TableBuilder t({"database", "table", "partition_id", "name", "bytes_on_disk", "disk", "path",
                    "reason", "min_block_number", "max_block_number", "level", "worker"},
                   {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                    TypeId::kUInt64, TypeId::kString, TypeId::kString, TypeId::kString,
                    TypeId::kInt64, TypeId::kInt64, TypeId::kUInt32, TypeId::kUInt32});
    for (size_t i = 0; i < workers.size(); ++i) {
      for (const auto& part : responses[i].detached_parts) {
        QualifiedTable table = SplitTableName(part.table);
        t[0].AppendString(table.database);
        t[1].AppendString(table.table);
        t[2].AppendString(part.partition_id);
        t[3].AppendString(part.name);
        t[4].Append<uint64_t>(part.bytes_on_disk);
        t[5].AppendString("default");
        t[6].AppendString(part.path);
        t[7].AppendString(part.reason);
        t[8].Append<int64_t>(static_cast<int64_t>(part.min_block));
        t[9].Append<int64_t>(static_cast<int64_t>(part.max_block));
        t[10].Append<uint32_t>(part.level);
        t[11].Append<uint32_t>(i);
      }
    }
    return t.Build();
  }
  if (name == "merges") {
    std::vector<std::vector<api::MergeInfo>> responses(workers.size());
    (void)workers.CallAll([&](size_t i) {  // a worker that does not answer lists no merges
      auto merges = WorkerClient(workers).ListMerges(i, std::chrono::seconds(5));
      if (merges.ok()) responses[i] = *std::move(merges);
      return absl::OkStatus();
    });
    TableBuilder t({"database", "table", "elapsed", "progress", "num_parts", "source_part_names",
                    "result_part_name", "partition_id", "total_size_bytes_compressed",
                    "rows_read", "rows_written", "total_rows", "is_optimize", "worker"},
                   {TypeId::kString, TypeId::kString, TypeId::kFloat64, TypeId::kFloat64,
                    TypeId::kUInt64, TypeId::kString, TypeId::kString, TypeId::kString,
                    TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt64,
                    TypeId::kUInt8, TypeId::kUInt32});
    for (size_t i = 0; i < workers.size(); ++i) {
      for (const auto& merge : responses[i]) {
        QualifiedTable table = SplitTableName(merge.table);
        t[0].AppendString(table.database);
        t[1].AppendString(table.table);
        t[2].Append<double>(merge.elapsed);
        t[3].Append<double>(merge.progress);
        t[4].Append<uint64_t>(merge.source_parts.size());
        t[5].AppendString(absl::StrJoin(merge.source_parts, ","));
        t[6].AppendString(merge.result_part);
        t[7].AppendString(merge.partition_id);
        t[8].Append<uint64_t>(merge.total_bytes_compressed);
        t[9].Append<uint64_t>(merge.rows_read);
        t[10].Append<uint64_t>(merge.rows_written);
        t[11].Append<uint64_t>(merge.total_rows);
        t[12].Append<uint8_t>(merge.optimize ? 1 : 0);
        t[13].Append<uint32_t>(i);
      }
    }
    return t.Build();
  }
  return core::Error(core::ErrorCode::kUnknownTable, "Table system." + name + " does not exist");
}

}  // namespace granite::coordinator

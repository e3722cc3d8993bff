#include "core/wire/worker_codec.h"

#include "core/wire/schema_codec.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::core::wire {

namespace pb = granite::worker::v1;
namespace api = worker_api;

// --- Requests -------------------------------------------------------------------------------

void ToProto(const plan::EncodedBlock& block, pb::BlockData* out) {
  out->set_rows(block.rows);
  out->set_raw_size(block.raw_size);
  out->set_data(block.data);
}

void ToProto(api::InsertRequest request, pb::InsertRequest* out) {
  out->set_table(std::move(request.table));
  pb::BlockData* block = out->mutable_block();
  block->set_rows(request.block.rows);
  block->set_raw_size(request.block.raw_size);
  block->set_data(std::move(request.block.data));
  out->set_insert_id(std::move(request.insert_id));
  out->set_chunk(request.chunk);
  out->set_retain(request.retain);
  out->set_block_id(std::move(request.block_id));
}

void ToProto(const api::CommitInsertRequest& request, pb::CommitInsertRequest* out) {
  out->set_table(request.table);
  out->set_token(request.token);
  out->set_block_id(request.block_id);
}

void ToProto(const api::CreateTableRequest& request, pb::CreateTableRequest* out) {
  ToProto(request.schema, out->mutable_schema());
  out->set_if_not_exists(request.if_not_exists);
  out->set_or_replace(request.or_replace);
}

void ToProto(const api::CatalogOpRequest& request, pb::CatalogOpRequest* out) {
  using Kind = api::CatalogOpRequest::Kind;
  switch (request.kind) {
    case Kind::kCreateDatabase: out->set_kind(pb::CatalogOpRequest::CREATE_DATABASE); break;
    case Kind::kDropDatabase: out->set_kind(pb::CatalogOpRequest::DROP_DATABASE); break;
    case Kind::kRenameTable: out->set_kind(pb::CatalogOpRequest::RENAME_TABLE); break;
    case Kind::kTruncateTable: out->set_kind(pb::CatalogOpRequest::TRUNCATE_TABLE); break;
    case Kind::kSetAccess: out->set_kind(pb::CatalogOpRequest::SET_ACCESS); break;
    case Kind::kAlterSchema:
      out->set_kind(pb::CatalogOpRequest::ALTER_SCHEMA);
      ToProto(request.schema, out->mutable_schema());
      break;
  }
  out->set_name(request.name);
  out->set_new_name(request.new_name);
  out->set_if_exists(request.if_exists);
}

void ToProto(const api::DetachedPartRequest& request, pb::DetachedPartRequest* out) {
  out->set_table(request.table);
  out->set_name(request.name);
}

void ToProto(const api::OptimizeRequest& request, pb::OptimizeRequest* out) {
  out->set_table(request.table);
  out->set_final(request.final);
}

// --- Answers --------------------------------------------------------------------------------

plan::EncodedBlock FromProto(const pb::BlockData& block) {
  return {block.rows(), block.raw_size(), block.data()};
}

api::InsertResult FromProto(const pb::InsertResponse& response) {
  return {response.rows(), response.part(), response.token()};
}

api::CommitInsertResult FromProto(const pb::CommitInsertResponse& response) {
  api::CommitInsertResult result;
  result.parts.assign(response.parts().begin(), response.parts().end());
  result.deduplicated = response.deduplicated();
  return result;
}

api::TableListing FromProto(const pb::ListTablesResponse& response) {
  api::TableListing listing;
  for (const pb::TableInfo& table : response.tables()) {
    listing.tables.push_back(
        {FromProto(table.schema()), table.rows(), table.parts(), table.bytes_on_disk()});
  }
  for (const pb::BrokenTable& table : response.broken_tables()) {
    listing.broken_tables.push_back({table.name(), table.error()});
  }
  listing.databases.assign(response.databases().begin(), response.databases().end());
  listing.access = response.access();
  return listing;
}

api::PartListing FromProto(const pb::ListPartsResponse& response) {
  api::PartListing listing;
  for (const pb::PartInfo& part : response.parts()) {
    api::PartInfo& out = listing.parts.emplace_back();
    out.table = part.table();
    out.name = part.name();
    out.rows = part.rows();
    out.bytes_on_disk = part.bytes_on_disk();
    out.active = part.active();
    out.partition = part.partition();
    out.level = part.level();
    out.partition_id = part.partition_id();
    out.marks = part.marks();
    out.min_block = part.min_block();
    out.max_block = part.max_block();
    out.data_uncompressed_bytes = part.data_uncompressed_bytes();
    out.data_compressed_bytes = part.data_compressed_bytes();
    out.part_type = part.part_type().empty() ? "Wide" : part.part_type();
    out.column_compressed_bytes.assign(part.column_compressed_bytes().begin(),
                                       part.column_compressed_bytes().end());
    out.column_uncompressed_bytes.assign(part.column_uncompressed_bytes().begin(),
                                         part.column_uncompressed_bytes().end());
  }
  for (const pb::DetachedPartInfo& part : response.detached_parts()) {
    api::DetachedPartInfo& out = listing.detached_parts.emplace_back();
    out.table = part.table();
    out.name = part.name();
    out.reason = part.reason();
    out.partition_id = part.partition_id();
    out.min_block = part.min_block();
    out.max_block = part.max_block();
    out.level = part.level();
    out.bytes_on_disk = part.bytes_on_disk();
    out.path = part.path();
  }
  return listing;
}

std::vector<api::PartCheck> FromProto(const pb::CheckTableResponse& response) {
  std::vector<api::PartCheck> checks;
  for (const pb::PartCheck& part : response.parts()) {
    checks.push_back({part.part_path(), part.is_passed(), part.message()});
  }
  return checks;
}

std::vector<api::MergeInfo> FromProto(const pb::ListMergesResponse& response) {
  std::vector<api::MergeInfo> merges;
  for (const pb::MergeInfo& merge : response.merges()) {
    api::MergeInfo& out = merges.emplace_back();
    out.table = merge.table();
    out.partition_id = merge.partition_id();
    out.result_part = merge.result_part();
    out.source_parts.assign(merge.source_parts().begin(), merge.source_parts().end());
    out.elapsed = merge.elapsed();
    out.progress = merge.progress();
    out.rows_read = merge.rows_read();
    out.rows_written = merge.rows_written();
    out.total_rows = merge.total_rows();
    out.total_bytes_compressed = merge.total_bytes_compressed();
    out.optimize = merge.optimize();
  }
  return merges;
}

std::vector<api::BlockEntry> FromProto(const pb::ListBlocksResponse& response) {
  std::vector<api::BlockEntry> blocks;
  for (const pb::BlockEntry& block : response.blocks()) {
    blocks.push_back({block.id(), block.has_data()});
  }
  return blocks;
}

api::RetainedBlock FromProto(const pb::GetBlockResponse& response) {
  api::RetainedBlock block;
  for (const pb::BlockData& chunk : response.chunks()) block.chunks.push_back(FromProto(chunk));
  block.checksum = response.checksum();
  block.block_id = response.block_id();
  return block;
}

api::ProcessInfo FromProto(const pb::GetInfoResponse& response) {
  api::ProcessInfo info;
  info.numa_node = response.numa_node();
  info.cpus = response.cpus();
  info.cpu_count = response.cpu_count();
  info.memory_policy = response.memory_policy();
  info.threads = response.threads();
  info.numa_supported = response.numa_supported();
  info.numa_nodes = response.numa_nodes();
  info.placement = response.placement();
  info.pid = response.pid();
  info.hostname = response.hostname();
  info.version = response.version();
  info.data_dir = response.data_dir();
  info.uptime_seconds = response.uptime_seconds();
  return info;
}

MetricsReport FromProto(const pb::GetMetricsResponse& response) {
  MetricsReport report;
  for (const pb::MetricRow& row : response.events()) {
    report.events.push_back({row.name(), row.value(), row.description()});
  }
  for (const pb::MetricRow& row : response.metrics()) {
    report.metrics.push_back({row.name(), row.value(), row.description()});
  }
  for (const pb::LockRow& lock : response.locks()) {
    report.locks.push_back({lock.name(), lock.acquisitions(), lock.contended(), lock.wait_ns()});
  }
  return report;
}

// --- Answers the worker builds --------------------------------------------------------------

void ToProto(const api::ProcessInfo& info, pb::GetInfoResponse* out) {
  out->set_numa_node(info.numa_node);
  out->set_cpus(info.cpus);
  out->set_cpu_count(info.cpu_count);
  out->set_memory_policy(info.memory_policy);
  out->set_threads(info.threads);
  out->set_numa_supported(info.numa_supported);
  out->set_numa_nodes(info.numa_nodes);
  out->set_placement(info.placement);
  out->set_pid(info.pid);
  out->set_hostname(info.hostname);
  out->set_version(info.version);
  out->set_data_dir(info.data_dir);
  out->set_uptime_seconds(info.uptime_seconds);
}

void ToProto(const MetricsReport& report, pb::GetMetricsResponse* out) {
  auto fill = [](const MetricRow& row, pb::MetricRow* to) {
    to->set_name(row.name);
    to->set_value(row.value);
    to->set_description(row.description);
  };
  for (const MetricRow& row : report.events) fill(row, out->add_events());
  for (const MetricRow& row : report.metrics) fill(row, out->add_metrics());
  for (const LockTotals& lock : report.locks) {
    pb::LockRow* to = out->add_locks();
    to->set_name(lock.name);
    to->set_acquisitions(lock.acquisitions);
    to->set_contended(lock.contended);
    to->set_wait_ns(lock.wait_ns);
  }
}

void ToProto(const std::vector<api::MergeInfo>& merges, pb::ListMergesResponse* out) {
  for (const api::MergeInfo& merge : merges) {
    pb::MergeInfo* to = out->add_merges();
    to->set_table(merge.table);
    to->set_partition_id(merge.partition_id);
    to->set_result_part(merge.result_part);
    for (const std::string& source : merge.source_parts) to->add_source_parts(source);
    to->set_elapsed(merge.elapsed);
    to->set_progress(merge.progress);
    to->set_rows_read(merge.rows_read);
    to->set_rows_written(merge.rows_written);
    to->set_total_rows(merge.total_rows);
    to->set_total_bytes_compressed(merge.total_bytes_compressed);
    to->set_optimize(merge.optimize);
  }
}

}  // namespace granite::core::wire

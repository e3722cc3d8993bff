#include "core/wire/worker_codec.h"

#include <string>

#include "core/wire/schema_codec.h"
#include "granite/worker/v1/worker.pb.h"
#include "gtest/gtest.h"

namespace granite::core::wire {
namespace {

namespace pb = granite::worker::v1;
namespace api = worker_api;

TableSchema Schema() {
  TableSchema schema;
  schema.name = "db.t";
  schema.columns = {{"k", TypeId::kUInt64}, {"s", TypeId::kString}};
  schema.order_by = {"k"};
  schema.engine = "MergeTree";
  schema.settings["index_granularity"] = "128";
  schema.sharding_key = {"k"};
  schema.shard_count = 3;
  return schema;
}

TEST(WorkerCodecTest, InsertRequestCarriesEveryField) {
  api::InsertRequest request;
  request.table = "t";
  request.block = {7, 100, std::string("lz4\0bytes", 9)};
  request.insert_id = "token";
  request.chunk = 4;
  request.retain = true;
  request.block_id = "c:0a";
  pb::InsertRequest message;
  ToProto(request, &message);
  EXPECT_EQ(message.table(), "t");
  EXPECT_EQ(message.block().rows(), 7u);
  EXPECT_EQ(message.block().raw_size(), 100u);
  EXPECT_EQ(message.block().data(), std::string("lz4\0bytes", 9));
  EXPECT_EQ(message.insert_id(), "token");
  EXPECT_EQ(message.chunk(), 4u);
  EXPECT_TRUE(message.retain());
  EXPECT_EQ(message.block_id(), "c:0a");
}

TEST(WorkerCodecTest, CommitAndSmallRequests) {
  pb::CommitInsertRequest commit;
  ToProto(api::CommitInsertRequest{"t", "token", "c:00ff"}, &commit);
  EXPECT_EQ(commit.table(), "t");
  EXPECT_EQ(commit.token(), "token");
  EXPECT_EQ(commit.block_id(), "c:00ff");

  pb::DetachedPartRequest part;
  ToProto(api::DetachedPartRequest{"t", "broken_all_1_1_0"}, &part);
  EXPECT_EQ(part.table(), "t");
  EXPECT_EQ(part.name(), "broken_all_1_1_0");

  pb::OptimizeRequest optimize;
  ToProto(api::OptimizeRequest{"t", true}, &optimize);
  EXPECT_EQ(optimize.table(), "t");
  EXPECT_TRUE(optimize.final());
}

TEST(WorkerCodecTest, CreateTableKeepsTheSchema) {
  api::CreateTableRequest request{Schema(), /*if_not_exists=*/true, /*or_replace=*/false};
  pb::CreateTableRequest message;
  ToProto(request, &message);
  EXPECT_TRUE(message.if_not_exists());
  EXPECT_FALSE(message.or_replace());
  EXPECT_EQ(FromProto(message.schema()), Schema());
}

TEST(WorkerCodecTest, CatalogOpKinds) {
  using Kind = api::CatalogOpRequest::Kind;
  const std::pair<Kind, pb::CatalogOpRequest::Kind> kinds[] = {
      {Kind::kCreateDatabase, pb::CatalogOpRequest::CREATE_DATABASE},
      {Kind::kDropDatabase, pb::CatalogOpRequest::DROP_DATABASE},
      {Kind::kRenameTable, pb::CatalogOpRequest::RENAME_TABLE},
      {Kind::kTruncateTable, pb::CatalogOpRequest::TRUNCATE_TABLE}};
  for (const auto& [kind, wire] : kinds) {
    pb::CatalogOpRequest message;
    ToProto(api::CatalogOpRequest{kind, "a", "b", true}, &message);
    EXPECT_EQ(message.kind(), wire);
    EXPECT_EQ(message.name(), "a");
    EXPECT_EQ(message.new_name(), "b");
    EXPECT_TRUE(message.if_exists());
  }
}

TEST(WorkerCodecTest, InsertAnswers) {
  pb::InsertResponse insert;
  insert.set_rows(5);
  insert.set_part("all_1_1_0,all_2_2_0");
  insert.set_token("tok");
  api::InsertResult result = FromProto(insert);
  EXPECT_EQ(result.rows, 5u);
  EXPECT_EQ(result.part, "all_1_1_0,all_2_2_0");
  EXPECT_EQ(result.token, "tok");

  pb::CommitInsertResponse commit;
  commit.add_parts("all_3_3_0");
  commit.set_deduplicated(true);
  api::CommitInsertResult committed = FromProto(commit);
  EXPECT_EQ(committed.parts, std::vector<std::string>{"all_3_3_0"});
  EXPECT_TRUE(committed.deduplicated);
}

TEST(WorkerCodecTest, TableListing) {
  pb::ListTablesResponse response;
  pb::TableInfo* table = response.add_tables();
  ToProto(Schema(), table->mutable_schema());
  table->set_rows(10);
  table->set_parts(2);
  table->set_bytes_on_disk(300);
  pb::BrokenTable* broken = response.add_broken_tables();
  broken->set_name("b");
  broken->set_error("checksum");
  response.add_databases("db");
  api::TableListing listing = FromProto(response);
  ASSERT_EQ(listing.tables.size(), 1u);
  EXPECT_EQ(listing.tables[0].schema, Schema());
  EXPECT_EQ(listing.tables[0].rows, 10u);
  EXPECT_EQ(listing.tables[0].parts, 2u);
  EXPECT_EQ(listing.tables[0].bytes_on_disk, 300u);
  ASSERT_EQ(listing.broken_tables.size(), 1u);
  EXPECT_EQ(listing.broken_tables[0].name, "b");
  EXPECT_EQ(listing.broken_tables[0].error, "checksum");
  EXPECT_EQ(listing.databases, std::vector<std::string>{"db"});
}

TEST(WorkerCodecTest, PartListing) {
  pb::ListPartsResponse response;
  pb::PartInfo* part = response.add_parts();
  part->set_table("t");
  part->set_name("p_1_2_1");
  part->set_rows(3);
  part->set_bytes_on_disk(4);
  part->set_active(true);
  part->set_partition("tuple()");
  part->set_level(1);
  part->set_partition_id("all");
  part->set_marks(5);
  part->set_min_block(1);
  part->set_max_block(2);
  part->set_data_uncompressed_bytes(6);
  part->set_data_compressed_bytes(5);
  part->add_column_compressed_bytes(2);
  part->add_column_compressed_bytes(3);
  part->add_column_uncompressed_bytes(4);
  part->add_column_uncompressed_bytes(2);
  pb::DetachedPartInfo* detached = response.add_detached_parts();
  detached->set_table("t");
  detached->set_name("broken_all_3_3_0");
  detached->set_reason("broken");
  detached->set_partition_id("all");
  detached->set_min_block(3);
  detached->set_max_block(3);
  detached->set_level(0);
  detached->set_bytes_on_disk(7);
  detached->set_path("/d/t/detached/broken_all_3_3_0/");
  api::PartListing listing = FromProto(response);
  ASSERT_EQ(listing.parts.size(), 1u);
  const api::PartInfo& p = listing.parts[0];
  EXPECT_EQ(p.table, "t");
  EXPECT_EQ(p.name, "p_1_2_1");
  EXPECT_EQ(p.rows, 3u);
  EXPECT_EQ(p.bytes_on_disk, 4u);
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.partition, "tuple()");
  EXPECT_EQ(p.level, 1u);
  EXPECT_EQ(p.partition_id, "all");
  EXPECT_EQ(p.marks, 5u);
  EXPECT_EQ(p.min_block, 1u);
  EXPECT_EQ(p.max_block, 2u);
  EXPECT_EQ(p.data_uncompressed_bytes, 6u);
  EXPECT_EQ(p.data_compressed_bytes, 5u);
  EXPECT_EQ(p.column_compressed_bytes, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(p.column_uncompressed_bytes, (std::vector<uint64_t>{4, 2}));
  ASSERT_EQ(listing.detached_parts.size(), 1u);
  const api::DetachedPartInfo& d = listing.detached_parts[0];
  EXPECT_EQ(d.name, "broken_all_3_3_0");
  EXPECT_EQ(d.reason, "broken");
  EXPECT_EQ(d.partition_id, "all");
  EXPECT_EQ(d.min_block, 3u);
  EXPECT_EQ(d.max_block, 3u);
  EXPECT_EQ(d.bytes_on_disk, 7u);
  EXPECT_EQ(d.path, "/d/t/detached/broken_all_3_3_0/");
}

TEST(WorkerCodecTest, ChecksMergesAndBlocks) {
  pb::CheckTableResponse check;
  pb::PartCheck* row = check.add_parts();
  row->set_part_path("all_1_1_0");
  row->set_is_passed(false);
  row->set_message("bad checksum");
  std::vector<api::PartCheck> checks = FromProto(check);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].part_path, "all_1_1_0");
  EXPECT_FALSE(checks[0].is_passed);
  EXPECT_EQ(checks[0].message, "bad checksum");

  api::MergeInfo merge;
  merge.table = "t";
  merge.partition_id = "all";
  merge.result_part = "all_1_2_1";
  merge.source_parts = {"all_1_1_0", "all_2_2_0"};
  merge.elapsed = 1.5;
  merge.progress = 0.25;
  merge.rows_read = 8;
  merge.rows_written = 9;
  merge.total_rows = 10;
  merge.total_bytes_compressed = 11;
  merge.optimize = true;
  pb::ListMergesResponse merges;
  ToProto(std::vector<api::MergeInfo>{merge}, &merges);
  std::vector<api::MergeInfo> typed = FromProto(merges);
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(typed[0].table, "t");
  EXPECT_EQ(typed[0].partition_id, "all");
  EXPECT_EQ(typed[0].result_part, "all_1_2_1");
  EXPECT_EQ(typed[0].source_parts.size(), 2u);
  EXPECT_EQ(typed[0].elapsed, 1.5);
  EXPECT_EQ(typed[0].progress, 0.25);
  EXPECT_EQ(typed[0].rows_read, 8u);
  EXPECT_EQ(typed[0].rows_written, 9u);
  EXPECT_EQ(typed[0].total_rows, 10u);
  EXPECT_EQ(typed[0].total_bytes_compressed, 11u);
  EXPECT_TRUE(typed[0].optimize);

  pb::ListBlocksResponse blocks;
  pb::BlockEntry* entry = blocks.add_blocks();
  entry->set_id("ab");
  entry->set_has_data(true);
  std::vector<api::BlockEntry> entries = FromProto(blocks);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, "ab");
  EXPECT_TRUE(entries[0].has_data);

  pb::GetBlockResponse block;
  pb::BlockData* chunk = block.add_chunks();
  chunk->set_rows(2);
  chunk->set_raw_size(3);
  chunk->set_data("xyz");
  block.set_checksum(99);
  block.set_block_id("c:ab");
  api::RetainedBlock retained = FromProto(block);
  ASSERT_EQ(retained.chunks.size(), 1u);
  EXPECT_EQ(retained.chunks[0].rows, 2u);
  EXPECT_EQ(retained.chunks[0].raw_size, 3u);
  EXPECT_EQ(retained.chunks[0].data, "xyz");
  EXPECT_EQ(retained.checksum, 99u);
  EXPECT_EQ(retained.block_id, "c:ab");
}

TEST(WorkerCodecTest, ProcessInfoRoundTrips) {
  api::ProcessInfo info;
  info.numa_node = 1;
  info.cpus = "4-7";
  info.cpu_count = 4;
  info.memory_policy = "bind";
  info.threads = 4;
  info.numa_supported = true;
  info.numa_nodes = 2;
  info.placement = "NUMA: node 1";
  info.pid = 42;
  info.hostname = "h";
  info.version = "0.1.0";
  info.data_dir = "/data";
  info.uptime_seconds = 61.5;
  pb::GetInfoResponse message;
  ToProto(info, &message);
  api::ProcessInfo back = FromProto(message);
  EXPECT_EQ(back.numa_node, 1);
  EXPECT_EQ(back.cpus, "4-7");
  EXPECT_EQ(back.cpu_count, 4u);
  EXPECT_EQ(back.memory_policy, "bind");
  EXPECT_EQ(back.threads, 4u);
  EXPECT_TRUE(back.numa_supported);
  EXPECT_EQ(back.numa_nodes, 2u);
  EXPECT_EQ(back.placement, "NUMA: node 1");
  EXPECT_EQ(back.pid, 42u);
  EXPECT_EQ(back.hostname, "h");
  EXPECT_EQ(back.version, "0.1.0");
  EXPECT_EQ(back.data_dir, "/data");
  EXPECT_EQ(back.uptime_seconds, 61.5);
}

TEST(WorkerCodecTest, MetricsReportRoundTrips) {
  MetricsReport report;
  report.events = {{"Query", 3, "queries"}};
  report.metrics = {{"WorkerUp{worker=\"0\"}", -1, "up"}};
  report.locks = {{"catalog", 10, 2, 5000}};
  pb::GetMetricsResponse message;
  ToProto(report, &message);
  MetricsReport back = FromProto(message);
  ASSERT_EQ(back.events.size(), 1u);
  EXPECT_EQ(back.events[0].name, "Query");
  EXPECT_EQ(back.events[0].value, 3);
  EXPECT_EQ(back.events[0].description, "queries");
  ASSERT_EQ(back.metrics.size(), 1u);
  EXPECT_EQ(back.metrics[0].value, -1);
  ASSERT_EQ(back.locks.size(), 1u);
  EXPECT_EQ(back.locks[0].name, "catalog");
  EXPECT_EQ(back.locks[0].acquisitions, 10u);
  EXPECT_EQ(back.locks[0].contended, 2u);
  EXPECT_EQ(back.locks[0].wait_ns, 5000u);
}

}  // namespace
}  // namespace granite::core::wire

// Column codecs in parts: each part records per column the codec that wrote it and is read with
// that codec whatever the table's codec is now; merges rewrite with the table's current codec;
// parts and schemas written before codecs existed (meta v2, schema v2, bare LZ4 blocks) open
// unchanged.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>

#include "storage/coding.h"
#include "storage/key_expression.h"
#include "storage/part.h"
#include "storage/part_format.h"
#include "storage/part_merger.h"
#include "storage/part_splitter.h"
#include "storage/part_writer.h"
#include "storage/table_schema.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;

std::shared_ptr<const TableSchema> Schema(std::vector<std::string> codecs) {
  TableSchema schema{.name = "t",
                     .columns = {{"a", TypeId::kUInt64},
                                 {"s", TypeId::kString},
                                 {"f", TypeId::kFloat64},
                                 {"d", TypeId::kDateTime},
                                 {"i", TypeId::kInt32},
                                 {"n", core::MakeNullable(TypeId::kInt64)}}};
  for (size_t c = 0; c < codecs.size(); ++c) schema.columns[c].codec = codecs[c];
  return std::make_shared<const TableSchema>(std::move(schema));
}

const std::vector<std::string> kCodecs = {"Delta(8), ZSTD(1)", "ZSTD(3)",  "Gorilla(8), LZ4",
                                          "DoubleDelta",       "T64, LZ4", "Delta(8), LZ4HC(0)"};

core::Block Rows(size_t count) {
  auto a = std::make_shared<core::Column>(TypeId::kUInt64);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  auto f = std::make_shared<core::Column>(TypeId::kFloat64);
  auto d = std::make_shared<core::Column>(TypeId::kDateTime);
  auto i = std::make_shared<core::Column>(TypeId::kInt32);
  auto n = std::make_shared<core::Column>(core::MakeNullable(TypeId::kInt64));
  for (size_t r = 0; r < count; ++r) {
    a->Append(r == 1 ? std::numeric_limits<uint64_t>::max() : uint64_t{r * 7});
    s->AppendString(r % 3 == 0 ? "" : "value " + std::to_string(r % 11));
    f->Append(r == 2 ? std::nan("") : 0.5 * static_cast<double>(r));
    d->Append(static_cast<uint32_t>(1'700'000'000 + r * 60));
    i->Append(r == 3 ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(r) - 40);
    if (r % 4 == 0) {
      n->AppendNull();
    } else {
      n->Append(static_cast<int64_t>(r) * -1000);
    }
  }
  return core::Block{{a, s, f, d, i, n}};
}

// Equality that holds for NaN too.
bool Same(const core::Value& a, const core::Value& b) {
  if (const double* x = std::get_if<double>(&a); x != nullptr && std::isnan(*x)) {
    const double* y = std::get_if<double>(&b);
    return y != nullptr && std::isnan(*y);
  }
  return a == b;
}

// Expects every column of `part` to hold `block`'s rows.
void ExpectRows(const Part& part, const core::Block& block) {
  for (size_t c = 0; c < block.columns.size(); ++c) {
    absl::StatusOr<core::ColumnPtr> read = part.ReadColumn(c, 0, part.granule_count());
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_EQ((*read)->size(), block.columns[c]->size());
    for (size_t r = 0; r < block.rows(); ++r) {
      ASSERT_TRUE(Same(ValueAt(**read, r), ValueAt(*block.columns[c], r)))
          << "column " << c << " row " << r;
      ASSERT_EQ((*read)->IsNullAt(r), block.columns[c]->IsNullAt(r))
          << "column " << c << " row " << r;
    }
  }
}

TEST(PartCodecTest, PartsKeepTheCodecTheyWereWrittenWith) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  PartWriter::Options options;
  options.granule_rows = 50;  // granules of 50, and a last one of 1 row
  const core::Block block = Rows(201);
  PartWriter writer(Posix(), Schema(kCodecs), dir.path(), options);
  ASSERT_TRUE(writer.Write(block, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix).ok());
  // Loaded under the table's codecs, and under other ones (the table changed since).
  for (const auto& schema : {Schema(kCodecs), Schema({}), Schema({"LZ4", "NONE"})}) {
    absl::StatusOr<std::shared_ptr<const Part>> part =
        Part::Load(Posix(), schema, dir.path() + "/all_1_1_0", PartName{1, 1, 0});
    ASSERT_TRUE(part.ok()) << part.status();
    for (size_t c = 0; c < kCodecs.size(); ++c) {
      EXPECT_EQ((*part)->column_codec(c).spec().ToString(), kCodecs[c]);
    }
    ExpectRows(**part, block);
    absl::StatusOr<core::ColumnPtr> sizes = (*part)->ReadStringSizes(1, 1, 3);
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    EXPECT_EQ((*sizes)->Get<uint64_t>(0), std::string("value 6").size());  // row 50
    EXPECT_EQ((*sizes)->Get<uint64_t>(1), 0u);                             // row 51 is ""
  }
}

TEST(PartCodecTest, MergesRewriteWithTheTablesCurrentCodec) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  PartWriter::Options options;
  options.granule_rows = 64;
  const core::Block first = Rows(100);
  const core::Block second = Rows(30);
  PartWriter old_writer(Posix(), Schema({}), dir.path(), options);
  ASSERT_TRUE(old_writer.Write(first, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix).ok());
  ASSERT_TRUE(
      old_writer.Write(second, PartDescription(), PartName{2, 2, 0}, kInsertTmpPrefix).ok());
  auto schema = Schema(kCodecs);
  std::vector<std::shared_ptr<const Part>> sources;
  for (uint64_t b : {1, 2}) {
    absl::StatusOr<std::shared_ptr<const Part>> part = Part::Load(
        Posix(), schema, dir.path() + "/all_" + std::to_string(b) + "_" + std::to_string(b) + "_0",
        PartName{b, b, 0});
    ASSERT_TRUE(part.ok()) << part.status();
    sources.push_back(*part);
  }
  absl::StatusOr<std::shared_ptr<const PartSplitter>> splitter =
      PartSplitter::Create(*schema, true);
  ASSERT_TRUE(splitter.ok()) << splitter.status();
  PartMerger merger(Posix(), schema, *splitter, dir.path(), options);
  MergeProgress progress;
  std::atomic<bool> cancelled{false};
  absl::StatusOr<std::shared_ptr<const Part>> merged = merger.Merge(sources, &progress, cancelled);
  ASSERT_TRUE(merged.ok()) << merged.status();
  for (size_t c = 0; c < kCodecs.size(); ++c) {
    EXPECT_EQ((*merged)->column_codec(c).spec().ToString(), kCodecs[c]);
  }
  core::Block both = Rows(100);
  for (size_t c = 0; c < both.columns.size(); ++c) {
    auto column = std::make_shared<core::Column>(
        core::WithNullable(both.columns[c]->type(), both.columns[c]->nullable()));
    column->AppendRange(*first.columns[c], 0, 100);
    column->AppendRange(*second.columns[c], 0, 30);
    both.columns[c] = column;
  }
  ExpectRows(**merged, both);
}

TEST(PartCodecTest, StringSizesOfNonLz4GranulesAreCached) {
  // LZ4 blocks give their length prefix alone; other codecs decode the whole granule, which a
  // String-size scan then keeps in the cache (else every hot scan would decode it again).
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  PartWriter::Options options;
  options.granule_rows = 50;
  auto schema = Schema({"LZ4", "ZSTD(1)"});
  PartWriter writer(Posix(), schema, dir.path(), options);
  ASSERT_TRUE(writer.Write(Rows(120), PartDescription(), PartName{4, 4, 0}, kInsertTmpPrefix).ok());
  absl::StatusOr<std::shared_ptr<const Part>> part =
      Part::Load(Posix(), schema, dir.path() + "/all_4_4_0", PartName{4, 4, 0});
  ASSERT_TRUE(part.ok()) << part.status();
  UncompressedCache cache(64 << 20);
  for (int scan = 0; scan < 2; ++scan) {
    absl::StatusOr<core::ColumnPtr> sizes = (*part)->ReadStringSizes(1, 0, 3, nullptr, &cache);
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    ASSERT_EQ((*sizes)->size(), 120u);
    EXPECT_EQ((*sizes)->Get<uint64_t>(51), 0u);
    EXPECT_EQ((*sizes)->Get<uint64_t>(52), std::string("value 8").size());
    for (uint32_t g = 0; g < 3; ++g) {
      EXPECT_NE(cache.Lookup({(*part)->id(), 1, g}), nullptr)
          << "scan " << scan << " granule " << g;
    }
  }
}

// Writes the meta file as the version before codecs (GRPART02) wrote it.
std::string MetaV2(const PartMeta& meta) {
  ByteWriter w;
  w.PutRaw("GRPART02", 8);
  w.PutU64(meta.rows);
  w.PutU32(static_cast<uint32_t>(meta.columns.size()));
  for (const ColumnSchema& column : meta.columns) {
    w.PutString(column.name);
    w.PutType(column.type);
  }
  w.PutU64(meta.granule_rows.size());
  for (uint32_t rows : meta.granule_rows) w.PutU32(rows);
  w.PutU8(0);
  w.PutU32(0);
  return Seal(std::move(w.bytes()));
}

TEST(PartCodecTest, PartsFromBeforeCodecsReadAsLz4) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const core::Block block = Rows(70);
  // Bare LZ4 blocks, as every part had them, under a v2 meta file without codecs.
  PartWriter::Options u32_sizes;
  u32_sizes.string_sizes = StringSizes::kU32;  // as parts before meta v4
  u32_sizes.part_type = PartType::kWide;         // as every part before meta v6
  PartWriter writer(Posix(), Schema({"LZ4", "LZ4", "LZ4", "LZ4", "LZ4", "LZ4"}), dir.path(),
                    u32_sizes);
  ASSERT_TRUE(writer.Write(block, PartDescription(), PartName{3, 3, 0}, kInsertTmpPrefix).ok());
  const std::string part_dir = dir.path() + "/all_3_3_0";
  absl::StatusOr<std::string> meta_bytes = Posix()->ReadFile(part_dir + "/meta");
  ASSERT_TRUE(meta_bytes.ok());
  absl::StatusOr<PartMeta> meta = DecodePartMeta(*meta_bytes, "test");
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_TRUE(WriteFile(*Posix(), part_dir + "/meta", MetaV2(*meta)).ok());

  // The table now declares other codecs (or defaults): the old part still reads as LZ4.
  for (const auto& schema : {Schema(kCodecs), Schema({})}) {
    absl::StatusOr<std::shared_ptr<const Part>> part =
        Part::Load(Posix(), schema, part_dir, PartName{3, 3, 0});
    ASSERT_TRUE(part.ok()) << part.status();
    EXPECT_EQ((*part)->column_codec(0).spec().ToString(), "LZ4");
    ExpectRows(**part, block);
  }
}

TEST(PartCodecTest, SchemasFromBeforeCodecsDecode) {
  // A version 2 schema file: no codecs.
  ByteWriter w;
  w.PutRaw("GRSCHEMA", 8);
  w.PutU32(2);
  w.PutString("old");
  w.PutU32(1);
  w.PutString("x");
  w.PutType(TypeId::kUInt32);
  for (int list = 0; list < 2; ++list) w.PutU32(0);  // order_by, primary_key
  w.PutString("");                                   // partition_by
  w.PutString("MergeTree");
  w.PutU32(0);  // settings
  w.PutU32(0);  // sharding key
  w.PutU32(0);  // shard count
  absl::StatusOr<TableSchema> old = DecodeTableSchema(Seal(std::move(w.bytes())));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->columns[0].codec, "");

  const TableSchema with_codecs = *Schema(kCodecs);
  ASSERT_TRUE(ValidateTableSchema(with_codecs).ok());
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(EncodeTableSchema(with_codecs));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, with_codecs);

  TableSchema bad = with_codecs;
  bad.columns[1].codec = "Delta(8), LZ4";  // on a String
  EXPECT_EQ(core::CodeOf(ValidateTableSchema(bad)), core::ErrorCode::kBadArguments);
}

}  // namespace
}  // namespace granite::storage

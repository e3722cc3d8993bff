// Compact parts (storage/part_format.h): every column kind written compact reads back as it does
// from a wide part, from the same blocks; the writer's choice follows min_bytes_for_wide_part /
// min_rows_for_wide_part; merges of compact and wide parts; meta v6 and data.mrk decoding.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/types.h"
#include "core/value_text.h"
#include "storage/part.h"
#include "storage/part_format.h"
#include "storage/part_writer.h"
#include "storage/store.h"
#include "storage/table.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::TypeId;
namespace fs = std::filesystem;

// Expects `column` to hold the same rows as `expected`, compared as ClickHouse prints them (which
// covers arrays and NULLs alike).
void ExpectSameColumn(const core::Column& column, const core::Column& expected, size_t index) {
  ASSERT_EQ(column.size(), expected.size()) << "column " << index;
  for (size_t r = 0; r < expected.size(); ++r) {
    std::string got, want;
    core::AppendValueText(column, r, &got);
    core::AppendValueText(expected, r, &want);
    ASSERT_EQ(got, want) << "column " << index << " row " << r;
  }
}

void ExpectRows(const Part& part, const core::Block& block) {
  for (size_t c = 0; c < block.columns.size(); ++c) {
    absl::StatusOr<core::ColumnPtr> read = part.ReadColumn(c, 0, part.granule_count());
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameColumn(**read, *block.columns[c], c);
  }
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) out.push_back(entry.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

// One column of every kind a part stores differently: fixed width, String, FixedString, Nullable
// of both, a sparse column (mostly default), a dictionary column (LowCardinality), Arrays, and
// columns with their own codec chains (Date: DoubleDelta + ZSTD by default).
std::shared_ptr<const TableSchema> EveryKindSchema() {
  TableSchema schema;
  schema.name = "kinds";
  schema.columns = {{"k", TypeId::kUInt32},
                    {"i", TypeId::kInt64},
                    {"f", TypeId::kFloat64},
                    {"s", TypeId::kString},
                    {"fs", core::MakeFixedString(3)},
                    {"ni", core::MakeNullable(TypeId::kInt32)},
                    {"ns", core::MakeNullable(TypeId::kString)},
                    {"sparse", TypeId::kUInt16},
                    {"lc", TypeId::kString},
                    {"a", core::MakeArray(TypeId::kUInt32)},
                    {"as", core::MakeArray(core::MakeNullable(TypeId::kString))},
                    {"d", TypeId::kDate},
                    {"t64", TypeId::kInt64},
                    {"dec", core::MakeDecimal(18, 4)}};
  schema.columns[8].low_cardinality = true;
  schema.columns[12].codec = "T64, LZ4";
  schema.columns[13].codec = "Delta, ZSTD(1)";  // Decimal64: 8-byte deltas
  schema.order_by = {"k"};
  schema.primary_key = {"k"};
  return std::make_shared<const TableSchema>(std::move(schema));
}

core::Block EveryKindBlock(const TableSchema& schema, size_t rows) {
  std::vector<core::MutableColumnPtr> columns;
  for (const ColumnSchema& column : schema.columns) {
    columns.push_back(std::make_shared<core::Column>(column.type));
  }
  for (size_t r = 0; r < rows; ++r) {
    const std::string n = std::to_string(r);
    std::string a = "[";
    for (size_t e = 0; e < r % 4; ++e) a += (e ? "," : "") + std::to_string(e * r);
    a += "]";
    const std::string texts[] = {n,
                                 std::to_string(static_cast<int64_t>(r * 7919) - 500000),
                                 std::to_string(r * 0.25),
                                 "https://example.com/" + std::to_string(r % 97) + "?q=" + n,
                                 std::string(1, static_cast<char>('a' + r % 26)) + "bc",
                                 "",
                                 "",
                                 r % 50 == 7 ? std::to_string(r % 1000) : "0",
                                 "city" + std::to_string(r % 6),
                                 a,
                                 r % 3 == 0 ? "['x" + n + "',NULL]" : "[]",
                                 "2024-0" + std::to_string(1 + r % 9) + "-1" + std::to_string(r % 10),
                                 std::to_string(r * 3),
                                 std::to_string(r) + ".125"};
    // The Nullable columns (5, 6) take their values directly: ParseValueText parses T's text.
    if (r % 3 == 0) {
      columns[5]->AppendNull();
    } else {
      columns[5]->Append<int32_t>(static_cast<int32_t>(r) - 40);
    }
    if (r % 5 == 0) {
      columns[6]->AppendNull();
    } else {
      columns[6]->AppendString("v" + n);
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c == 5 || c == 6) continue;
      absl::Status parsed = core::ParseValueText(texts[c], schema.columns[c].type, columns[c].get());
      EXPECT_TRUE(parsed.ok()) << schema.columns[c].name << " " << texts[c] << ": " << parsed;
    }
  }
  core::Block block;
  for (auto& column : columns) block.columns.push_back(std::move(column));
  return block;
}

PartDescription KeyDescription(const core::Block& block) {
  PartDescription description;
  description.sort_key = {"k"};
  description.key_columns = {block.columns[0]};
  return description;
}

TEST(PartCompactTest, EveryColumnKindReadsTheSameFromCompactAndWideParts) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  std::shared_ptr<const TableSchema> schema = EveryKindSchema();
  const core::Block block = EveryKindBlock(*schema, 1000);
  std::shared_ptr<const Part> parts[2];
  const PartType types[2] = {PartType::kCompact, PartType::kWide};
  for (int t = 0; t < 2; ++t) {
    PartWriter::Options options;
    options.granule_rows = 128;
    options.part_type = types[t];
    PartWriter writer(Posix(), schema, dir.path(), options);
    const PartName name{uint64_t(t + 1), uint64_t(t + 1), 0};
    absl::StatusOr<std::shared_ptr<const Part>> written =
        writer.Write(block, KeyDescription(block), name, kInsertTmpPrefix);
    ASSERT_TRUE(written.ok()) << written.status();
    EXPECT_EQ((*written)->part_type(), types[t]);
    absl::StatusOr<std::shared_ptr<const Part>> loaded =
        Part::Load(Posix(), schema, (*written)->directory(), name);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    parts[t] = *loaded;
    EXPECT_EQ(parts[t]->part_type(), types[t]);
    EXPECT_EQ(parts[t]->size_on_disk(), (*written)->size_on_disk());
    ASSERT_NO_FATAL_FAILURE(ExpectRows(*parts[t], block));
  }
  const Part& compact = *parts[0];
  const Part& wide = *parts[1];
  // Four files instead of two per column.
  EXPECT_EQ(Files(compact.directory()),
            (std::vector<std::string>{"data.bin", "data.mrk", "meta", "primary.idx"}));
  EXPECT_EQ(Files(wide.directory()).size(), 2 * schema->columns.size() + 2);
  ASSERT_EQ(compact.granule_count(), 8u);
  // Every layout is chosen the same way in both kinds.
  EXPECT_EQ(compact.column_serialization(7), ColumnSerialization::kSparse);
  EXPECT_EQ(compact.column_serialization(8), ColumnSerialization::kDictionary);
  uint64_t sections = 0;
  for (size_t c = 0; c < schema->columns.size(); ++c) {
    SCOPED_TRACE(schema->columns[c].name);
    EXPECT_EQ(compact.column_serialization(c), wide.column_serialization(c));
    EXPECT_EQ(compact.column_codec(c).spec().ToString(), wide.column_codec(c).spec().ToString());
    EXPECT_EQ(compact.column_compressed_bytes(c), wide.column_compressed_bytes(c));
    EXPECT_EQ(compact.column_uncompressed_bytes(c), wide.column_uncompressed_bytes(c));
    // Column-major sections: each column's blocks follow the previous column's.
    EXPECT_EQ(compact.column_file_offset(c), sections);
    EXPECT_EQ(wide.column_file_offset(c), 0u);
    EXPECT_EQ(compact.column_file(c), compact.directory() + "/data.bin");
    sections += compact.column_compressed_bytes(c);
    for (size_t g = 0; g < compact.granule_count(); ++g) {
      EXPECT_EQ(compact.granule_bounds(c, g).present, wide.granule_bounds(c, g).present);
      if (compact.granule_bounds(c, g).present) {
        EXPECT_EQ(compact.granule_bounds(c, g).min, wide.granule_bounds(c, g).min);
        EXPECT_EQ(compact.granule_bounds(c, g).max, wide.granule_bounds(c, g).max);
      }
    }
    // Granule ranges in the middle of a section, through one opened file and the cache.
    UncompressedCache cache(8 << 20);
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = compact.OpenColumn(c);
    ASSERT_TRUE(file.ok()) << file.status();
    for (int pass = 0; pass < 2; ++pass) {
      for (auto [begin, end] : {std::pair<size_t, size_t>{2, 5}, {7, 8}, {0, 1}}) {
        absl::StatusOr<core::ColumnPtr> a = compact.ReadColumn(c, begin, end, file->get(), &cache);
        absl::StatusOr<core::ColumnPtr> b = wide.ReadColumn(c, begin, end);
        ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
        ASSERT_NO_FATAL_FAILURE(ExpectSameColumn(**a, **b, c));
      }
    }
  }
  EXPECT_EQ(fs::file_size(compact.directory() + "/data.bin"), sections);
  for (size_t c : {size_t{3}, size_t{8}}) {  // String: plain and dictionary
    absl::StatusOr<core::ColumnPtr> a = compact.ReadStringSizes(c, 1, 6);
    absl::StatusOr<core::ColumnPtr> b = wide.ReadStringSizes(c, 1, 6);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
    ASSERT_NO_FATAL_FAILURE(ExpectSameColumn(**a, **b, c));
  }
  EXPECT_EQ(compact.primary_index().values, wide.primary_index().values);
}

TEST(PartCompactTest, AFlippedByteOfDataBinFailsItsGranulesChecksum) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  std::shared_ptr<const TableSchema> schema = EveryKindSchema();
  const core::Block block = EveryKindBlock(*schema, 1000);
  PartWriter::Options options;
  options.granule_rows = 128;
  PartWriter writer(Posix(), schema, dir.path(), options);  // compact: far below 10 MiB
  absl::StatusOr<std::shared_ptr<const Part>> part =
      writer.Write(block, KeyDescription(block), PartName{1, 1, 0}, kInsertTmpPrefix);
  ASSERT_TRUE(part.ok()) << part.status();
  ASSERT_EQ((*part)->part_type(), PartType::kCompact);
  // A byte inside granule 3 of column s (3).
  const uint64_t offset = (*part)->column_file_offset(3) +
                          (*part)->column_compressed_bytes(3) / 8 * 3 + 5;
  {
    std::fstream file((*part)->column_file(3), std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    file.get(c);
    file.seekp(static_cast<std::streamoff>(offset));
    file.put(static_cast<char>(c ^ 0x5a));
  }
  absl::StatusOr<std::shared_ptr<const Part>> loaded =
      Part::Load(Posix(), schema, (*part)->directory(), PartName{1, 1, 0});
  ASSERT_TRUE(loaded.ok()) << loaded.status();  // blocks are verified when read
  bool failed = false;
  for (size_t g = 0; g < (*loaded)->granule_count(); ++g) {
    absl::Status status = (*loaded)->ReadColumn(3, g, g + 1).status();
    if (status.ok()) continue;
    EXPECT_FALSE(failed) << "a second granule failed: " << status;
    failed = true;
    EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kChecksumDoesntMatch) << status;
    EXPECT_NE(status.message().find("column s, granule " + std::to_string(g)), std::string::npos)
        << status;
  }
  EXPECT_TRUE(failed);
  for (size_t c = 0; c < schema->columns.size(); ++c) {  // the other sections are intact
    if (c != 3) EXPECT_TRUE((*loaded)->ReadColumn(c, 0, 8).ok()) << c;
  }
}

TEST(PartCompactTest, MetaV6AndCompactMarksDecode) {
  PartMeta meta;
  meta.rows = 3;
  meta.columns = {{"a", TypeId::kUInt8}, {"b", TypeId::kString}};
  meta.granule_rows = {3};
  meta.codecs = {"LZ4", "LZ4"};
  meta.serializations = {ColumnSerialization::kDefault, ColumnSerialization::kSparse};
  // A wide part's meta is still v4 (what older binaries read).
  EXPECT_EQ(EncodePartMeta(meta).substr(0, 8), "GRPART04");
  meta.type = PartType::kCompact;
  const std::string bytes = EncodePartMeta(meta);
  EXPECT_EQ(bytes.substr(0, 8), "GRPART06");
  absl::StatusOr<PartMeta> decoded = DecodePartMeta(bytes, "test");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->type, PartType::kCompact);
  EXPECT_EQ(decoded->serializations, meta.serializations);
  EXPECT_TRUE(decoded->dictionaries.empty());
  EXPECT_EQ(std::string(PartTypeName(PartType::kCompact)), "Compact");
  EXPECT_EQ(std::string(PartTypeName(PartType::kWide)), "Wide");

  ColumnMarks a, b;
  a.marks.push_back({0, 10, 3, 42});
  a.bounds.push_back({true, core::Value(uint64_t{1}), core::Value(uint64_t{9})});
  b.marks.push_back({10, 7, 9, 43});
  b.bounds.push_back({});
  const std::string marks = EncodeCompactMarks({a, b}, {TypeId::kUInt8, TypeId::kString});
  absl::StatusOr<std::vector<ColumnMarks>> both =
      DecodeCompactMarks(marks, {TypeId::kUInt8, TypeId::kString}, "test");
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[1].marks[0].offset, 10u);
  EXPECT_EQ((*both)[0].bounds[0].max, core::Value(uint64_t{9}));
  // Another column count, or a wide part's marks, is no compact part's data.mrk.
  EXPECT_EQ(core::CodeOf(DecodeCompactMarks(marks, {TypeId::kUInt8}, "test").status()),
            core::ErrorCode::kCorruptedData);
  EXPECT_FALSE(
      DecodeCompactMarks(EncodeColumnMarks(a, TypeId::kUInt8), {TypeId::kUInt8}, "t").ok());
}

TEST(PartCompactTest, TheTableSettingsChooseTheKind) {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"x", TypeId::kUInt64}};
  // ClickHouse's defaults: below 10 MiB compact, whatever the rows.
  EXPECT_TRUE(IsCompactPart(schema, 1000000, 10485759));
  EXPECT_FALSE(IsCompactPart(schema, 1, 10485760));
  schema.settings["min_bytes_for_wide_part"] = "0";  // every part wide
  EXPECT_FALSE(IsCompactPart(schema, 1, 1));
  schema.settings["min_rows_for_wide_part"] = "100";  // or fewer rows than this
  EXPECT_TRUE(IsCompactPart(schema, 99, 1 << 30));
  EXPECT_FALSE(IsCompactPart(schema, 100, 1));
}

class CompactTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    Reopen();
  }
  void Reopen() {
    store_.reset();
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  TableSchema Schema(const std::string& min_bytes, const std::string& min_rows) const {
    TableSchema schema;
    schema.name = "m";
    schema.engine = "MergeTree";
    schema.columns = {{"id", TypeId::kUInt64}, {"s", TypeId::kString}};
    schema.order_by = {"id"};
    schema.primary_key = {"id"};
    schema.settings["min_bytes_for_wide_part"] = min_bytes;
    if (!min_rows.empty()) schema.settings["min_rows_for_wide_part"] = min_rows;
    return schema;
  }
  // Rows [first, first + rows): id, and s = "row<id>".
  static core::Block Rows(uint64_t first, uint64_t rows) {
    auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
    auto s = std::make_shared<core::Column>(TypeId::kString);
    for (uint64_t i = first; i < first + rows; ++i) {
      ids->Append(i);
      s->AppendString("row" + std::to_string(i));
    }
    return core::Block{{ids, s}};
  }
  std::vector<PartType> Types() {
    std::vector<PartType> out;
    std::shared_ptr<const PartsSnapshot> snapshot = store_->GetTable("m")->Snapshot();
    for (const auto& part : snapshot->parts) {
      out.push_back(part->part_type());
    }
    return out;
  }
  // Expects the table to hold rows [0, n) exactly once.
  void ExpectRowsUpTo(uint64_t n) {
    std::vector<uint64_t> ids;
    std::shared_ptr<const PartsSnapshot> snapshot = store_->GetTable("m")->Snapshot();
    for (const auto& part : snapshot->parts) {
      absl::StatusOr<core::ColumnPtr> id = part->ReadColumn(0, 0, part->granule_count());
      absl::StatusOr<core::ColumnPtr> s = part->ReadColumn(1, 0, part->granule_count());
      ASSERT_TRUE(id.ok() && s.ok()) << id.status() << s.status();
      for (size_t r = 0; r < (*id)->size(); ++r) {
        const uint64_t v = (*id)->Get<uint64_t>(r);
        ASSERT_EQ((*s)->StringAt(r), "row" + std::to_string(v));
        ids.push_back(v);
      }
    }
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids.size(), n);
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(ids[i], i);
  }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(CompactTableTest, MergesTurnCompactPartsWideOnceTheyPassTheBytes) {
  // 100 rows take ~1.9 KB in memory, 5000 rows ~100 KB.
  ASSERT_TRUE(store_->CreateTable(Schema("50000", ""), false, false).ok());
  std::shared_ptr<Table> table = store_->GetTable("m");
  ASSERT_TRUE(table->Insert(Rows(0, 100)).ok());
  ASSERT_TRUE(table->Insert(Rows(100, 100)).ok());
  EXPECT_EQ(Types(), (std::vector<PartType>{PartType::kCompact, PartType::kCompact}));
  ASSERT_TRUE(store_->Optimize("m", true).ok());  // still small: compact
  EXPECT_EQ(Types(), (std::vector<PartType>{PartType::kCompact}));
  ASSERT_TRUE(table->Insert(Rows(200, 5000)).ok());
  ASSERT_TRUE(table->Insert(Rows(5200, 100)).ok());
  EXPECT_EQ(Types(),
            (std::vector<PartType>{PartType::kCompact, PartType::kWide, PartType::kCompact}));
  ASSERT_NO_FATAL_FAILURE(ExpectRowsUpTo(5300));
  ASSERT_TRUE(store_->Optimize("m", true).ok());  // compact and wide sources: a wide result
  EXPECT_EQ(Types(), (std::vector<PartType>{PartType::kWide}));
  ASSERT_NO_FATAL_FAILURE(ExpectRowsUpTo(5300));
  ASSERT_TRUE(table->Insert(Rows(5300, 10)).ok());
  Reopen();  // both kinds load at start-up
  EXPECT_EQ(Types(), (std::vector<PartType>{PartType::kWide, PartType::kCompact}));
  ASSERT_NO_FATAL_FAILURE(ExpectRowsUpTo(5310));
  std::vector<Table::PartCheck> checks = store_->GetTable("m")->Check();
  ASSERT_EQ(checks.size(), 2u);
  for (const Table::PartCheck& check : checks) EXPECT_TRUE(check.passed) << check.message;
}

TEST_F(CompactTableTest, MinRowsForWidePartAndAnAlteredSettingDecideLaterParts) {
  ASSERT_TRUE(store_->CreateTable(Schema("0", "250"), false, false).ok());
  ASSERT_TRUE(store_->GetTable("m")->Insert(Rows(0, 100)).ok());  // fewer rows: compact
  ASSERT_TRUE(store_->GetTable("m")->Insert(Rows(100, 300)).ok());
  EXPECT_EQ(Types(), (std::vector<PartType>{PartType::kCompact, PartType::kWide}));
  // ALTER TABLE ... MODIFY SETTING min_bytes_for_wide_part: the parts stay as they are.
  ASSERT_TRUE(store_->AlterTableSchema("m", Schema("0", "")).ok());
  ASSERT_TRUE(store_->GetTable("m")->Insert(Rows(400, 10)).ok());
  EXPECT_EQ(Types(),
            (std::vector<PartType>{PartType::kCompact, PartType::kWide, PartType::kWide}));
  ASSERT_NO_FATAL_FAILURE(ExpectRowsUpTo(410));
}

}  // namespace
}  // namespace granite::storage

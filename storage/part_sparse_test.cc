// Sparse serialization of mostly-default columns: the granule layout at its edges (no value, every
// value, -0.0, FixedString, Nullable), the per-part choice against
// ratio_of_defaults_for_sparse_serialization, reads of whole parts, granule ranges, the cache and
// String sizes, merges of sparse and dense parts, parts from before sparse columns, and malformed
// granules.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "storage/coding.h"
#include "storage/key_expression.h"
#include "storage/part.h"
#include "storage/part_format.h"
#include "storage/part_merger.h"
#include "storage/part_splitter.h"
#include "storage/part_writer.h"
#include "storage/sparse_serialization.h"
#include "storage/table_schema.h"
#include "storage/temp_directory.h"
#include "storage/test_column_expectations.h"

namespace granite::storage {
namespace {

using core::TypeId;

const TypeId kFixed4 = core::MakeFixedString(4);

// Columns, by position: flag UInt16 (non-zero every `every` rows), s String (same rows), price
// Float64 (-0.0 on the same rows: a value, not the default), n Nullable(Int32) (non-NULL on the
// same rows, 0 among them), fs FixedString(4), u UUID, dense UInt64 (never 0).
std::shared_ptr<const TableSchema> Schema(std::string ratio = "") {
  TableSchema schema{.name = "t",
                     .columns = {{"flag", TypeId::kUInt16},
                                 {"s", TypeId::kString},
                                 {"price", TypeId::kFloat64},
                                 {"n", core::MakeNullable(TypeId::kInt32)},
                                 {"fs", kFixed4},
                                 {"u", TypeId::kUUID},
                                 {"dense", TypeId::kUInt64}}};
  if (!ratio.empty()) schema.settings["ratio_of_defaults_for_sparse_serialization"] = ratio;
  return std::make_shared<const TableSchema>(std::move(schema));
}

// `rows` rows whose first six columns are non-default on rows where row % every == every - 1
// (none when every is 0, all when every is 1).
core::Block Rows(size_t rows, size_t every, size_t first_row = 0) {
  auto flag = std::make_shared<core::Column>(TypeId::kUInt16);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  auto price = std::make_shared<core::Column>(TypeId::kFloat64);
  auto n = std::make_shared<core::Column>(core::MakeNullable(TypeId::kInt32));
  auto fs = std::make_shared<core::Column>(kFixed4);
  auto u = std::make_shared<core::Column>(TypeId::kUUID);
  auto dense = std::make_shared<core::Column>(TypeId::kUInt64);
  for (size_t i = 0; i < rows; ++i) {
    const size_t r = first_row + i;
    const bool value = every != 0 && r % every == every - 1;
    flag->Append<uint16_t>(value ? static_cast<uint16_t>(r % 60000 + 1) : 0);
    s->AppendString(value ? "v" + std::to_string(r) : "");
    price->Append<double>(value ? -0.0 : 0.0);
    if (value) {
      n->Append<int32_t>(static_cast<int32_t>(r % 3) - 1);  // 0 is a value here, not NULL
    } else {
      n->AppendNull();
    }
    fs->AppendString(value ? std::string("ab\0d", 4) : std::string(4, '\0'));
    u->Append<core::UnsignedInt128>(value ? (core::UnsignedInt128{r} << 64) | 5 : 0);
    dense->Append<uint64_t>(r + 1);
  }
  return core::Block{{flag, s, price, n, fs, u, dense}};
}

absl::StatusOr<std::shared_ptr<const Part>> WriteAndLoad(
    const std::string& dir, std::shared_ptr<const TableSchema> schema, const core::Block& block,
    uint64_t number, StringSizes string_sizes = StringSizes::kVarint) {
  PartWriter::Options options;
  options.granule_rows = 64;
  options.string_sizes = string_sizes;
  // Wide, as every part before meta v6 (PartsFromBeforeSparseColumnsReadDense rewrites its meta
  // as v3).
  options.part_type = PartType::kWide;
  PartWriter writer(Posix(), schema, dir, options);
  PartName name{number, number, 0};
  absl::StatusOr<std::shared_ptr<const Part>> written =
      writer.Write(block, PartDescription(), name, kInsertTmpPrefix);
  if (!written.ok()) return written.status();
  return Part::Load(Posix(), schema, dir + "/" + name.ToString(), name);
}

// Encodes rows [begin, end) of `column` sparse and decodes them back into a fresh column.
core::ColumnPtr RoundTrip(const core::Column& column, TypeId type, size_t begin, size_t end) {
  std::string scratch;
  std::string raw(EncodeSparseGranule(column, begin, end, &scratch));
  auto out = std::make_shared<core::Column>(type);
  std::vector<uint8_t> nulls;
  if (!core::HasStringLayout(type)) out->ResizeUninitialized(end - begin);
  EXPECT_TRUE(DecodeSparseGranule(raw, end - begin, type, out->RawData(), out.get(), &nulls));
  if (core::IsNullable(type)) std::memcpy(out->MutableNullMap(), nulls.data(), nulls.size());
  return out;
}

TEST(PartSparseTest, GranulesRoundTripAtTheEdges) {
  const std::shared_ptr<const TableSchema> schema = Schema();
  for (size_t every : {0, 1, 2, 17}) {  // all default, none default, half, a few
    const core::Block block = Rows(100, every);
    for (size_t c = 0; c < block.columns.size(); ++c) {
      const TypeId type = schema->columns[c].type;
      // Whole, and a range that starts and ends inside the column.
      ExpectSameColumn(*RoundTrip(*block.columns[c], type, 0, 100), *block.columns[c], c);
      core::Column middle = block.columns[c]->Slice(13, 70);
      ExpectSameColumn(*RoundTrip(*block.columns[c], type, 13, 83), middle, c);
    }
  }
  // An all-default granule is its count alone.
  std::string scratch;
  EXPECT_EQ(EncodeSparseGranule(*Rows(50, 0).columns[0], 0, 50, &scratch).size(), 4u);
}

TEST(PartSparseTest, ChoiceFollowsTheRatioStrictly) {
  // 16 rows, 15 default: a ratio of 15/16 = 0.9375 exactly, which is not above the default.
  const core::Block at_ratio = Rows(16, 16);
  EXPECT_EQ(ChooseSerialization(*at_ratio.columns[0], TypeId::kUInt16, kDefaultSparseRatio),
            ColumnSerialization::kDefault);
  EXPECT_EQ(ChooseSerialization(*at_ratio.columns[0], TypeId::kUInt16, 0.93),
            ColumnSerialization::kSparse);
  const core::Block above = Rows(17, 17);  // 16/17 > 0.9375
  EXPECT_EQ(ChooseSerialization(*above.columns[1], TypeId::kString, kDefaultSparseRatio),
            ColumnSerialization::kSparse);
  // 1.0 turns it off, even for a column of defaults only; 0.0 takes any column with a default.
  const core::Block none = Rows(10, 0);
  EXPECT_EQ(ChooseSerialization(*none.columns[0], TypeId::kUInt16, 1.0),
            ColumnSerialization::kDefault);
  EXPECT_EQ(ChooseSerialization(*none.columns[0], TypeId::kUInt16, 0.0),
            ColumnSerialization::kSparse);
  EXPECT_EQ(ChooseSerialization(*none.columns[6], TypeId::kUInt64, 0.0),
            ColumnSerialization::kDefault);
  // -0.0 is a value; NULL is the default of a Nullable column, 0 is not.
  EXPECT_EQ(CountDefaultRows(*above.columns[2]), 16u);
  EXPECT_EQ(CountDefaultRows(*above.columns[3]), 16u);
  EXPECT_EQ(CountDefaultRows(*above.columns[4]), 16u);
}

TEST(PartSparseTest, PartsWriteMostlyDefaultColumnsSparse) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const core::Block block = Rows(1000, 50);  // 98% defaults
  absl::StatusOr<std::shared_ptr<const Part>> part = WriteAndLoad(dir.path(), Schema(), block, 1);
  ASSERT_TRUE(part.ok()) << part.status();
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_EQ((*part)->column_serialization(c), ColumnSerialization::kSparse) << c;
  }
  EXPECT_EQ((*part)->column_serialization(6), ColumnSerialization::kDefault);
  // The sparse flag column holds 20 values of 2 bytes and their gaps, not 2000 bytes.
  EXPECT_LT((*part)->column_uncompressed_bytes(0), 200u);
  ExpectRows(**part, block);
  // Bounds are those of every row, defaults included.
  core::Value min, max;
  ASSERT_TRUE((*part)->GranuleMinMax(0, 0, &min, &max));
  EXPECT_EQ(std::get<uint64_t>(min), 0u);
  EXPECT_EQ(std::get<uint64_t>(max), 50u);

  // Granule ranges, through a cache twice (the second time from it).
  UncompressedCache cache(64 << 20);
  for (int scan = 0; scan < 2; ++scan) {
    for (size_t c = 0; c < block.columns.size(); ++c) {
      absl::StatusOr<core::ColumnPtr> read = (*part)->ReadColumn(c, 3, 9, nullptr, &cache);
      ASSERT_TRUE(read.ok()) << read.status();
      core::Column expected = block.columns[c]->Slice(3 * 64, 6 * 64);
      ExpectSameColumn(**read, expected, c);
    }
    absl::StatusOr<core::ColumnPtr> sizes = (*part)->ReadStringSizes(1, 2, 16, nullptr, &cache);
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    ASSERT_EQ((*sizes)->size(), 1000u - 128);
    for (size_t r = 128; r < 1000; ++r) {
      ASSERT_EQ((*sizes)->Get<uint64_t>(r - 128), block.columns[1]->StringAt(r).size()) << r;
    }
  }
}

TEST(PartSparseTest, RatioSettingDecidesPerPart) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const core::Block block = Rows(300, 50);
  absl::StatusOr<std::shared_ptr<const Part>> off =
      WriteAndLoad(dir.path(), Schema("1"), block, 1);
  ASSERT_TRUE(off.ok()) << off.status();
  absl::StatusOr<std::shared_ptr<const Part>> low =
      WriteAndLoad(dir.path(), Schema("0.4"), Rows(300, 2), 2);
  ASSERT_TRUE(low.ok()) << low.status();
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_EQ((*off)->column_serialization(c), ColumnSerialization::kDefault) << c;
    EXPECT_EQ((*low)->column_serialization(c), ColumnSerialization::kSparse) << c;
  }
  ExpectRows(**off, block);
  ExpectRows(**low, Rows(300, 2));
  for (const char* bad : {"1.5", "-0.1", "many", "nan"}) {
    absl::Status status = ValidateTableSchema(*Schema(bad));
    EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kBadArguments) << bad << ": " << status;
  }
}

TEST(PartSparseTest, MergesOfSparseAndDensePartsDecideAgain) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  auto schema = Schema();
  // 900 sparse rows then 100 dense ones: 891 + 0 defaults of 1000, 89% (dense after merging);
  // 900 sparse rows and 10 rows of defaults only: sparse again.
  absl::StatusOr<std::shared_ptr<const Part>> sparse =
      WriteAndLoad(dir.path(), schema, Rows(900, 100), 1);
  absl::StatusOr<std::shared_ptr<const Part>> dense =
      WriteAndLoad(dir.path(), schema, Rows(100, 1, 900), 2);
  absl::StatusOr<std::shared_ptr<const Part>> empty =
      WriteAndLoad(dir.path(), schema, Rows(10, 0, 900), 3);
  ASSERT_TRUE(sparse.ok() && dense.ok() && empty.ok());
  EXPECT_EQ((*sparse)->column_serialization(1), ColumnSerialization::kSparse);
  EXPECT_EQ((*dense)->column_serialization(1), ColumnSerialization::kDefault);
  absl::StatusOr<std::shared_ptr<const PartSplitter>> splitter =
      PartSplitter::Create(*schema, true);
  ASSERT_TRUE(splitter.ok()) << splitter.status();
  PartWriter::Options options;
  options.granule_rows = 64;
  PartMerger merger(Posix(), schema, *splitter, dir.path(), options);
  MergeProgress progress;
  std::atomic<bool> cancelled{false};
  struct Case {
    std::shared_ptr<const Part> second;
    core::Block second_rows;
    ColumnSerialization expected;
  };
  for (const Case& merge : {Case{*dense, Rows(100, 1, 900), ColumnSerialization::kDefault},
                            Case{*empty, Rows(10, 0, 900), ColumnSerialization::kSparse}}) {
    absl::StatusOr<std::shared_ptr<const Part>> merged =
        merger.Merge({*sparse, merge.second}, &progress, cancelled);
    ASSERT_TRUE(merged.ok()) << merged.status();
    for (size_t c = 0; c < 6; ++c) EXPECT_EQ((*merged)->column_serialization(c), merge.expected);
    core::Block both = Rows(900, 100);
    for (size_t c = 0; c < both.columns.size(); ++c) {
      auto column = std::make_shared<core::Column>(schema->columns[c].type);
      column->AppendRange(*both.columns[c], 0, 900);
      column->AppendRange(*merge.second_rows.columns[c], 0, merge.second_rows.rows());
      both.columns[c] = column;
    }
    ExpectRows(**merged, both);
  }
}

// Returns the meta file as the version before sparse columns (GRPART03) wrote it: v4 is v3 with
// the per-column serializations appended.
std::string MetaV3(const PartMeta& meta) {
  const std::string v4 = EncodePartMeta(meta);
  std::string body(*Unseal(v4, "test"));
  body.replace(0, 8, "GRPART03");
  body.resize(body.size() - 4 - meta.serializations.size());
  return Seal(std::move(body));
}

TEST(PartSparseTest, PartsFromBeforeSparseColumnsReadDense) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  // Dense granules of mostly-default columns with u32 String lengths, as every part had them,
  // under a v3 meta.
  const core::Block block = Rows(500, 50);
  ASSERT_TRUE(WriteAndLoad(dir.path(), Schema("1"), block, 1, StringSizes::kU32).ok());
  const std::string part_dir = dir.path() + "/all_1_1_0";
  absl::StatusOr<std::string> meta_bytes = Posix()->ReadFile(part_dir + "/meta");
  ASSERT_TRUE(meta_bytes.ok());
  absl::StatusOr<PartMeta> meta = DecodePartMeta(*meta_bytes, "test");
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_TRUE(WriteFile(*Posix(), part_dir + "/meta", MetaV3(*meta)).ok());
  absl::StatusOr<std::shared_ptr<const Part>> part =
      Part::Load(Posix(), Schema(), part_dir, PartName{1, 1, 0});
  ASSERT_TRUE(part.ok()) << part.status();
  for (size_t c = 0; c < block.columns.size(); ++c) {
    EXPECT_EQ((*part)->column_serialization(c), ColumnSerialization::kDefault);
  }
  ExpectRows(**part, block);
}

// A granule of no rows decodes into no buffer at all: a null `values` / `sizes` is never
// touched (memset of zero bytes through a null pointer is undefined; UBSan in make asan-test).
TEST(PartSparseTest, EmptyGranuleNeedsNoBuffer) {
  const core::Block block = Rows(40, 4);
  std::string scratch;
  const std::string numbers(EncodeSparseGranule(*block.columns[0], 0, 0, &scratch));
  std::vector<uint8_t> nulls;
  EXPECT_TRUE(DecodeSparseGranule(numbers, 0, TypeId::kUInt16, nullptr, nullptr, &nulls));
  EXPECT_TRUE(nulls.empty());
  const std::string strings(EncodeSparseGranule(*block.columns[1], 0, 0, &scratch));
  EXPECT_EQ(SparseStringSizes(strings, 0, nullptr), 0);
}

TEST(PartSparseTest, MalformedGranulesAreRefused) {
  const core::Block block = Rows(40, 4);
  std::string scratch;
  const std::string good(EncodeSparseGranule(*block.columns[0], 0, 40, &scratch));
  std::vector<uint8_t> nulls;
  char values[2 * 64];
  EXPECT_TRUE(DecodeSparseGranule(good, 40, TypeId::kUInt16, values, nullptr, &nulls));
  // Fewer rows than the gaps reach, a count too large, a missing gap, a byte too many.
  EXPECT_FALSE(DecodeSparseGranule(good, 39, TypeId::kUInt16, values, nullptr, &nulls));
  std::string big = good;
  big[big.size() - 4] = 100;
  EXPECT_FALSE(DecodeSparseGranule(big, 40, TypeId::kUInt16, values, nullptr, &nulls));
  std::string cut = good.substr(0, good.size() - 5) + good.substr(good.size() - 4);
  EXPECT_FALSE(DecodeSparseGranule(cut, 40, TypeId::kUInt16, values, nullptr, &nulls));
  std::string extra = good.substr(0, good.size() - 4) + '\0' + good.substr(good.size() - 4);
  EXPECT_FALSE(DecodeSparseGranule(extra, 40, TypeId::kUInt16, values, nullptr, &nulls));
  EXPECT_FALSE(DecodeSparseGranule("abc", 40, TypeId::kUInt16, values, nullptr, &nulls));
  // A String length past the granule.
  std::string strings(EncodeSparseGranule(*block.columns[1], 0, 40, &scratch));
  strings[0] = '\x7f';
  core::Column out(TypeId::kString);
  EXPECT_FALSE(DecodeSparseGranule(strings, 40, TypeId::kString, nullptr, &out, &nulls));
  std::vector<uint64_t> sizes(40);
  EXPECT_EQ(SparseStringSizes(strings, 40, sizes.data()), -1);
}

}  // namespace
}  // namespace granite::storage

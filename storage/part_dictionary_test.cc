// Dictionary serialization of LowCardinality string columns (storage/dictionary_serialization.h):
// round trips of whole parts and granule ranges (through the cache too), code widths, Nullable
// and FixedString columns, the fallback past the dictionary limit, parts written before the
// column was LowCardinality, merges that re-encode, the meta's v5 form and malformed granules.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "core/dictionary_codes.h"
#include "storage/coding.h"
#include "storage/dictionary_serialization.h"
#include "storage/part.h"
#include "storage/part_format.h"
#include "storage/part_merger.h"
#include "storage/part_splitter.h"
#include "storage/part_writer.h"
#include "storage/table_schema.h"
#include "storage/temp_directory.h"
#include "storage/test_column_expectations.h"

namespace granite::storage {
namespace {

using core::TypeId;

const TypeId kFixed3 = core::MakeFixedString(3);

// id UInt32, city LowCardinality(String), code LowCardinality(Nullable(String)),
// fs LowCardinality(FixedString(3)), wide LowCardinality(String); `low_cardinality` false gives
// the same columns as plain types (a table before ALTER ... MODIFY COLUMN).
std::shared_ptr<const TableSchema> Schema(bool low_cardinality = true) {
  TableSchema schema{.name = "t",
                     .columns = {{"id", TypeId::kUInt32},
                                 {"city", TypeId::kString},
                                 {"code", core::MakeNullable(TypeId::kString)},
                                 {"fs", kFixed3},
                                 {"wide", TypeId::kString}}};
  for (size_t c = 1; c < schema.columns.size(); ++c) {
    schema.columns[c].low_cardinality = low_cardinality;
  }
  return std::make_shared<const TableSchema>(std::move(schema));
}

// `rows` rows from `first`: city takes `cities` distinct values (one of them ''), code is NULL
// every third row, wide has `wide` distinct values.
core::Block Rows(size_t rows, size_t cities, size_t wide, size_t first = 0) {
  auto id = std::make_shared<core::Column>(TypeId::kUInt32);
  auto city = std::make_shared<core::Column>(TypeId::kString);
  auto code = std::make_shared<core::Column>(core::MakeNullable(TypeId::kString));
  auto fs = std::make_shared<core::Column>(kFixed3);
  auto w = std::make_shared<core::Column>(TypeId::kString);
  for (size_t i = 0; i < rows; ++i) {
    const size_t r = first + i;
    id->Append<uint32_t>(static_cast<uint32_t>(r));
    const size_t c = (r * 7) % cities;
    city->AppendString(c == 0 ? std::string() : "city number " + std::to_string(c));
    if (r % 3 == 0) {
      code->AppendNull();
    } else {
      code->AppendString(r % 2 == 0 ? "DE" : "FR");
    }
    fs->AppendString(std::string(r % 2 == 0 ? "ab\0" : "xyz", 3));
    w->AppendString("w" + std::to_string(r % wide));
  }
  return core::Block{{id, city, code, fs, w}};
}

// Expects a dictionary column's codes to name its values.
void ExpectCodesMatch(const core::Column& column) {
  const core::DictionaryCodes* codes = column.dictionary_codes();
  ASSERT_NE(codes, nullptr);
  ASSERT_EQ(codes->codes.size(), column.size());
  for (size_t r = 0; r < column.size(); ++r) {
    ASSERT_EQ(codes->dictionary->StringAt(codes->codes[r]), column.StringAt(r)) << r;
  }
}

absl::StatusOr<std::shared_ptr<const Part>> WriteAndLoad(
    const std::string& dir, std::shared_ptr<const TableSchema> schema, const core::Block& block,
    uint64_t number, std::shared_ptr<const TableSchema> load_schema = nullptr) {
  PartWriter::Options options;
  options.granule_rows = 64;
  PartWriter writer(Posix(), schema, dir, options);
  PartName name{number, number, 0};
  absl::StatusOr<std::shared_ptr<const Part>> written =
      writer.Write(block, PartDescription(), name, kInsertTmpPrefix);
  if (!written.ok()) return written.status();
  return Part::Load(Posix(), load_schema != nullptr ? load_schema : schema,
                    dir + "/" + name.ToString(), name);
}

TEST(PartDictionaryTest, LowCardinalityColumnsRoundTrip) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const core::Block block = Rows(1000, 37, 300);
  absl::StatusOr<std::shared_ptr<const Part>> part = WriteAndLoad(dir.path(), Schema(), block, 1);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ((*part)->column_serialization(0), ColumnSerialization::kDefault);
  for (size_t c = 1; c < 5; ++c) {
    EXPECT_EQ((*part)->column_serialization(c), ColumnSerialization::kDictionary) << c;
  }
  ASSERT_NE((*part)->column_dictionary(1), nullptr);
  EXPECT_EQ((*part)->column_dictionary(1)->size(), 37u);
  EXPECT_EQ((*part)->column_dictionary(0), nullptr);
  // One byte a row for 37 values (plus the null map of the Nullable one), two for 300.
  EXPECT_EQ((*part)->column_uncompressed_bytes(1), 1000u);
  EXPECT_EQ((*part)->column_uncompressed_bytes(2), 2000u);
  EXPECT_EQ((*part)->column_uncompressed_bytes(4), 2000u);
  ExpectRows(**part, block);

  // Granule ranges, through a cache twice (the second time from it); codes come with the
  // non-Nullable columns only.
  UncompressedCache cache(64 << 20);
  for (int scan = 0; scan < 2; ++scan) {
    for (size_t c = 1; c < block.columns.size(); ++c) {
      absl::StatusOr<core::ColumnPtr> read = (*part)->ReadColumn(c, 3, 9, nullptr, &cache);
      ASSERT_TRUE(read.ok()) << read.status();
      ExpectSameColumn(**read, block.columns[c]->Slice(3 * 64, 6 * 64), c);
      if (c == 2) {
        EXPECT_EQ((*read)->dictionary_codes(), nullptr);
      } else {
        ExpectCodesMatch(**read);
      }
    }
    absl::StatusOr<core::ColumnPtr> sizes = (*part)->ReadStringSizes(1, 2, 16, nullptr, &cache);
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    ASSERT_EQ((*sizes)->size(), 1000u - 128);
    for (size_t r = 128; r < 1000; ++r) {
      ASSERT_EQ((*sizes)->Get<uint64_t>(r - 128), block.columns[1]->StringAt(r).size()) << r;
    }
  }
  // Bounds are those of the values, for pruning.
  core::Value min, max;
  ASSERT_TRUE((*part)->GranuleMinMax(1, 0, &min, &max));
  EXPECT_EQ(std::get<std::string>(min), "");
  // Codes only: the codes and empty strings, for a reader that needs nothing else; a Nullable
  // column reads whole.
  absl::StatusOr<core::ColumnPtr> coded = (*part)->ReadColumn(1, 2, 5, nullptr, nullptr, true,
                                                             /*codes_only=*/true);
  ASSERT_TRUE(coded.ok()) << coded.status();
  ASSERT_EQ((*coded)->size(), 3u * 64);
  ASSERT_NE((*coded)->dictionary_codes(), nullptr);
  for (size_t r = 0; r < (*coded)->size(); ++r) {
    ASSERT_EQ((*coded)->StringAt(r), "");
    ASSERT_EQ((*coded)->dictionary_codes()->dictionary->StringAt(
                  (*coded)->dictionary_codes()->codes[r]),
              block.columns[1]->StringAt(2 * 64 + r));
  }
  absl::StatusOr<core::ColumnPtr> nullable = (*part)->ReadColumn(2, 2, 5, nullptr, nullptr, true,
                                                                /*codes_only=*/true);
  ASSERT_TRUE(nullable.ok());
  ExpectSameColumn(**nullable, block.columns[2]->Slice(2 * 64, 3 * 64), 2);
  // A copy does not carry the codes (it may be changed).
  absl::StatusOr<core::ColumnPtr> read = (*part)->ReadColumn(1, 0, 1);
  ASSERT_TRUE(read.ok());
  core::Column copy(**read);
  EXPECT_EQ(copy.dictionary_codes(), nullptr);
}

TEST(PartDictionaryTest, TooManyDistinctValuesFallBackToPlainStrings) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  // wide has kMaxDictionarySize + 1 values: that column alone falls back, for this part.
  const core::Block block = Rows(kMaxDictionarySize + 1, 5, kMaxDictionarySize + 1);
  absl::StatusOr<std::shared_ptr<const Part>> part = WriteAndLoad(dir.path(), Schema(), block, 1);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ((*part)->column_serialization(1), ColumnSerialization::kDictionary);
  EXPECT_EQ((*part)->column_serialization(4), ColumnSerialization::kDefault);
  EXPECT_EQ((*part)->column_dictionary(4), nullptr);
  ExpectRows(**part, block);
  absl::StatusOr<core::ColumnPtr> wide = (*part)->ReadColumn(4, 0, 2);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ((*wide)->dictionary_codes(), nullptr);
  // Exactly at the limit it stays a dictionary, with two-byte codes.
  const core::Block at_limit = Rows(kMaxDictionarySize, 5, kMaxDictionarySize);
  part = WriteAndLoad(dir.path(), Schema(), at_limit, 2);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ((*part)->column_serialization(4), ColumnSerialization::kDictionary);
  EXPECT_EQ((*part)->column_uncompressed_bytes(4), 2 * kMaxDictionarySize);
  ExpectRows(**part, at_limit);
  // The byte limit counts the values' bytes too.
  std::vector<std::string> values;
  std::vector<uint32_t> codes;
  core::Column long_values(TypeId::kString);
  for (int i = 0; i < 3; ++i) {
    long_values.AppendString(std::string(kMaxDictionaryBytes / 2, static_cast<char>('a' + i)));
  }
  EXPECT_FALSE(BuildDictionary(long_values, &values, &codes));
  EXPECT_TRUE(BuildDictionary(long_values.Slice(0, 2), &values, &codes));
  EXPECT_EQ(values.size(), 2u);
}

TEST(PartDictionaryTest, PartsFromBeforeLowCardinalityReadAndMergesReencode) {
  TempDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  // Part 1 was written while the columns were plain (String), then the table became
  // LowCardinality (ALTER ... MODIFY COLUMN changes only the schema); part 2 after.
  const core::Block before = Rows(300, 11, 20);
  const core::Block after = Rows(200, 11, 20, 300);
  absl::StatusOr<std::shared_ptr<const Part>> old_part =
      WriteAndLoad(dir.path(), Schema(false), before, 1, Schema());
  absl::StatusOr<std::shared_ptr<const Part>> new_part =
      WriteAndLoad(dir.path(), Schema(), after, 2);
  ASSERT_TRUE(old_part.ok() && new_part.ok());
  EXPECT_EQ((*old_part)->column_serialization(1), ColumnSerialization::kDefault);
  EXPECT_EQ((*new_part)->column_serialization(1), ColumnSerialization::kDictionary);
  ExpectRows(**old_part, before);
  // The merge writes with the table's schema: every LowCardinality column is a dictionary again.
  absl::StatusOr<std::shared_ptr<const PartSplitter>> splitter =
      PartSplitter::Create(*Schema(), true);
  ASSERT_TRUE(splitter.ok()) << splitter.status();
  PartWriter::Options options;
  options.granule_rows = 64;
  PartMerger merger(Posix(), Schema(), *splitter, dir.path(), options);
  MergeProgress progress;
  std::atomic<bool> cancelled{false};
  absl::StatusOr<std::shared_ptr<const Part>> merged =
      merger.Merge({*old_part, *new_part}, &progress, cancelled);
  ASSERT_TRUE(merged.ok()) << merged.status();
  for (size_t c = 1; c < 5; ++c) {
    EXPECT_EQ((*merged)->column_serialization(c), ColumnSerialization::kDictionary) << c;
  }
  ExpectRows(**merged, Rows(500, 11, 20));
  // And back: a merge under the plain schema writes plain strings.
  PartMerger plain_merger(Posix(), Schema(false), *splitter, dir.path(), options);
  absl::StatusOr<std::shared_ptr<const Part>> plain =
      plain_merger.Merge({*merged}, &progress, cancelled);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->column_serialization(1), ColumnSerialization::kDefault);
  ExpectRows(**plain, Rows(500, 11, 20));
}

TEST(PartDictionaryTest, MetaKeepsDictionariesAndOlderFormsStay) {
  PartMeta meta;
  meta.rows = 2;
  meta.columns = Schema()->columns;
  meta.granule_rows = {2};
  meta.codecs.assign(meta.columns.size(), "LZ4");
  meta.serializations.assign(meta.columns.size(), ColumnSerialization::kDefault);
  // Without a dictionary the meta is v4, as before.
  std::string v4 = EncodePartMeta(meta);
  EXPECT_EQ(Unseal(v4, "test")->substr(0, 8), "GRPART04");
  meta.serializations[1] = ColumnSerialization::kDictionary;
  meta.dictionaries.assign(meta.columns.size(), {});
  meta.dictionaries[1] = {"", "Berlin"};
  const std::string v5 = EncodePartMeta(meta);
  EXPECT_EQ(Unseal(v5, "test")->substr(0, 8), "GRPART05");
  absl::StatusOr<PartMeta> decoded = DecodePartMeta(v5, "test");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->dictionaries, meta.dictionaries);
  EXPECT_EQ(decoded->serializations, meta.serializations);
  // A dictionary kind in a v4 meta, or a dictionary on a column that is not one, is corrupt.
  std::string body(*Unseal(v5, "test"));
  std::string as_v4 = body;
  as_v4.replace(0, 8, "GRPART04");
  EXPECT_FALSE(DecodePartMeta(Seal(std::move(as_v4)), "test").ok());
  meta.dictionaries[0] = {"x"};
  EXPECT_FALSE(DecodePartMeta(EncodePartMeta(meta), "test").ok());
}

TEST(PartDictionaryTest, MalformedGranulesAreRefused) {
  core::Column column(TypeId::kString);
  for (const char* value : {"a", "b", "a", "c"}) column.AppendString(value);
  std::vector<std::string> values;
  std::vector<uint32_t> codes;
  ASSERT_TRUE(BuildDictionary(column, &values, &codes));
  EXPECT_EQ(values, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(codes, (std::vector<uint32_t>{0, 1, 0, 2}));
  std::string scratch;
  const std::string good(EncodeDictionaryGranule(codes, 1, column, 0, 4, false, &scratch));
  std::vector<uint32_t> decoded;
  EXPECT_TRUE(DecodeDictionaryGranule(good, 4, 3, &decoded, nullptr));
  EXPECT_EQ(decoded, codes);
  // A code past the dictionary, a byte too few or too many, a missing null map.
  EXPECT_FALSE(DecodeDictionaryGranule(good, 4, 2, &decoded, nullptr));
  EXPECT_FALSE(DecodeDictionaryGranule(good.substr(1), 4, 3, &decoded, nullptr));
  EXPECT_FALSE(DecodeDictionaryGranule(good + "x", 4, 3, &decoded, nullptr));
  std::vector<uint8_t> nulls;
  EXPECT_FALSE(DecodeDictionaryGranule(good, 4, 3, &decoded, &nulls));
  EXPECT_EQ(CodeWidth(256), 1u);
  EXPECT_EQ(CodeWidth(257), 2u);
  EXPECT_EQ(CodeWidth(65537), 4u);
}

// Values copied at a fixed width (up to 16 and 32 bytes) and at their length (longer), from a
// small dictionary (read from a padded copy) and from a large one whose last values sit within
// the width of its end; appended after rows already in the column.
TEST(DictionaryValuesTest, AppendedValuesEqualTheDictionarysAtEveryLength) {
  for (size_t longest : {1, 16, 17, 32, 33, 100}) {
    for (size_t size : {3, 600}) {
      std::vector<std::string> values;
      for (size_t i = 0; i < size; ++i) {
        const char letter = static_cast<char>('a' + i % 26);
        values.push_back(std::string(1 + (i * 7 + longest) % longest, letter));
      }
      values.back().assign(longest, 'z');  // the longest value last: at the very end
      const core::ColumnPtr dictionary = DictionaryColumn(TypeId::kString, values);
      std::vector<uint32_t> codes;
      for (size_t r = 0; r < 1000; ++r) codes.push_back(static_cast<uint32_t>((r * 31) % size));
      codes.push_back(static_cast<uint32_t>(size - 1));
      core::Column out(TypeId::kString);
      out.AppendString("before");
      AppendDictionaryValues(*dictionary, codes.data(), codes.size(), &out);
      out.SetSize(codes.size() + 1);
      ASSERT_EQ(out.StringAt(0), "before");
      for (size_t r = 0; r < codes.size(); ++r) {
        ASSERT_EQ(out.StringAt(r + 1), values[codes[r]]) << longest << " " << size << " " << r;
      }
      EXPECT_EQ(out.Chars().size(), out.Offsets().back());
    }
  }
}

}  // namespace
}  // namespace granite::storage

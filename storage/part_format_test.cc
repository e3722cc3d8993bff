#include "storage/part_format.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

TEST(PartFormatTest, PartNamesRoundTripAndRejectOtherEntries) {
  PartName name{12, 15, 2};
  EXPECT_EQ(name.ToString(), "all_12_15_2");
  std::optional<PartName> parsed = PartName::Parse("all_12_15_2");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->min_block, 12u);
  EXPECT_EQ(parsed->max_block, 15u);
  EXPECT_EQ(parsed->level, 2u);
  for (const char* bad : {"tmp_insert_all_1_1_0", "all_1_1", "all_01_1_0", "all_2_1_0",
                          "all_1_1_0_", "x.y_1_1_0", "_1_1_0", "all_-1_1_0", "committing_x",
                          "tmp_prepared_abc", ""}) {
    EXPECT_FALSE(PartName::Parse(bad).has_value()) << bad;
  }
  std::optional<PartName> partitioned = PartName::Parse("202401_3_9_1");
  ASSERT_TRUE(partitioned.has_value());
  EXPECT_EQ(partitioned->partition_id, "202401");
  EXPECT_EQ(partitioned->ToString(), "202401_3_9_1");
  EXPECT_TRUE(PartName::Parse("-5_1_1_0").has_value());  // a negative partition value

  EXPECT_TRUE(PartName::Parse("202401_3_9_1")->Covers(*PartName::Parse("202401_4_4_0")));
  EXPECT_FALSE(PartName::Parse("202401_3_9_1")->Covers(*PartName::Parse("202402_4_4_0")));
  EXPECT_FALSE(PartName::Parse("202401_3_9_1")->Covers(*PartName::Parse("202401_3_9_1")));
  EXPECT_FALSE(PartName::Parse("202401_3_9_1")->Covers(*PartName::Parse("202401_8_10_1")));
}

TEST(PartFormatTest, PartitionIdsFollowClickHouse) {
  EXPECT_EQ(PartitionId(PartitionValue()), "all");
  EXPECT_EQ(PartitionId({true, TypeId::kUInt32, uint64_t{202401}}), "202401");
  EXPECT_EQ(PartitionId({true, TypeId::kInt16, int64_t{-7}}), "-7");
  EXPECT_EQ(PartitionId({true, TypeId::kDate, uint64_t{19737}}), "20240115");  // 2024-01-15
  std::string hashed = PartitionId({true, TypeId::kString, std::string("Moscow")});
  EXPECT_EQ(hashed.size(), 16u);
  EXPECT_NE(hashed, PartitionId({true, TypeId::kString, std::string("London")}));
  EXPECT_TRUE(PartName::Parse(hashed + "_1_1_0").has_value());
}

TEST(PartFormatTest, MetaV2KeepsPartitionAndSortKey) {
  PartMeta meta;
  meta.rows = 3;
  meta.columns = {{"d", TypeId::kDate}};
  meta.granule_rows = {3};
  meta.partition = {true, TypeId::kUInt32, uint64_t{202401}};
  meta.sort_key = {"d", "intDiv(d, 7)"};
  absl::StatusOr<PartMeta> decoded = DecodePartMeta(EncodePartMeta(meta), "part");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->partition, meta.partition);
  EXPECT_EQ(decoded->sort_key, meta.sort_key);
}

TEST(PartFormatTest, PrimaryIndexRoundTripsAndDetectsDamage) {
  PrimaryIndex index;
  index.types = {TypeId::kUInt32, TypeId::kString};
  index.values = {{uint64_t{1}, uint64_t{5}, uint64_t{9}}, {std::string("a"), std::string("b"),
                                                             std::string("zz")}};
  std::string bytes = EncodePrimaryIndex(index);
  absl::StatusOr<PrimaryIndex> decoded = DecodePrimaryIndex(bytes, "part");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->types, index.types);
  EXPECT_EQ(decoded->values, index.values);
  bytes[12] ^= 1;
  EXPECT_EQ(CodeOf(DecodePrimaryIndex(bytes, "part").status()), ErrorCode::kCorruptedData);
}

TEST(PartFormatTest, MetaRoundTripsAndDetectsDamage) {
  PartMeta meta;
  meta.rows = 8192 + 10;
  meta.columns = {{"a", TypeId::kInt16}, {"b", TypeId::kString}};
  meta.granule_rows = {8192, 10};
  std::string bytes = EncodePartMeta(meta);
  absl::StatusOr<PartMeta> decoded = DecodePartMeta(bytes, "part all_1_1_0 of table t");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->rows, meta.rows);
  EXPECT_EQ(decoded->columns, meta.columns);
  EXPECT_EQ(decoded->granule_rows, meta.granule_rows);

  bytes[10] ^= 1;
  absl::Status status = DecodePartMeta(bytes, "part all_1_1_0 of table t").status();
  EXPECT_EQ(CodeOf(status), ErrorCode::kCorruptedData);
  EXPECT_NE(status.message().find("part all_1_1_0 of table t"), std::string::npos);
}

TEST(PartFormatTest, MarksRoundTripWithBoundsOfEachForm) {
  struct Case {
    TypeId type;
    core::Value min, max;
  };
  for (const Case& c : {Case{TypeId::kInt8, int64_t{-5}, int64_t{7}},
                        Case{TypeId::kDateTime, uint64_t{1}, uint64_t{4000000000}},
                        Case{TypeId::kFloat32, -1.5, 2.25},
                        Case{TypeId::kString, std::string(""), std::string("zz")}}) {
    ColumnMarks marks;
    marks.marks = {{0, 10, 20, 123}, {10, 5, 20, 456}};
    marks.bounds = {{true, c.min, c.max}, {}};
    absl::StatusOr<ColumnMarks> decoded =
        DecodeColumnMarks(EncodeColumnMarks(marks, c.type), c.type, "t");
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ASSERT_EQ(decoded->marks.size(), 2u);
    EXPECT_EQ(decoded->marks[1].offset, 10u);
    EXPECT_EQ(decoded->marks[1].compressed_size, 5u);
    EXPECT_EQ(decoded->marks[1].checksum, 456u);
    EXPECT_TRUE(decoded->bounds[0].present);
    EXPECT_EQ(decoded->bounds[0].min, c.min);
    EXPECT_EQ(decoded->bounds[0].max, c.max);
    EXPECT_FALSE(decoded->bounds[1].present);
  }
}

TEST(PartFormatTest, StringGranuleRoundTripsAndRejectsMalformedInput) {
  core::Column column(TypeId::kString);
  for (const char* s : {"", "a", "", "hello world", ""}) column.AppendString(s);
  std::string scratch;
  std::string raw(EncodeGranule(column, 1, 4, &scratch));
  EXPECT_EQ(raw.size(), 3 * 1 + 12u);  // a varint length a row, then the chars

  core::Column out(TypeId::kString);
  out.AppendString("prefix");
  ASSERT_TRUE(AppendStringGranule(raw, 3, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.StringAt(0), "prefix");
  EXPECT_EQ(out.StringAt(1), "a");
  EXPECT_EQ(out.StringAt(2), "");
  EXPECT_EQ(out.StringAt(3), "hello world");

  core::Column bad(TypeId::kString);
  EXPECT_FALSE(AppendStringGranule(raw.substr(0, raw.size() - 1), 3, &bad));
  EXPECT_FALSE(AppendStringGranule(raw.substr(0, 5), 3, &bad));
  EXPECT_EQ(bad.size(), 0u);
  EXPECT_TRUE(bad.Offsets().empty());
}

TEST(PartFormatTest, StringSizesRoundTripAsVarintsAndAsU32) {
  // Lengths of one, two and three varint bytes, and empty strings.
  core::Column column(TypeId::kString);
  for (size_t length : {0, 1, 127, 128, 16383, 16384, 70000, 0}) {
    column.AppendString(std::string(length, static_cast<char>('a' + length % 26)));
  }
  const size_t rows = column.size();
  for (StringSizes sizes : {StringSizes::kVarint, StringSizes::kU32}) {
    std::string scratch;
    std::string raw(EncodeGranule(column, 0, rows, &scratch, false, sizes));
    const size_t prefix = sizes == StringSizes::kU32 ? rows * 4 : 1 + 1 + 1 + 2 + 2 + 3 + 3 + 1;
    EXPECT_EQ(raw.size(), prefix + column.Chars().size());
    core::Column out(TypeId::kString);
    ASSERT_TRUE(AppendStringGranule(raw, rows, &out, sizes));
    for (size_t r = 0; r < rows; ++r) EXPECT_EQ(out.StringAt(r), column.StringAt(r)) << r;
    std::vector<uint64_t> lengths(rows);
    EXPECT_EQ(DecodeStringSizes(raw, rows, sizes, lengths.data()), static_cast<int64_t>(prefix));
    EXPECT_EQ(lengths[6], 70000u);
    // A prefix shorter than the lengths, and a varint longer than 32 bits, are refused.
    EXPECT_EQ(DecodeStringSizes(raw.substr(0, prefix - 1), rows, sizes, lengths.data()), -1);
  }
  std::vector<uint64_t> lengths(1);
  // Near the end (byte by byte) and with 72 bytes to load (a mask of 64 bytes).
  EXPECT_EQ(DecodeStringSizes("\xff\xff\xff\xff\xff\x01", 1, StringSizes::kVarint,
                              lengths.data()), -1);
  EXPECT_EQ(DecodeStringSizes(std::string("\xff\xff\xff\xff\xff\x01") + std::string(80, 'x'), 1,
                              StringSizes::kVarint, lengths.data()), -1);
  EXPECT_EQ(DecodeStringSizes(std::string("\xff\xff\xff\x0f") + std::string(80, 'x'), 1,
                              StringSizes::kVarint, lengths.data()), 4);
  EXPECT_EQ(lengths[0], (uint64_t{1} << 25) - 1);
  // No varint ends in 64 bytes.
  EXPECT_EQ(DecodeStringSizes(std::string(80, '\x80'), 1, StringSizes::kVarint, lengths.data()),
            -1);
}

TEST(PartFormatTest, StringSizesDecodeRunsOfShortAndLongLengths) {
  // Runs of one-byte lengths (the widening copy), lengths straddling 128 and 16384 (the mask),
  // and a tail decoded byte by byte.
  core::Column column(TypeId::kString);
  for (size_t r = 0; r < 1000; ++r) {
    const size_t length = r < 300 ? r % 3 : (r < 700 ? 100 + r % 60 : (r % 97 == 0 ? 20000 : r % 5));
    column.AppendString(std::string(length, 'q'));
  }
  std::string scratch;
  for (size_t begin : {0, 1, 299, 650}) {
    std::string raw(EncodeGranule(column, begin, 1000, &scratch));
    core::Column out(TypeId::kString);
    ASSERT_TRUE(AppendStringGranule(raw, 1000 - begin, &out)) << begin;
    for (size_t r = begin; r < 1000; ++r) ASSERT_EQ(out.StringAt(r - begin), column.StringAt(r)) << r;
  }
}

TEST(PartFormatTest, BoundsIgnoreNothingAndGiveUpOnNaNAndLongStrings) {
  core::Column ints(TypeId::kInt32);
  for (int32_t v : {5, -3, 12, 0}) ints.Append(v);
  GranuleBounds bounds = ComputeBounds(ints, 0, 4);
  ASSERT_TRUE(bounds.present);
  EXPECT_EQ(bounds.min, core::Value(int64_t{-3}));
  EXPECT_EQ(bounds.max, core::Value(int64_t{12}));
  bounds = ComputeBounds(ints, 3, 4);
  EXPECT_EQ(bounds.min, core::Value(int64_t{0}));

  core::Column floats(TypeId::kFloat64);
  floats.Append(1.0);
  floats.Append(std::nan(""));
  EXPECT_FALSE(ComputeBounds(floats, 0, 2).present);
  EXPECT_TRUE(ComputeBounds(floats, 0, 1).present);

  core::Column strings(TypeId::kString);
  strings.AppendString("b");
  strings.AppendString("a");
  strings.AppendString(std::string(kMaxStringBoundBytes + 1, 'z'));
  bounds = ComputeBounds(strings, 0, 2);
  ASSERT_TRUE(bounds.present);
  EXPECT_EQ(bounds.min, core::Value(std::string("a")));
  EXPECT_EQ(bounds.max, core::Value(std::string("b")));
  EXPECT_FALSE(ComputeBounds(strings, 0, 3).present);
}

}  // namespace
}  // namespace granite::storage

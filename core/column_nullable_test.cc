// Nullable(T): the type's spellings and byte form, a column's null map through every column
// operation, and the wire codec.
#include <gtest/gtest.h>

#include "core/block_codec.h"
#include "core/column.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::core {
namespace {

TEST(ColumnNullableTest, TypeNamesParseAndBytesRoundTrip) {
  const TypeId n = MakeNullable(TypeId::kInt32);
  EXPECT_TRUE(IsNullable(n));
  EXPECT_EQ(RemoveNullable(n), TypeId::kInt32);
  EXPECT_EQ(BaseOf(n), TypeId::kInt32);
  EXPECT_EQ(ValueSize(n), 4u);
  EXPECT_TRUE(IsSignedInteger(n));
  EXPECT_EQ(TypeName(n), "Nullable(Int32)");
  EXPECT_EQ(TypeName(MakeNullable(MakeDecimal(10, 2))), "Nullable(Decimal(10, 2))");
  EXPECT_EQ(TypeName(MakeNullable(MakeDecimal(38, 38))), "Nullable(Decimal(38, 38))");
  EXPECT_EQ(TypeName(MakeNullable(MakeDecimal(1, 0))), "Nullable(Decimal(1, 0))");
  EXPECT_EQ(TypeName(MakeNullable(TypeId::kNothing)), "Nullable(Nothing)");
  EXPECT_EQ(*ParseType("Nullable(String)"), MakeNullable(TypeId::kString));
  EXPECT_EQ(*ParseType(" nullable ( Decimal(15, 2) ) "), MakeNullable(MakeDecimal(15, 2)));
  EXPECT_EQ(CodeOf(ParseType("Nullable(Nullable(Int8))").status()),
            ErrorCode::kIllegalTypeOfArgument);
  EXPECT_FALSE(ParseType("Nullable(Nothing)").ok());
  for (TypeId type : {n, MakeNullable(TypeId::kString), MakeNullable(MakeDecimal(20, 3)),
                      MakeNullable(TypeId::kNothing), TypeId::kDate, MakeDecimal(9, 1)}) {
    EXPECT_TRUE(IsValidType(static_cast<uint32_t>(type)));
    std::string bytes;
    AppendTypeBytes(type, &bytes);
    std::string_view view = bytes;
    TypeId back = TypeId::kUInt8;
    ASSERT_TRUE(ReadTypeBytes(&view, &back)) << TypeName(type);
    EXPECT_EQ(back, type);
    EXPECT_TRUE(view.empty());
  }
  // Nothing exists only inside Nullable; other flag bits are not types.
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kNothing)));
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kInt8) | (1u << 28)));
}

TEST(ColumnNullableTest, NullMapFollowsFilterTakeSliceAndAppends) {
  Column c(MakeNullable(TypeId::kInt64));
  ASSERT_TRUE(c.nullable());
  EXPECT_EQ(c.type(), TypeId::kInt64);
  EXPECT_EQ(c.logical_type(), MakeNullable(TypeId::kInt64));
  for (int64_t i = 0; i < 6; ++i) {
    if (i % 2 == 1) {
      c.AppendNull();
    } else {
      c.Append<int64_t>(i * 10);
    }
  }
  ASSERT_EQ(c.size(), 6u);
  EXPECT_TRUE(c.HasNulls());
  EXPECT_EQ(c.Get<int64_t>(1), 0);  // the default under a NULL
  const uint8_t mask[] = {1, 1, 0, 1, 1, 0};
  Column filtered = c.Filter(mask);
  ASSERT_EQ(filtered.size(), 4u);
  EXPECT_FALSE(filtered.IsNullAt(0));
  EXPECT_TRUE(filtered.IsNullAt(1));
  EXPECT_TRUE(filtered.IsNullAt(2));
  EXPECT_EQ(filtered.Get<int64_t>(3), 40);
  const uint32_t order[] = {5, 0, 3};
  Column taken = c.Take(order, 3);
  EXPECT_TRUE(taken.nullable());
  EXPECT_TRUE(taken.IsNullAt(0));
  EXPECT_FALSE(taken.IsNullAt(1));
  EXPECT_TRUE(taken.IsNullAt(2));
  Column slice = c.Slice(2, 3);
  EXPECT_FALSE(slice.IsNullAt(0));
  EXPECT_TRUE(slice.IsNullAt(1));
  Column plain(TypeId::kInt64);
  plain.Append<int64_t>(7);
  Column mixed(MakeNullable(TypeId::kInt64));
  mixed.AppendRange(plain, 0, 1);
  mixed.AppendFrom(c, 1);
  mixed.AppendTaken(c, order, 2);
  ASSERT_EQ(mixed.size(), 4u);
  EXPECT_FALSE(mixed.IsNullAt(0));
  EXPECT_TRUE(mixed.IsNullAt(1));
  EXPECT_TRUE(mixed.IsNullAt(2));
  EXPECT_FALSE(mixed.IsNullAt(3));
  // Into a column that is not Nullable, a NULL arrives as its value (the default).
  Column values(TypeId::kInt64);
  values.AppendFrom(c, 1);
  EXPECT_FALSE(values.nullable());
  EXPECT_EQ(values.Get<int64_t>(0), 0);

  Column strings(MakeNullable(TypeId::kString));
  strings.AppendString("a");
  strings.AppendNull();
  strings.AppendString("bc");
  EXPECT_EQ(strings.StringAt(1), "");
  Column strings_taken = strings.Take(order + 1, 1);  // row 0
  EXPECT_EQ(strings_taken.StringAt(0), "a");
}

TEST(ColumnNullableTest, WireCodecCarriesNullMaps) {
  auto n = std::make_shared<Column>(MakeNullable(TypeId::kUInt16));
  auto s = std::make_shared<Column>(MakeNullable(TypeId::kString));
  auto plain = std::make_shared<Column>(TypeId::kInt8);
  for (int i = 0; i < 5; ++i) {
    if (i == 2) {
      n->AppendNull();
      s->AppendNull();
    } else {
      n->Append<uint16_t>(static_cast<uint16_t>(i));
      s->AppendString(std::string(i, 'z'));
    }
    plain->Append<int8_t>(static_cast<int8_t>(-i));
  }
  Block block{{n, s, plain}};
  absl::StatusOr<Block> back = DecodeBlock(EncodeBlock(block));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->columns.size(), 3u);
  EXPECT_EQ(back->columns[0]->logical_type(), MakeNullable(TypeId::kUInt16));
  EXPECT_EQ(back->columns[1]->logical_type(), MakeNullable(TypeId::kString));
  EXPECT_FALSE(back->columns[2]->nullable());
  for (size_t r = 0; r < 5; ++r) {
    EXPECT_EQ(back->columns[0]->IsNullAt(r), r == 2);
    EXPECT_EQ(back->columns[1]->IsNullAt(r), r == 2);
    EXPECT_EQ(back->columns[1]->StringAt(r), s->StringAt(r));
    EXPECT_EQ(back->columns[2]->Get<int8_t>(r), -static_cast<int>(r));
  }
  // A block cut short inside the null map is malformed, not a crash.
  std::string bytes = EncodeBlock(Block{{n}});
  bytes.resize(bytes.size() - 2);
  EXPECT_EQ(CodeOf(DecodeBlock(bytes).status()), ErrorCode::kCorruptedData);
}

}  // namespace
}  // namespace granite::core

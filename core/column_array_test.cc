// Array(T): the type's id layout, names, parsing and byte form; the column's offsets and nested
// elements through Filter / Take / Slice / the appends; the wire codec; the arrays' text.
#include <gtest/gtest.h>

#include <string>

#include "core/block_codec.h"
#include "core/column.h"
#include "core/error.h"
#include "core/quoted_text.h"
#include "core/types.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

// Returns the text of every row: "[1,2] [] [3]".
std::string Texts(const Column& column) {
  std::string out;
  for (size_t row = 0; row < column.size(); ++row) {
    if (row > 0) out.push_back(' ');
    AppendValueText(column, row, &out);
  }
  return out;
}

Column Parsed(TypeId type, std::initializer_list<std::string_view> rows) {
  Column column(type);
  for (std::string_view row : rows) EXPECT_TRUE(ParseValueText(row, type, &column).ok()) << row;
  return column;
}

TEST(ColumnArrayTest, TypeIdsKeepTheirValuesAndArraysNest) {
  const TypeId a = MakeArray(TypeId::kUInt8);
  EXPECT_EQ(static_cast<uint32_t>(a), 1u << 25);  // UInt8 (0) at depth 1
  EXPECT_TRUE(IsArray(a));
  EXPECT_EQ(BaseOf(a), TypeId::kArray);
  EXPECT_EQ(ArrayElementOf(a), TypeId::kUInt8);
  const TypeId nested = MakeArray(MakeArray(MakeNullable(TypeId::kString)));
  EXPECT_EQ(ArrayDepthOf(nested), 2);
  EXPECT_EQ(ArrayInnermostOf(nested), MakeNullable(TypeId::kString));
  // An array is never Nullable, even with a Nullable element.
  const TypeId of_nullable = MakeArray(MakeNullable(TypeId::kInt32));
  EXPECT_FALSE(IsNullable(of_nullable));
  EXPECT_EQ(MakeNullable(of_nullable), of_nullable);
  EXPECT_EQ(RemoveNullable(of_nullable), of_nullable);
  EXPECT_FALSE(IsString(MakeArray(TypeId::kString)));
  EXPECT_FALSE(IsDecimal(MakeArray(MakeDecimal(10, 2))));
  EXPECT_EQ(TypeName(nested), "Array(Array(Nullable(String)))");
  EXPECT_EQ(TypeName(MakeArray(MakeDecimal(10, 2))), "Array(Decimal(10, 2))");
  EXPECT_EQ(TypeName(MakeArray(TypeId::kNothing)), "Array(Nothing)");
  EXPECT_EQ(*ParseType("Array(Nullable(String))"), MakeArray(MakeNullable(TypeId::kString)));
  EXPECT_EQ(*ParseType(" array ( Array(UInt8) ) "), MakeArray(MakeArray(TypeId::kUInt8)));
  EXPECT_EQ(*ParseType("Array(DateTime64(3))"), MakeArray(MakeDateTime64(3)));
  absl::StatusOr<TypeId> bad = ParseType("Nullable(Array(UInt8))");
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_NE(bad.status().message().find("Nested type Array(UInt8) cannot be inside Nullable"),
            std::string::npos);
  EXPECT_FALSE(ParseType("Array(Array(Array(Array(Array(Array(Array(Array(UInt8))))))))").ok());
  // The byte forms of several types, back to back, read back one after the other.
  const TypeId types[] = {a, nested, of_nullable, MakeArray(TypeId::kNothing),
                          MakeArray(MakeNullable(TypeId::kNothing)), MakeArray(MakeFixedString(4)),
                          MakeArray(MakeDecimal(38, 5))};
  std::string bytes;
  for (TypeId type : types) {
    EXPECT_TRUE(IsValidType(static_cast<uint32_t>(type))) << TypeName(type);
    AppendTypeBytes(type, &bytes);
  }
  std::string_view view = bytes;
  for (TypeId type : types) {
    TypeId back = TypeId::kUInt8;
    ASSERT_TRUE(ReadTypeBytes(&view, &back)) << TypeName(type);
    EXPECT_EQ(back, type);
  }
  EXPECT_TRUE(view.empty());
}

TEST(ColumnArrayTest, FilterTakeSliceAndAppendsMoveOffsetsWithElements) {
  const TypeId type = MakeArray(TypeId::kInt32);
  Column c = Parsed(type, {"[1,2]", "[]", "[3]", "[4,5,6]", "[-7]"});
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c.Nested().size(), 7u);
  EXPECT_EQ(Texts(c), "[1,2] [] [3] [4,5,6] [-7]");
  const uint8_t mask[] = {1, 0, 0, 1, 1};
  EXPECT_EQ(Texts(c.Filter(mask)), "[1,2] [4,5,6] [-7]");
  const uint32_t indices[] = {3, 3, 1, 0};
  EXPECT_EQ(Texts(c.Take(indices, 4)), "[4,5,6] [4,5,6] [] [1,2]");
  EXPECT_EQ(Texts(c.Slice(1, 3)), "[] [3] [4,5,6]");
  Column d(type);
  d.AppendFrom(c, 3);
  d.AppendRange(c, 0, 2);
  d.AppendTaken(c, indices + 2, 2);
  d.AppendNull();  // an array is never NULL: the default, []
  EXPECT_EQ(Texts(d), "[4,5,6] [1,2] [] [] [1,2] []");
  EXPECT_EQ(d.Offsets().back(), d.Nested().size());
  Column copy = d;  // copies are deep
  copy.MutableNested().Append<int32_t>(9);
  copy.AppendArrayEnd();
  EXPECT_EQ(d.size(), 6u);
  EXPECT_EQ(Texts(copy), "[4,5,6] [1,2] [] [] [1,2] [] [9]");
  EXPECT_GT(c.ByteSize(), 7u * 4);
}

TEST(ColumnArrayTest, TextOfNullableStringAndNestedElements) {
  const TypeId strings = MakeArray(MakeNullable(TypeId::kString));
  Column s = Parsed(strings, {"['a', NULL, 'it\\'s']", "[\"x\",\"y\"]", "[]"});
  EXPECT_EQ(Texts(s), "['a',NULL,'it\\'s'] ['x','y'] []");
  EXPECT_TRUE(s.Nested().IsNullAt(1));
  const TypeId nested = MakeArray(MakeArray(TypeId::kUInt8));
  Column n = Parsed(nested, {"[[1,2],[]]", " [ [3] ] "});
  EXPECT_EQ(Texts(n), "[[1,2],[]] [[3]]");
  Column bad(MakeArray(TypeId::kUInt8));
  EXPECT_EQ(CodeOf(ParseValueText("[1,", MakeArray(TypeId::kUInt8), &bad)),
            ErrorCode::kCannotParseText);
  EXPECT_FALSE(ParseValueText("[300]", MakeArray(TypeId::kUInt8), &bad).ok());
  EXPECT_EQ(bad.size(), 0u);
  EXPECT_EQ(bad.Nested().size(), 0u);  // a failed parse leaves no elements behind
}

TEST(ColumnArrayTest, WireCodecRoundTripsNestedAndNullableElements) {
  Block block;
  block.columns.push_back(std::make_shared<Column>(
      Parsed(MakeArray(MakeArray(MakeNullable(TypeId::kString))), {"[['a',NULL],[]]", "[]"})));
  block.columns.push_back(
      std::make_shared<Column>(Parsed(MakeArray(TypeId::kFloat64), {"[1.5]", "[2,3]"})));
  const std::string bytes = EncodeBlock(block);
  absl::StatusOr<Block> back = DecodeBlock(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->columns.size(), 2u);
  EXPECT_EQ(back->columns[0]->logical_type(), block.columns[0]->logical_type());
  EXPECT_EQ(Texts(*back->columns[0]), "[['a',NULL],[]] []");
  EXPECT_EQ(Texts(*back->columns[1]), "[1.5] [2,3]");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeBlock(std::string_view(bytes).substr(0, cut)).ok()) << cut;
  }
}

}  // namespace
}  // namespace granite::core

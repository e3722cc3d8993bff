// Tuple(T1, ..., Tn): the process's table of tuple types (ids, names, refusal on the wire), and
// the tuple column's elements through Filter / Take / Slice / the appends and as text.
#include <gtest/gtest.h>

#include <string>

#include "core/column.h"
#include "core/quoted_text.h"
#include "core/tuple_type.h"
#include "core/types.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

std::string Texts(const Column& column) {
  std::string out;
  for (size_t row = 0; row < column.size(); ++row) {
    if (row > 0) out.push_back(' ');
    AppendValueText(column, row, &out);
  }
  return out;
}

// A Tuple(UInt32, Nullable(String), Array(UInt8)) column of three rows.
Column ThreeRows() {
  const TypeId type = *MakeTupleType(
      {TypeId::kUInt32, MakeNullable(TypeId::kString), MakeArray(TypeId::kUInt8)});
  Column column(type);
  for (uint32_t i = 0; i < 3; ++i) column.MutableElement(0).Append<uint32_t>(i + 1);
  column.MutableElement(1).AppendString("a");
  column.MutableElement(1).AppendNull();
  column.MutableElement(1).AppendString("it's");
  for (std::string_view text : {"[1]", "[]", "[2,3]"}) {
    EXPECT_TRUE(ParseValueText(text, MakeArray(TypeId::kUInt8), &column.MutableElement(2)).ok());
  }
  column.SetSize(3);
  return column;
}

TEST(ColumnTupleTest, TheSameElementsGetTheSameId) {
  const TypeId a = *MakeTupleType({TypeId::kUInt8, TypeId::kString});
  const TypeId b = *MakeTupleType({TypeId::kUInt8, TypeId::kString});
  const TypeId named = *MakeTupleType({TypeId::kUInt8, TypeId::kString}, {"x", "y"});
  const TypeId empty = *MakeTupleType({});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, named);
  EXPECT_TRUE(IsTuple(a));
  EXPECT_FALSE(IsArray(a));
  EXPECT_EQ(TypeName(a), "Tuple(UInt8, String)");
  EXPECT_EQ(TypeName(named), "Tuple(x UInt8, y String)");
  EXPECT_EQ(TypeName(empty), "Tuple()");
  const TypeId nested = *MakeTupleType({a, MakeArray(TypeId::kDate)});
  EXPECT_EQ(TypeName(nested), "Tuple(Tuple(UInt8, String), Array(Date))");
  EXPECT_EQ(TupleTypeOf(nested).elements[0], a);
  EXPECT_FALSE(MakeTupleType({TypeId::kUInt8}, {"x", "y"}).ok());
}

TEST(ColumnTupleTest, TupleIdsAreRefusedFromFilesAndTheWire) {
  // An id indexes this process's table only: a peer's bytes must never name one.
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(*MakeTupleType({TypeId::kUInt8}))));
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kTuple)));
}

TEST(ColumnTupleTest, TextQuotesElementsAsClickHouse) {
  const Column column = ThreeRows();
  EXPECT_EQ(Texts(column), "(1,'a',[1]) (2,NULL,[]) (3,'it\\'s',[2,3])");
  std::string quoted;
  AppendQuotedValueText(column, 2, &quoted);
  EXPECT_EQ(quoted, "(3,'it\\'s',[2,3])");
  Column empty(*MakeTupleType({}));
  empty.Resize(2);
  EXPECT_EQ(Texts(empty), "() ()");
  Column parsed(column.type());
  EXPECT_FALSE(ParseValueText("(1,'a',[1])", column.type(), &parsed).ok());
}

TEST(ColumnTupleTest, RowOperationsMoveEveryElement) {
  const Column column = ThreeRows();
  const uint8_t mask[] = {1, 0, 1};
  EXPECT_EQ(Texts(column.Filter(mask)), "(1,'a',[1]) (3,'it\\'s',[2,3])");
  const uint32_t order[] = {2, 2, 1};
  EXPECT_EQ(Texts(column.Take(order, 3)), "(3,'it\\'s',[2,3]) (3,'it\\'s',[2,3]) (2,NULL,[])");
  EXPECT_EQ(Texts(column.Slice(1, 2)), "(2,NULL,[]) (3,'it\\'s',[2,3])");
  Column appended(column.type());
  appended.AppendFrom(column, 1);
  appended.AppendRange(column, 0, 2);
  appended.AppendNull();  // never Nullable: a tuple of defaults stands in
  EXPECT_EQ(Texts(appended), "(2,NULL,[]) (1,'a',[1]) (2,NULL,[]) (0,NULL,[])");
  EXPECT_FALSE(appended.nullable());
  const Column copy = appended;
  EXPECT_EQ(Texts(copy), Texts(appended));
  EXPECT_EQ(copy.Element(0).size(), 4u);
}

}  // namespace
}  // namespace granite::core

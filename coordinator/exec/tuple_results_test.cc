// Select-list tuples: how a SELECT is split into the tuples' elements (aliases, positions,
// ORDER BY / GROUP BY of tuples) and how the result's tuple columns are put back together.
#include "coordinator/exec/tuple_results.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "core/column.h"
#include "core/tuple_type.h"
#include "core/value_text.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {
namespace {

sql::SelectStatement Parse(const std::string& text) {
  absl::StatusOr<sql::Statement> statement = sql::ParseStatement(text);
  EXPECT_TRUE(statement.ok()) << statement.status();
  return std::get<sql::SelectStatement>(*statement);
}

std::string Names(const std::vector<sql::ExprPtr>& items) {
  std::string out;
  for (const sql::ExprPtr& item : items) {
    if (!out.empty()) out += ", ";
    out += sql::ColumnName(*item);
    if (!item->alias.empty()) out += " AS " + item->alias;
  }
  return out;
}

TEST(TupleResultsTest, NoTupleNoSplit) {
  EXPECT_FALSE(SplitSelectTuples(Parse("SELECT a, b FROM t ORDER BY 1")).has_value());
}

TEST(TupleResultsTest, TupleItemsBecomeTheirElements) {
  const std::optional<TupleSplit> split = SplitSelectTuples(
      Parse("SELECT (a, (b, c)) AS t, d, t AS u FROM t WHERE t = (1, (2, 3)) ORDER BY t DESC, 2"));
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(Names(split->select.select),
            "a AS __tuple_0_0, b AS __tuple_0_1, c AS __tuple_0_2, d, a AS __tuple_2_4, "
            "b AS __tuple_2_5, c AS __tuple_2_6");
  ASSERT_EQ(split->outputs.size(), 3u);
  EXPECT_EQ(split->names, (std::vector<std::string>{"t", "d", "u"}));
  EXPECT_TRUE(split->outputs[0].tuple);
  EXPECT_TRUE(split->outputs[0].elements[1].tuple);
  EXPECT_EQ(split->outputs[0].elements[1].elements[1].column, 2u);
  EXPECT_FALSE(split->outputs[1].tuple);
  EXPECT_EQ(split->outputs[1].column, 3u);
  // The alias reads as the tuple in WHERE; ORDER BY a tuple is its elements, and a position
  // still points at its item.
  EXPECT_EQ(sql::ColumnName(*split->select.where), "equals((a, (b, c)), (1, (2, 3)))");
  ASSERT_EQ(split->select.order_by.size(), 4u);
  EXPECT_EQ(sql::ColumnName(*split->select.order_by[0].expr), "a");
  EXPECT_TRUE(split->select.order_by[0].descending);
  EXPECT_EQ(sql::ColumnName(*split->select.order_by[1].expr), "b");
  EXPECT_EQ(sql::ColumnName(*split->select.order_by[2].expr), "c");
  EXPECT_TRUE(split->select.order_by[2].descending);
  EXPECT_EQ(sql::ColumnName(*split->select.order_by[3].expr), "d");
}

TEST(TupleResultsTest, GroupByATupleIsItsElements) {
  const sql::SelectStatement expanded =
      ExpandTupleKeys(Parse("SELECT count() FROM t GROUP BY (a, b), c ORDER BY (a, b)"));
  EXPECT_EQ(Names(expanded.group_by), "a, b, c");
  ASSERT_EQ(expanded.order_by.size(), 2u);
}

TEST(TupleResultsTest, OnlyEmptyTuplesKeepTheRowCount) {
  const std::optional<TupleSplit> split = SplitSelectTuples(Parse("SELECT tuple() FROM t"));
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->select.select.size(), 1u);  // a constant, so the rows still come back
  EXPECT_EQ(split->names[0], "()");
}

TEST(TupleResultsTest, AssemblesTupleColumnsFromTheElements) {
  const std::optional<TupleSplit> split =
      SplitSelectTuples(Parse("SELECT (a, (b, c)) AS t, d FROM t"));
  ASSERT_TRUE(split.has_value());
  using core::TypeId;
  const std::vector<TypeId> flat = {TypeId::kUInt8, TypeId::kString, TypeId::kFloat64,
                                    TypeId::kUInt32};
  absl::StatusOr<std::vector<TypeId>> types = TupleOutputTypes(*split, flat);
  ASSERT_TRUE(types.ok());
  EXPECT_EQ(core::TypeName((*types)[0]), "Tuple(UInt8, Tuple(String, Float64))");
  EXPECT_EQ((*types)[1], TypeId::kUInt32);
  core::Block block;
  auto a = std::make_shared<core::Column>(TypeId::kUInt8);
  auto b = std::make_shared<core::Column>(TypeId::kString);
  auto c = std::make_shared<core::Column>(TypeId::kFloat64);
  auto d = std::make_shared<core::Column>(TypeId::kUInt32);
  for (int i = 0; i < 2; ++i) {
    a->Append<uint8_t>(i);
    b->AppendString(i == 0 ? "x" : "y'z");
    c->Append<double>(i + 0.5);
    d->Append<uint32_t>(10 + i);
  }
  block.columns = {a, b, c, d};
  const core::Block out = *AssembleTuples(*split, *types, block);
  ASSERT_EQ(out.columns.size(), 2u);
  EXPECT_EQ(out.rows(), 2u);
  std::string text;
  core::AppendValueText(*out.columns[0], 1, &text);
  EXPECT_EQ(text, "(1,('y\\'z',1.5))");
  EXPECT_EQ(out.columns[1], d);  // a plain column is passed on as it is
}

// fuzz/query_local: `SELECT (1, 2) AS t, *` without FROM numbered its shapes by the two items,
// and the `*` ran as no column: the tuple's element 1 was read past the one column there was.
TEST(TupleResultsTest, ColumnsOtherThanTheItemsAreAnError) {
  const std::optional<TupleSplit> split = SplitSelectTuples(Parse("SELECT (1, 2) AS t, *"));
  ASSERT_TRUE(split.has_value());
  const std::vector<core::TypeId> flat = {core::TypeId::kUInt8, core::TypeId::kUInt8};
  absl::StatusOr<std::vector<core::TypeId>> types = TupleOutputTypes(*split, flat);
  EXPECT_FALSE(types.ok());
  EXPECT_NE(types.status().message().find("beside *"), std::string_view::npos);
}

}  // namespace
}  // namespace granite::coordinator

#include "storage/key_expression.h"

#include <gtest/gtest.h>

#include "core/date_time.h"
#include "core/error.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

TableSchema Schema() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"id", TypeId::kUInt64}, {"d", TypeId::kDate}, {"s", TypeId::kString},
                    {"t", TypeId::kDateTime}};
  return schema;
}

TEST(KeyExpressionTest, PlainColumnsAndFunctions) {
  auto plain = KeyExpression::Parse("d", Schema());
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->plain_column(), 1);
  EXPECT_EQ((*plain)->source_column(), 1);
  EXPECT_TRUE((*plain)->monotonic());

  auto month = KeyExpression::Parse("toYYYYMM(d)", Schema());
  ASSERT_TRUE(month.ok()) << month.status();
  EXPECT_EQ((*month)->plain_column(), -1);
  EXPECT_EQ((*month)->source_column(), 1);
  EXPECT_EQ((*month)->type(), TypeId::kUInt32);
  EXPECT_TRUE((*month)->monotonic());
  auto value = (*month)->EvaluateAt(uint64_t(core::DaysFromCivil(2013, 7, 15)));
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, core::Value(uint64_t{201307}));

  auto day = KeyExpression::Parse("toDate(t)", Schema());
  ASSERT_TRUE(day.ok()) << day.status();
  EXPECT_EQ((*day)->type(), TypeId::kDate);
  EXPECT_TRUE((*day)->monotonic());

  auto bucket = KeyExpression::Parse("intDiv(id, 100)", Schema());
  ASSERT_TRUE(bucket.ok()) << bucket.status();
  EXPECT_TRUE((*bucket)->monotonic());
  EXPECT_EQ(*(*bucket)->EvaluateAt(uint64_t{12345}), core::Value(uint64_t{123}));

  auto modulo = KeyExpression::Parse("modulo(id, 7)", Schema());
  ASSERT_TRUE(modulo.ok()) << modulo.status();
  EXPECT_FALSE((*modulo)->monotonic());
  auto text_date = KeyExpression::Parse("toDate(s)", Schema());
  ASSERT_TRUE(text_date.ok()) << text_date.status();
  EXPECT_FALSE((*text_date)->monotonic());  // text does not sort like dates
}

TEST(KeyExpressionTest, EvaluatesOverABlock) {
  auto id = std::make_shared<core::Column>(TypeId::kUInt64);
  auto d = std::make_shared<core::Column>(TypeId::kDate);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  auto t = std::make_shared<core::Column>(TypeId::kDateTime);
  id->Append<uint64_t>(1);
  d->Append<uint16_t>(static_cast<uint16_t>(core::DaysFromCivil(2024, 2, 29)));
  s->AppendString("x");
  t->Append<uint32_t>(0);
  auto key = KeyExpression::Parse("toYYYYMM(d)", Schema());
  ASSERT_TRUE(key.ok());
  auto column = (*key)->Evaluate(core::Block{{id, d, s, t}});
  ASSERT_TRUE(column.ok()) << column.status();
  EXPECT_EQ(ValueAt(**column, 0), core::Value(uint64_t{202402}));
}

TEST(KeyExpressionTest, ErrorsNameTheProblem) {
  auto missing = KeyExpression::Parse("toYYYYMM(nope)", Schema());
  EXPECT_EQ(CodeOf(missing.status()), ErrorCode::kUnknownIdentifier);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  EXPECT_EQ(CodeOf(KeyExpression::Parse("noSuchFunction(id)", Schema()).status()),
            ErrorCode::kUnknownFunction);
  auto syntax = KeyExpression::Parse("toYYYYMM(d", Schema());
  EXPECT_EQ(CodeOf(syntax.status()), ErrorCode::kSyntaxError);
  EXPECT_NE(syntax.status().message().find("position 11"), std::string::npos)
      << syntax.status().message();
}

}  // namespace
}  // namespace granite::storage

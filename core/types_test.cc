#include "core/types.h"

#include <gtest/gtest.h>

namespace granite::core {
namespace {

TEST(TypesTest, ParsesClickHouseAndSqlSpellings) {
  EXPECT_EQ(*ParseType("UInt64"), TypeId::kUInt64);
  EXPECT_EQ(*ParseType("BIGINT"), TypeId::kInt64);
  EXPECT_EQ(*ParseType("INTEGER"), TypeId::kInt32);
  EXPECT_EQ(*ParseType("SMALLINT"), TypeId::kInt16);
  EXPECT_EQ(*ParseType("VARCHAR(255)"), TypeId::kString);
  EXPECT_EQ(*ParseType("TEXT"), TypeId::kString);
  EXPECT_EQ(*ParseType("CHAR"), TypeId::kString);
  EXPECT_EQ(*ParseType("TIMESTAMP"), TypeId::kDateTime);
  EXPECT_EQ(*ParseType("Date"), TypeId::kDate);
  EXPECT_FALSE(ParseType("Blob").ok());
}

TEST(TypesTest, NamesRoundTrip) {
  for (int i = 0; i < kTypeCount; ++i) {
    TypeId type = static_cast<TypeId>(i);
    EXPECT_EQ(*ParseType(TypeName(type)), type);
  }
}

}  // namespace
}  // namespace granite::core

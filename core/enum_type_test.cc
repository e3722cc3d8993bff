#include "core/enum_type.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/schema_error_codes.h"
#include "core/table_schema.h"
#include "core/wire/schema_codec.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::core {
namespace {

EnumType Parse(std::string_view text) {
  absl::StatusOr<std::optional<EnumType>> parsed = ParseEnumType(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed.ok() && parsed->has_value()) << text;
  return parsed.ok() && *parsed ? **parsed : EnumType{};
}

ErrorCode CodeOfParse(std::string_view text) { return CodeOf(ParseEnumType(text).status()); }

TEST(EnumTypeTest, PrintsAsClickHouseSortedByValue) {
  const EnumType type = Parse("Enum8('b' = 2, 'a' = 1, 'it''s' = -3)");
  EXPECT_FALSE(type.wide);
  EXPECT_EQ(type.Name(), "Enum8('it\\'s' = -3, 'a' = 1, 'b' = 2)");
  EXPECT_EQ(type.value_type(), TypeId::kInt8);
  EXPECT_EQ(type.default_value(), -3);
  EXPECT_EQ(type.ValueOf("it's"), -3);
  EXPECT_EQ(type.ValueOf("c"), std::nullopt);
  ASSERT_NE(type.NameOf(2), nullptr);
  EXPECT_EQ(*type.NameOf(2), "b");
  EXPECT_EQ(type.NameOf(3), nullptr);
  // The printed name parses back to the same definition.
  EXPECT_EQ(Parse(type.Name()), type);
  EXPECT_EQ(Parse("Enum16( 'x\\tq' = -1000 )").Name(), "Enum16('x\\tq' = -1000)");
}

TEST(EnumTypeTest, EnumWithoutSizeAndAutomaticValues) {
  EXPECT_EQ(Parse("Enum('a' = 1, 'b' = 2)").Name(), "Enum8('a' = 1, 'b' = 2)");
  EXPECT_EQ(Parse("enum('a' = 1, 'b' = 1000)").Name(), "Enum16('a' = 1, 'b' = 1000)");
  EXPECT_EQ(Parse("Enum8('x', 'y')").Name(), "Enum8('x' = 1, 'y' = 2)");
  absl::StatusOr<std::optional<EnumType>> other = ParseEnumType("Int8");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST(EnumTypeTest, DefinitionErrorsAreClickHouses) {
  EXPECT_EQ(CodeOfParse("Enum8('a' = 1, 'a' = 2)"), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOfParse("Enum8('a' = 1, 'b' = 1)"), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOfParse("Enum8('a' = 1, 'b' = 200)"), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOfParse("Enum16('a' = 1, 'b' = 200000)"), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOfParse("Enum8()"), kEmptyDataPassed);
  EXPECT_EQ(CodeOfParse("Enum8('a' = 1, 'b')"), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOfParse("Enum8('a' = x)"), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeOfParse("Enum8('a)"), ErrorCode::kSyntaxError);
}

TEST(EnumTypeTest, ColumnTypesInWrappers) {
  absl::StatusOr<std::optional<EnumColumnType>> nullable =
      ParseEnumColumnType("Nullable(Enum8('a' = 1))");
  ASSERT_TRUE(nullable.ok() && nullable->has_value());
  EXPECT_EQ((*nullable)->type, MakeNullable(TypeId::kInt8));
  EXPECT_EQ(EnumColumnTypeName((*nullable)->type, (*nullable)->enum_type),
            "Nullable(Enum8('a' = 1))");
  absl::StatusOr<std::optional<EnumColumnType>> array =
      ParseEnumColumnType("Array(Array(Enum16('a' = 1)))");
  ASSERT_TRUE(array.ok() && array->has_value());
  EXPECT_EQ((*array)->type, MakeArray(MakeArray(TypeId::kInt16)));
  EXPECT_EQ(EnumColumnTypeName((*array)->type, (*array)->enum_type),
            "Array(Array(Enum16('a' = 1)))");
  EXPECT_EQ(EnumTextType((*array)->type), MakeArray(MakeArray(TypeId::kString)));
  absl::StatusOr<std::optional<EnumColumnType>> plain = ParseEnumColumnType("Array(String)");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->has_value());
}

TEST(EnumTypeTest, ValuesOfNamesAndNumbers) {
  const EnumType type = Parse("Enum8('a' = 1, 'b' = 2)");
  Column text(MakeNullable(TypeId::kString));
  text.AppendString("b");
  text.AppendNull();
  text.AppendString("1");
  absl::StatusOr<ColumnPtr> values = EnumValuesOf(text, MakeNullable(TypeId::kInt8), type);
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_EQ((*values)->size(), 3u);
  EXPECT_EQ((*values)->Get<int8_t>(0), 2);
  EXPECT_TRUE((*values)->IsNullAt(1));
  EXPECT_EQ((*values)->Get<int8_t>(2), 1);

  Column bad(TypeId::kString);
  bad.AppendString("a");
  bad.AppendString("zz");
  absl::StatusOr<ColumnPtr> unknown = EnumValuesOf(bad, TypeId::kInt8, type);
  EXPECT_EQ(CodeOf(unknown.status()), kUnknownElementOfEnum);
  EXPECT_NE(unknown.status().message().find("'zz'"), std::string_view::npos);
  Column number(TypeId::kString);
  number.AppendString("5");
  EXPECT_EQ(CodeOf(EnumValuesOf(number, TypeId::kInt8, type).status()), kUnknownElementOfEnum);
}

TEST(EnumTypeTest, ColumnSchemaParsesPrintsAndCrossesTheWire) {
  std::optional<EnumType> enum_type;
  absl::StatusOr<TypeId> type = ParseColumnType("Nullable(Enum16('p' = 7, 'q' = -7))", &enum_type);
  ASSERT_TRUE(type.ok()) << type.status();
  ASSERT_TRUE(enum_type.has_value());
  TableSchema schema;
  schema.name = "t";
  schema.columns.push_back({"e", *type});
  schema.columns.back().enum_type = enum_type;
  EXPECT_EQ(schema.columns[0].DeclaredTypeName(), "Nullable(Enum16('q' = -7, 'p' = 7))");
  granite::worker::v1::TableSchema proto;
  wire::ToProto(schema, &proto);
  EXPECT_EQ(wire::FromProto(proto), schema);
  // A plain type resets the definition (ALTER MODIFY COLUMN e String).
  type = ParseColumnType("String", &enum_type);
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type, TypeId::kString);
  EXPECT_FALSE(enum_type.has_value());
}

}  // namespace
}  // namespace granite::core

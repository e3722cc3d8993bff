#include "storage/table_schema.h"

#include <cstring>

#include <gtest/gtest.h>

#include "core/enum_type.h"
#include "core/error.h"
#include "storage/coding.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

TableSchema FullSchema() {
  TableSchema schema;
  schema.name = "hits/with odd name";
  schema.columns = {{"CounterID", TypeId::kUInt32},
                    {"EventDate", TypeId::kDate},
                    {"URL", TypeId::kString},
                    {"", TypeId::kFloat64}};
  schema.columns[3].name = "weird \"col\"\n";
  schema.order_by = {"CounterID", "EventDate", "intHash32(UserID)"};
  schema.primary_key = {"CounterID"};
  schema.partition_by = "toYYYYMM(EventDate)";
  schema.engine = "MergeTree";
  schema.settings = {{"index_granularity", "8192"}, {"other", ""}};
  schema.sharding_key = {"CounterID", "URL"};
  schema.shard_count = 3;
  return schema;
}

TEST(TableSchemaTest, EncodeDecodeRoundTrip) {
  TableSchema schema = FullSchema();
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(EncodeTableSchema(schema));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  EXPECT_EQ(decoded->ColumnIndex("URL"), 2);
  EXPECT_EQ(decoded->ColumnIndex("url"), -1);
}

TEST(TableSchemaTest, DecodesVersionOneWithoutShardingKey) {
  TableSchema schema = FullSchema();
  schema.sharding_key.clear();
  schema.shard_count = 0;
  // A version-1 file is a version-7 one without the compound columns' count (4 bytes), the
  // trailing sharding fields (an empty list and a
  // zero count: 8 bytes), column codecs (an empty string per column: 4 bytes each), column
  // defaults (a kind and two empty strings per column: 12 bytes each), LowCardinality flags
  // (a byte per column) and enum definitions (an empty string per column: 4 bytes each), and
  // with version 1 in the header.
  const std::string sealed = EncodeTableSchema(schema);
  absl::StatusOr<std::string_view> body = Unseal(sealed, "test");
  ASSERT_TRUE(body.ok());
  std::string v1(body->substr(0, body->size() - 4 - 8 - 21 * schema.columns.size()));
  uint32_t version = 1;
  std::memcpy(v1.data() + 8, &version, sizeof(version));
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(Seal(v1));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  version = 7;
  std::memcpy(v1.data() + 8, &version, sizeof(version));
  EXPECT_EQ(CodeOf(DecodeTableSchema(Seal(v1)).status()), ErrorCode::kCorruptedData);
}

TEST(TableSchemaTest, RoundTripsLowCardinalityFlagsAndReadsVersionFour) {
  TableSchema schema = FullSchema();
  schema.columns[2].low_cardinality = true;
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(EncodeTableSchema(schema));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  EXPECT_EQ(decoded->columns[2].DeclaredTypeName(), "LowCardinality(String)");
  // A version-4 file has no flags: every column reads as declared without LowCardinality.
  const std::string sealed = EncodeTableSchema(schema);  // the body below points into it
  absl::StatusOr<std::string_view> body = Unseal(sealed, "test");
  ASSERT_TRUE(body.ok());
  std::string v4(body->substr(0, body->size() - 4 - 5 * schema.columns.size()));
  uint32_t version = 4;
  std::memcpy(v4.data() + 8, &version, sizeof(version));
  decoded = DecodeTableSchema(Seal(v4));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_FALSE(decoded->columns[2].low_cardinality);
  // A flag byte that is neither 0 nor 1 is corrupt.
  std::string bad(*body);
  bad[bad.size() - 4 - 1 - 4 * schema.columns.size()] = 2;  // the last flag, before the enums
  EXPECT_EQ(CodeOf(DecodeTableSchema(Seal(bad)).status()), ErrorCode::kCorruptedData);
}

TEST(TableSchemaTest, RoundTripsEnumDefinitionsAndReadsVersionFive) {
  TableSchema schema = FullSchema();
  schema.columns.push_back({"e", TypeId::kInt8});
  schema.columns.back().enum_type =
      **core::ParseEnumType("Enum8('b' = 2, 'it''s' = -3, 'a\\\\b' = 1)");
  schema.columns.push_back({"w", core::MakeArray(core::MakeNullable(TypeId::kInt16))});
  schema.columns.back().enum_type = **core::ParseEnumType("Enum16('x' = 1000)");
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(EncodeTableSchema(schema));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  EXPECT_EQ(decoded->columns[4].DeclaredTypeName(),
            "Enum8('it\\'s' = -3, 'a\\\\b' = 1, 'b' = 2)");
  EXPECT_EQ(decoded->columns[5].DeclaredTypeName(), "Array(Nullable(Enum16('x' = 1000)))");
  // A version-5 file has no definitions: the columns read as their values.
  const std::string sealed = EncodeTableSchema(schema);
  absl::StatusOr<std::string_view> body = Unseal(sealed, "test");
  ASSERT_TRUE(body.ok());
  // (and the version-7 count of compound columns, 4 bytes, after them)
  const size_t definitions = 4 * schema.columns.size() + schema.columns[4].enum_type->Name().size() +
                             schema.columns[5].enum_type->Name().size() + 4;
  std::string v5(body->substr(0, body->size() - definitions));
  uint32_t version = 5;
  std::memcpy(v5.data() + 8, &version, sizeof(version));
  decoded = DecodeTableSchema(Seal(v5));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_FALSE(decoded->columns[4].enum_type.has_value());
  EXPECT_EQ(decoded->columns[4].DeclaredTypeName(), "Int8");
  // A definition that does not parse is corrupt: Enum16('x' + 1000).
  std::string bad(*body);
  bad[bad.rfind('=')] = '+';
  EXPECT_EQ(CodeOf(DecodeTableSchema(Seal(bad)).status()), ErrorCode::kCorruptedData);
}

TEST(TableSchemaTest, RoundTripsCompoundColumnsAndReadsVersionSix) {
  TableSchema schema = FullSchema();
  schema.columns.push_back({"t.a", TypeId::kUInt8});
  schema.columns.push_back({"t.b", TypeId::kString});
  schema.columns.push_back({"m.keys", core::MakeArray(TypeId::kString)});
  schema.columns.push_back({"m.values", core::MakeArray(TypeId::kUInt64)});
  schema.compound_columns = {{"t", "Tuple(a UInt8, b String)"}, {"m", "Map(String, UInt64)"}};
  const std::string sealed = EncodeTableSchema(schema);
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(sealed);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  std::vector<core::DeclaredColumn> declared = core::DeclaredColumns(*decoded);
  ASSERT_EQ(declared.size(), 6u);
  EXPECT_EQ(declared[4].column.name, "t");
  EXPECT_EQ(declared[4].column.DeclaredTypeName(), "Tuple(a UInt8, b String)");
  EXPECT_EQ(declared[4].first, 4u);
  EXPECT_EQ(declared[4].count, 2u);
  EXPECT_EQ(declared[5].column.DeclaredTypeName(), "Map(String, UInt64)");
  EXPECT_EQ(declared[5].first, 6u);
  // A version-6 file has no compound columns: the subcolumns read as plain columns.
  absl::StatusOr<std::string_view> body = Unseal(sealed, "test");
  ASSERT_TRUE(body.ok());
  const size_t compounds = 4 + (4 + 1 + 4 + 24) + (4 + 1 + 4 + 19);
  std::string v6(body->substr(0, body->size() - compounds));
  uint32_t version = 6;
  std::memcpy(v6.data() + 8, &version, sizeof(version));
  decoded = DecodeTableSchema(Seal(v6));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->compound_columns.empty());
  EXPECT_EQ(core::DeclaredColumns(*decoded).size(), 8u);
  // More compound columns than columns is corrupt.
  std::string bad(*body);
  bad[body->size() - compounds] = 100;
  EXPECT_EQ(CodeOf(DecodeTableSchema(Seal(bad)).status()), ErrorCode::kCorruptedData);
}

TEST(TableSchemaTest, RoundTripsColumnDefaultsAndComments) {
  TableSchema schema = FullSchema();
  schema.columns[1].default_kind = core::DefaultKind::kDefault;
  schema.columns[1].default_expression = "today()";
  schema.columns[2].default_kind = core::DefaultKind::kMaterialized;
  schema.columns[2].default_expression = "toString(CounterID)";
  schema.columns[3].default_kind = core::DefaultKind::kAlias;
  schema.columns[3].default_expression = "CounterID * 2";
  schema.columns[3].comment = "twice the counter";
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(EncodeTableSchema(schema));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  TableSchema stored = decoded->Stored();
  ASSERT_EQ(stored.columns.size(), 3u);
  EXPECT_EQ(stored.columns[2].name, "URL");
}

TEST(TableSchemaTest, DecodesVersionThreeWithoutDefaults) {
  // A version-3 file (codecs, no defaults) is a version-7 one without the compound columns'
  // count (4 bytes), the 12 bytes of defaults,
  // the LowCardinality byte and the 4 bytes of an empty enum definition per column.
  TableSchema schema = FullSchema();
  schema.columns[0].codec = "Delta(4), ZSTD(1)";
  const std::string sealed = EncodeTableSchema(schema);
  absl::StatusOr<std::string_view> body = Unseal(sealed, "test");
  ASSERT_TRUE(body.ok());
  std::string v3(body->substr(0, body->size() - 4 - 17 * schema.columns.size()));
  uint32_t version = 3;
  std::memcpy(v3.data() + 8, &version, sizeof(version));
  absl::StatusOr<TableSchema> decoded = DecodeTableSchema(Seal(v3));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, schema);
  for (const auto& column : decoded->columns) {
    EXPECT_EQ(column.default_kind, core::DefaultKind::kNone);
  }
}

TEST(TableSchemaTest, DecodeRejectsEveryFlippedByteAndTruncation) {
  std::string bytes = EncodeTableSchema(FullSchema());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x20;
    EXPECT_EQ(CodeOf(DecodeTableSchema(damaged).status()), ErrorCode::kCorruptedData) << i;
  }
  for (size_t n : {size_t{0}, size_t{7}, bytes.size() - 1}) {
    EXPECT_EQ(CodeOf(DecodeTableSchema(bytes.substr(0, n)).status()), ErrorCode::kCorruptedData);
  }
}

TEST(TableSchemaTest, ValidateReportsClickHouseCodes) {
  TableSchema schema = FullSchema();
  EXPECT_TRUE(ValidateTableSchema(schema).ok());

  TableSchema no_columns = schema;
  no_columns.columns.clear();
  EXPECT_EQ(CodeOf(ValidateTableSchema(no_columns)), ErrorCode::kEmptyListOfColumnsPassed);

  TableSchema duplicate = schema;
  duplicate.columns.push_back({"URL", TypeId::kUInt8});
  absl::Status status = ValidateTableSchema(duplicate);
  EXPECT_EQ(CodeOf(status), ErrorCode::kDuplicateColumn);
  EXPECT_NE(status.message().find("URL"), std::string::npos);

  TableSchema bad_sharding_key = schema;
  bad_sharding_key.sharding_key = {"CounterID", "NoSuchColumn"};
  status = ValidateTableSchema(bad_sharding_key);
  EXPECT_EQ(CodeOf(status), ErrorCode::kUnknownIdentifier);
  EXPECT_NE(status.message().find("NoSuchColumn"), std::string::npos) << status;

  TableSchema bad_type = schema;
  bad_type.columns[0].type = static_cast<TypeId>(200);
  EXPECT_EQ(CodeOf(ValidateTableSchema(bad_type)), ErrorCode::kUnknownType);

  for (const char* value : {"0", "abc", "99999999"}) {
    TableSchema bad_setting = schema;
    bad_setting.settings["index_granularity"] = value;
    EXPECT_EQ(CodeOf(ValidateTableSchema(bad_setting)), ErrorCode::kBadArguments) << value;
  }
  TableSchema unnamed = schema;
  unnamed.name.clear();
  EXPECT_EQ(CodeOf(ValidateTableSchema(unnamed)), ErrorCode::kBadArguments);
}

TEST(TableSchemaTest, GranuleRowsComeFromIndexGranularity) {
  TableSchema schema = FullSchema();
  schema.settings.clear();
  EXPECT_EQ(GranuleRowsOf(schema), kDefaultGranuleRows);
  schema.settings["index_granularity"] = "100";
  EXPECT_EQ(GranuleRowsOf(schema), 100u);
}

}  // namespace
}  // namespace granite::storage

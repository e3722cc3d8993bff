// The pieces of the Parquet writer: Thrift's compact protocol, the levels and values of a column
// chunk, and the file's frame. pyarrow's and ClickHouse's reading of whole files is checked by
// tests/integration/arrow_formats_test.py.
#include "coordinator/formats/parquet_output.h"

#include <gtest/gtest.h>

#include <cstring>

#include "coordinator/formats/input_parser.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

TEST(ParquetOutputTest, ThriftCompactFieldsAndLists) {
  std::string out;
  ThriftCompactWriter thrift(&out);
  thrift.FieldI32(1, 2);        // delta 1, i32: zigzag(2) = 4
  thrift.FieldBinary(4, "ab");  // delta 3, binary
  thrift.FieldI64(20, -1);      // delta 16: type byte, then zigzag id 40, zigzag(-1) = 1
  thrift.BeginList(21, ThriftCompactWriter::kI32, 2);
  thrift.ListI32(-2);
  thrift.ListI32(3);
  thrift.BeginStruct(22);
  thrift.FieldBool(1, true);
  thrift.FieldBool(2, false);
  thrift.EndStruct();
  thrift.Finish();
  EXPECT_EQ(out, std::string("\x15\x04" "\x38\x02" "ab" "\x06\x28\x01" "\x19\x25\x03\x06"
                             "\x1c" "\x11\x12\x00" "\x00",
                             18));
}

// Returns the rows of `tsv` parsed as one column of `type`.
core::Column ColumnOf(std::string_view type_name, std::string_view tsv) {
  const TypeId type = *core::ParseType(type_name);
  absl::StatusOr<core::Block> block = ParseInput("TSV", tsv, {"c"}, {type});
  EXPECT_TRUE(block.ok()) << block.status();
  return *block->columns[0];
}

TEST(ParquetOutputTest, ListLevelsAndValues) {
  const TypeId type = *core::ParseType("Array(Nullable(String))");
  const ParquetLeafType leaf = ParquetLeafOf(type, true);
  EXPECT_EQ(leaf.max_repetition, 1);
  EXPECT_EQ(leaf.max_definition, 2);
  const ParquetColumnData data =
      EncodeParquetColumn(ColumnOf("Array(Nullable(String))", "['x',NULL]\n[]\n"), leaf);
  EXPECT_EQ(data.num_values, 3);
  // Repetition 0 1 0 and definition 2 1 0, each as RLE runs of one after a 4-byte length.
  EXPECT_EQ(data.levels, std::string("\x06\0\0\0" "\x02\x00\x02\x01\x02\x00"
                                     "\x06\0\0\0" "\x02\x02\x02\x01\x02\x00",
                                     20));
  EXPECT_EQ(data.values, std::string("\x01\0\0\0x", 5));
}

TEST(ParquetOutputTest, RequiredScalarsHaveNoLevels) {
  const ParquetLeafType decimal = ParquetLeafOf(*core::ParseType("Decimal(9, 2)"), true);
  EXPECT_EQ(decimal.physical, ParquetPhysical::kFixedLenByteArray);
  EXPECT_EQ(decimal.type_length, 4);
  const ParquetColumnData data = EncodeParquetColumn(ColumnOf("Decimal(9, 2)", "-1.5\n"), decimal);
  EXPECT_TRUE(data.levels.empty());
  EXPECT_EQ(data.values, std::string("\xff\xff\xff\x6a", 4));  // -150 big-endian
  const ParquetLeafType flag = ParquetLeafOf(TypeId::kBool, true);
  EXPECT_EQ(flag.physical, ParquetPhysical::kBoolean);
  EXPECT_EQ(EncodeParquetColumn(ColumnOf("Bool", "true\nfalse\ntrue\n"), flag).values, "\x05");
}

TEST(ParquetOutputTest, FileFramesRowGroupsAndFooter) {
  ParquetWriteOptions options;
  options.row_group_rows = 2;
  ParquetOutput output(options);
  const std::vector<std::string> names = {"n"};
  const std::vector<TypeId> types = {TypeId::kUInt64};
  ASSERT_TRUE(output.Accepts(names, types).ok());
  std::string out;
  output.Begin(names, types, &out);
  absl::StatusOr<core::Block> block = ParseInput("TSV", "1\n2\n3\n", names, types);
  ASSERT_TRUE(block.ok());
  output.Write(*block, &out);
  output.End(&out);
  EXPECT_EQ(out.substr(0, 4), "PAR1");
  EXPECT_EQ(out.substr(out.size() - 4), "PAR1");
  uint32_t footer = 0;
  std::memcpy(&footer, out.data() + out.size() - 8, 4);
  ASSERT_LT(footer, out.size());
  EXPECT_NE(out.find("granite", out.size() - 8 - footer), std::string::npos);  // created_by
}

TEST(ParquetOutputTest, NothingIsUnknownType) {
  ParquetOutput output{ParquetWriteOptions{}};
  absl::Status status =
      output.Accepts({"x", "nn"}, {TypeId::kUInt8, core::MakeNullable(TypeId::kNothing)});
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kUnknownType);
  EXPECT_NE(status.message().find("column 'nn'"), std::string::npos);
}

}  // namespace
}  // namespace granite::coordinator

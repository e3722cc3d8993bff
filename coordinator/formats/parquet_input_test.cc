// The pieces of the Parquet reader: the RLE / bit-packed hybrid, DELTA_BINARY_PACKED, Thrift's
// compact protocol read back, and whole files written by granite's Parquet output read back
// (every prefix of a file refused cleanly). Files from pyarrow, ClickHouse and DuckDB are checked
// by tests/integration/parquet_input_test.py.
#include "coordinator/formats/parquet_input.h"

#include <gtest/gtest.h>

#include "coordinator/formats/input_parser.h"
#include "coordinator/formats/parquet_output.h"
#include "coordinator/formats/parquet_values.h"
#include "coordinator/formats/thrift_compact_reader.h"
#include "core/error.h"
#include "core/value_text.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

TEST(ParquetInputTest, RleRunsAndBitPackedGroups) {
  // An RLE run of five 3s (header 5 << 1, one value byte), then one bit-packed group of eight
  // 2-bit values 0 1 2 3 0 1 2 3 (header 1 << 1 | 1; LSB first: 0b11100100 twice).
  const std::string data("\x0a\x03" "\x03\xe4\xe4", 5);
  ParquetRleDecoder decoder(data, 2);
  uint32_t values[13];
  ASSERT_TRUE(decoder.Decode(13, values).ok());
  const uint32_t want[13] = {3, 3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3};
  for (int i = 0; i < 13; ++i) EXPECT_EQ(values[i], want[i]) << i;
  // Past the data: an error, not a read past the end.
  EXPECT_EQ(core::CodeOf(decoder.Decode(1, values)), core::ErrorCode::kIncorrectData);
  ParquetRleDecoder cut(std::string_view("\x03\xe4", 2), 2);  // a group needs 2 bytes
  EXPECT_EQ(core::CodeOf(cut.Decode(8, values)), core::ErrorCode::kIncorrectData);
}

TEST(ParquetInputTest, DeltaBinaryPacked) {
  // The format's own example, 1 2 3 4 5: block 128, 4 miniblocks, 5 values, first 1 (zigzag 2);
  // one block: min delta 1 (zigzag 2), every bit width 0, so no miniblock bytes.
  const std::string data("\x80\x01\x04\x05\x02" "\x02\x00\x00\x00\x00", 10);
  size_t pos = 0;
  std::vector<int64_t> out;
  ASSERT_TRUE(DecodeDeltaBinaryPacked(data, &pos, 5, &out).ok());
  EXPECT_EQ(out, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(pos, data.size());
  // A header claiming more values than the page holds is refused before anything is allocated.
  pos = 0;
  out.clear();
  EXPECT_EQ(core::CodeOf(DecodeDeltaBinaryPacked(data, &pos, 4, &out)),
            core::ErrorCode::kIncorrectData);
}

TEST(ParquetInputTest, ThriftReaderSkipsUnknownFields) {
  std::string bytes;
  ThriftCompactWriter writer(&bytes);
  writer.FieldI32(1, -7);
  writer.BeginStruct(2);  // an unknown nested struct
  writer.FieldBinary(1, "skip me");
  writer.BeginList(2, ThriftCompactWriter::kI32, 20);
  for (int i = 0; i < 20; ++i) writer.ListI32(i);
  writer.EndStruct();
  writer.FieldI64(30, int64_t{1} << 40);
  writer.Finish();
  ThriftCompactReader reader(bytes);
  int16_t id;
  uint8_t type;
  ASSERT_TRUE(*reader.NextField(&id, &type));
  EXPECT_EQ(id, 1);
  EXPECT_EQ(*reader.ReadInt(type), -7);
  ASSERT_TRUE(*reader.NextField(&id, &type));
  ASSERT_TRUE(reader.Skip(type).ok());
  ASSERT_TRUE(*reader.NextField(&id, &type));
  EXPECT_EQ(id, 30);
  EXPECT_EQ(*reader.ReadInt(type), int64_t{1} << 40);
  EXPECT_FALSE(*reader.NextField(&id, &type));
  EXPECT_EQ(reader.position(), bytes.size());
  // Every truncation is an error.
  for (size_t n = 0; n < bytes.size(); ++n) {
    ThriftCompactReader cut(std::string_view(bytes).substr(0, n));
    absl::Status status = cut.Skip(ThriftCompactReader::kStruct);
    EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kIncorrectData) << n;
  }
}

// Writes `tsv` (columns `names` of `types`) as a Parquet file with granite's output.
std::string ParquetOf(const std::vector<std::string>& names, const std::vector<TypeId>& types,
                      std::string_view tsv, uint64_t row_group_rows) {
  ParquetWriteOptions options;
  options.row_group_rows = row_group_rows;
  ParquetOutput output(options);
  std::string out;
  output.Begin(names, types, &out);
  absl::StatusOr<core::Block> block = ParseInput("TSV", tsv, names, types);
  EXPECT_TRUE(block.ok()) << block.status();
  output.Write(*block, &out);
  output.End(&out);
  return out;
}

std::string TsvOf(const core::Block& block) {
  std::string out;
  for (size_t r = 0; r < block.rows(); ++r) {
    for (size_t c = 0; c < block.columns.size(); ++c) {
      if (c > 0) out += '\t';
      if (block.columns[c]->IsNullAt(r)) {
        out += "\\N";
      } else {
        core::AppendValueText(*block.columns[c], r, &out);
      }
    }
    out += '\n';
  }
  return out;
}

TEST(ParquetInputTest, ReadsGraniteOutputBack) {
  const std::vector<std::string> names = {"n", "s", "a", "d"};
  const std::vector<TypeId> types = {TypeId::kInt64, *core::ParseType("Nullable(String)"),
                                     *core::ParseType("Array(Array(Nullable(Int32)))"),
                                     *core::ParseType("Decimal(20, 3)")};
  const std::string tsv =
      "-5\t\\N\t[]\t1.5\n"
      "9223372036854775807\tx\t[[1,NULL],[]]\t-0.001\n"
      "0\t\t[[],[3]]\t99999999999999999.999\n";
  for (uint64_t row_group_rows : {1, 2, 100}) {
    const std::string file = ParquetOf(names, types, tsv, row_group_rows);
    absl::StatusOr<core::Block> back = ParseInput("Parquet", file, names, types);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(TsvOf(*back), tsv) << row_group_rows;
    // Any prefix of the file is refused, never read past.
    for (size_t n = 0; n < file.size(); n += 7) {
      absl::StatusOr<core::Block> cut =
          ParseInput("Parquet", std::string_view(file).substr(0, n), names, types);
      EXPECT_FALSE(cut.ok()) << n;
    }
  }
}

TEST(ParquetInputTest, MapsColumnsByName) {
  const std::string file =
      ParquetOf({"b", "x"}, {TypeId::kString, TypeId::kUInt8}, "p\t1\nq\t2\n", 100);
  // "x" is not in the table (skipped); "a" is not in the file (omitted: its DEFAULT).
  InputParser parser =
      *InputParser::Create("Parquet", {"a", "b"}, {TypeId::kInt32, TypeId::kString});
  size_t consumed = 0;
  absl::StatusOr<core::Block> first = parser.Parse(file, /*last=*/false, InputLimits{}, &consumed);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(consumed, 0u);  // nothing is read before the whole file is there
  EXPECT_EQ(first->rows(), 0u);
  absl::StatusOr<core::Block> block = parser.Parse(file, /*last=*/true, InputLimits{}, &consumed);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(consumed, file.size());
  EXPECT_EQ(TsvOf(*block), "0\tp\n0\tq\n");
  EXPECT_EQ(parser.omitted()[0], (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(parser.omitted()[1].empty());
}

}  // namespace
}  // namespace granite::coordinator

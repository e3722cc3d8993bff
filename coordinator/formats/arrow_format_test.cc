// Round trips through the Arrow writer (arrow_output.h) and reader (arrow_input.h), and the
// reader's answers to malformed and unsupported input. pyarrow's and ClickHouse's view of the
// same bytes is checked by tests/integration/arrow_formats_test.py.
#include <gtest/gtest.h>

#include <cstring>

#include "coordinator/formats/arrow_compression.h"
#include "coordinator/formats/arrow_format_generated.h"
#include "coordinator/formats/input_parser.h"
#include "coordinator/formats/output_format.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

struct Table {
  std::vector<std::string> names;
  std::vector<TypeId> types;
  core::Block block;
};

// Every granite type, NULLs and arrays included, parsed from TSV.
Table EveryType() {
  Table table;
  const std::vector<std::pair<std::string, std::string>> columns = {
      {"u8", "UInt8"}, {"u64", "UInt64"}, {"i16", "Int16"}, {"i64", "Int64"},
      {"f32", "Float32"}, {"f64", "Float64"}, {"s", "String"}, {"fs", "FixedString(3)"},
      {"d", "Date"}, {"dt", "DateTime"}, {"t3", "DateTime64(3)"},
      {"t7", "DateTime64(7, 'Europe/Moscow')"}, {"d9", "Decimal(9, 2)"},
      {"d18", "Decimal(18, 4)"}, {"d38", "Decimal(38, 10)"}, {"b", "Bool"}, {"u", "UUID"},
      {"ni", "Nullable(Int32)"}, {"ns", "Nullable(String)"}, {"a", "Array(UInt8)"},
      {"aa", "Array(Array(Int64))"}, {"an", "Array(Nullable(String))"}};
  for (const auto& [name, type] : columns) {
    table.names.push_back(name);
    table.types.push_back(*core::ParseType(type));
  }
  const std::string tsv =
      "255\t18446744073709551615\t-32768\t-9223372036854775808\t1.5\t-2.25\tabc\tab\\0\t"
      "2020-01-02\t2020-01-02 03:04:05\t2020-01-02 03:04:05.123\t2020-01-02 03:04:05.1234567\t"
      "-1.5\t2.5\t-12345678901234567890.0123456789\ttrue\t61f0c404-5cb3-11e7-907b-a6006ad3dba0\t"
      "5\t\\N\t[1,2,3]\t[[1],[2,3],[]]\t['x',NULL]\n"
      "0\t0\t0\t0\t0\t0\t\txyz\t1970-01-01\t1970-01-01 00:00:00\t1970-01-01 00:00:00.000\t"
      "1970-01-01 03:00:00.0000000\t0\t0\t0\tfalse\t00000000-0000-0000-0000-000000000000\t"
      "\\N\tlong string value\t[]\t[]\t[]\n";
  absl::StatusOr<core::Block> block = ParseInput("TSV", tsv, table.names, table.types);
  EXPECT_TRUE(block.ok()) << block.status();
  table.block = *block;
  return table;
}

std::string Write(std::string_view format, const Table& table, const OutputOptions& options = {}) {
  auto output = MakeOutputFormat(format, options);
  EXPECT_TRUE(output.ok()) << output.status();
  std::string out;
  (*output)->Begin(table.names, table.types, &out);
  // One record batch per row: the reader must join batches.
  for (size_t row = 0; row < table.block.rows(); ++row) {
    core::Block one;
    for (const auto& column : table.block.columns) {
      one.columns.push_back(std::make_shared<core::Column>(column->Slice(row, 1)));
    }
    (*output)->Write(one, &out);
  }
  (*output)->End(&out);
  return out;
}

std::string Tsv(const Table& table, const core::Block& block) {
  auto output = MakeOutputFormat("TSV");
  std::string out;
  (*output)->Begin(table.names, table.types, &out);
  (*output)->Write(block, &out);
  (*output)->End(&out);
  return out;
}

// Writes `table` in `format` with `options`, reads it back and compares the rows as TSV.
void ExpectRoundTrip(std::string_view format, const Table& table,
                     const OutputOptions& options = {}) {
  const std::string bytes = Write(format, table, options);
  absl::StatusOr<core::Block> back = ParseInput(format, bytes, table.names, table.types);
  ASSERT_TRUE(back.ok()) << format << ": " << back.status();
  EXPECT_EQ(Tsv(table, *back), Tsv(table, table.block)) << format;
}

TEST(ArrowFormatTest, StreamAndFileRoundTripEveryType) {
  const Table table = EveryType();
  ExpectRoundTrip("ArrowStream", table);
  ExpectRoundTrip("Arrow", table);
}

TEST(ArrowFormatTest, FileFramesTheStream) {
  const Table table = EveryType();
  const std::string file = Write("Arrow", table);
  const std::string stream = Write("ArrowStream", table);
  EXPECT_EQ(file.substr(0, 8), std::string("ARROW1\0\0", 8));
  EXPECT_EQ(file.substr(file.size() - 6), "ARROW1");
  EXPECT_EQ(file.substr(8, stream.size()), stream);  // the stream, end marker included
  EXPECT_EQ(stream.substr(stream.size() - 8), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
  EXPECT_EQ(stream.size() % 8, 0u);
}

TEST(ArrowFormatTest, CompressedBuffersRoundTrip) {
  const Table table = EveryType();
  for (auto codec : {ArrowWriteOptions::Codec::kLz4Frame, ArrowWriteOptions::Codec::kZstd}) {
    OutputOptions options;
    options.arrow.codec = codec;
    ExpectRoundTrip("ArrowStream", table, options);
  }
}

// A buffer's claimed uncompressed length is the sender's word: a claim the bytes cannot fill is
// CANNOT_DECOMPRESS, and output is sized by what decompresses (a few bytes claiming gigabytes
// allocated them before, past the fuzzers' 2 GB limit).
TEST(ArrowFormatTest, CompressedBufferLengthsAreChecked) {
  const std::string bytes(5 << 20, 'x');  // past the first zstd output size: the output grows
  for (auto codec : {ArrowWriteOptions::Codec::kLz4Frame, ArrowWriteOptions::Codec::kZstd}) {
    std::string buffer;
    AppendCompressedArrowBuffer(codec, bytes, &buffer);
    ASSERT_LT(buffer.size(), bytes.size());
    absl::StatusOr<std::string> plain = DecompressArrowBuffer(codec, buffer);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(*plain, bytes);
    for (const int64_t claim : {int64_t{3} << 30, int64_t{5 << 20} + 1, int64_t{5 << 20} - 1}) {
      std::string lying = buffer;
      std::memcpy(lying.data(), &claim, sizeof(claim));
      absl::StatusOr<std::string> refused = DecompressArrowBuffer(codec, lying);
      EXPECT_EQ(core::CodeOf(refused.status()), core::ErrorCode::kCannotDecompress) << claim;
    }
    std::string cut = buffer.substr(0, buffer.size() - 4);
    EXPECT_EQ(core::CodeOf(DecompressArrowBuffer(codec, cut).status()),
              core::ErrorCode::kCannotDecompress);
  }
}

TEST(ArrowFormatTest, BinaryStringsAndFixedStringsAsBinaryRoundTrip) {
  OutputOptions options;
  options.arrow.string_as_string = false;
  options.arrow.fixed_string_as_fixed_binary = false;
  ExpectRoundTrip("Arrow", EveryType(), options);
}

TEST(ArrowFormatTest, ChunkedInputWaitsForWholeMessages) {
  const Table table = EveryType();
  const std::string bytes = Write("Arrow", table);
  absl::StatusOr<InputParser> parser = InputParser::Create("Arrow", table.names, table.types);
  ASSERT_TRUE(parser.ok());
  // Feed 7 bytes more each time, passing back what was not consumed.
  std::string pending;
  std::vector<core::Block> blocks;
  for (size_t at = 0; at < bytes.size(); at += 7) {
    pending += bytes.substr(at, 7);
    const bool last = at + 7 >= bytes.size();
    size_t consumed = 0;
    absl::StatusOr<core::Block> block = parser->Parse(pending, last, InputLimits{}, &consumed);
    ASSERT_TRUE(block.ok()) << block.status();
    if (block->rows() > 0) blocks.push_back(*block);
    pending.erase(0, consumed);
  }
  EXPECT_TRUE(pending.empty());
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(parser->rows(), 2u);
}

TEST(ArrowFormatTest, ColumnsMapByNameAndConvert) {
  const Table table = EveryType();
  const std::string bytes = Write("ArrowStream", table);
  // Other types than written (CAST rules), a column the data lacks, columns skipped.
  const std::vector<std::string> names = {"missing", "i16", "s", "t7", "ni"};
  const std::vector<TypeId> types = {TypeId::kUInt32, TypeId::kInt64, *core::ParseType("String"),
                                     *core::ParseType("DateTime64(3)"), TypeId::kInt32};
  absl::StatusOr<core::Block> back = ParseInput("ArrowStream", bytes, names, types);
  ASSERT_TRUE(back.ok()) << back.status();
  Table shape{names, types, {}};
  EXPECT_EQ(Tsv(shape, *back),
            "0\t-32768\tabc\t2020-01-02 00:04:05.123\t5\n"
            "0\t0\t\t1970-01-01 00:00:00.000\t0\n");
}

TEST(ArrowFormatTest, NullIntoOrdinaryColumnWithoutNullAsDefaultFails) {
  const Table table = EveryType();
  const std::string bytes = Write("ArrowStream", table);
  absl::StatusOr<InputParser> parser = InputParser::Create("ArrowStream", {"ni"}, {TypeId::kInt32});
  ASSERT_TRUE(parser.ok());
  parser->set_null_as_default(false);
  size_t consumed;
  absl::StatusOr<core::Block> block = parser->Parse(bytes, true, InputLimits{}, &consumed);
  EXPECT_EQ(core::CodeOf(block.status()), core::ErrorCode::kCannotInsertNullInOrdinaryColumn);
}

TEST(ArrowFormatTest, TruncatedAndCorruptInputAreErrors) {
  const Table table = EveryType();
  const std::string bytes = Write("ArrowStream", table);
  absl::StatusOr<core::Block> cut =
      ParseInput("ArrowStream", bytes.substr(0, bytes.size() / 2), table.names, table.types);
  EXPECT_EQ(core::CodeOf(cut.status()), core::ErrorCode::kCannotParseInputAssertionFailed);
  // Flip every byte of the metadata in turn: never a crash, an error or a block.
  for (size_t at = 8; at < 200; ++at) {
    std::string broken = bytes;
    broken[at] = static_cast<char>(~broken[at]);
    (void)ParseInput("ArrowStream", broken, table.names, table.types);
  }
  absl::StatusOr<core::Block> garbage =
      ParseInput("ArrowStream", std::string("\xff\xff\xff\xff\x10\0\0\0garbagegarbage!!", 24),
                 table.names, table.types);
  EXPECT_EQ(core::CodeOf(garbage.status()), core::ErrorCode::kIncorrectData);
}

TEST(ArrowFormatTest, UnsupportedArrowTypeIsUnknownType) {
  // A schema with one struct column.
  namespace fb = arrow_fb;
  flatbuffers::FlatBufferBuilder fbb;
  auto children = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{});
  auto field = fb::CreateField(fbb, fbb.CreateString("st"), true, fb::Type_Struct_,
                               fb::CreateStruct_(fbb).Union(), 0, children);
  auto schema = fb::CreateSchema(fbb, fb::Endianness_Little, fbb.CreateVector(
                                                                 std::vector{field}));
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion_V5, fb::MessageHeader_Schema,
                               schema.Union(), 0));
  std::string bytes("\xff\xff\xff\xff", 4);
  const uint32_t size = fbb.GetSize();
  bytes.append(reinterpret_cast<const char*>(&size), 4);
  bytes.append(reinterpret_cast<const char*>(fbb.GetBufferPointer()), size);
  absl::StatusOr<core::Block> block = ParseInput("ArrowStream", bytes, {"st"}, {TypeId::kString});
  EXPECT_EQ(core::CodeOf(block.status()), core::ErrorCode::kUnknownType);
  EXPECT_NE(block.status().message().find("Unsupported Arrow type 'Struct'"), std::string::npos)
      << block.status();
}

}  // namespace
}  // namespace granite::coordinator

#include "coordinator/formats/output_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/tuple_type.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

// A two-row result: n UInt64, s String, f Float64, d Date, t DateTime.
struct Result {
  std::vector<std::string> names = {"n", "s", "f", "d", "t"};
  std::vector<TypeId> types = {TypeId::kUInt64, TypeId::kString, TypeId::kFloat64, TypeId::kDate,
                               TypeId::kDateTime};
  core::Block block;
};

Result MakeResult() {
  Result result;
  auto n = std::make_shared<core::Column>(TypeId::kUInt64);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  auto f = std::make_shared<core::Column>(TypeId::kFloat64);
  auto d = std::make_shared<core::Column>(TypeId::kDate);
  auto t = std::make_shared<core::Column>(TypeId::kDateTime);
  n->Append<uint64_t>(18446744073709551615u);
  s->AppendString("tab\there \"q\" it's\nnew/line\\");
  f->Append<double>(0.1);
  d->Append<uint16_t>(15901);
  t->Append<uint32_t>(1373885254);
  n->Append<uint64_t>(7);
  s->AppendString("");
  f->Append<double>(std::numeric_limits<double>::quiet_NaN());
  d->Append<uint16_t>(0);
  t->Append<uint32_t>(0);
  result.block.columns = {n, s, f, d, t};
  return result;
}

// Runs a whole output with the result split into one block per row (formats must not depend on
// block boundaries) and returns the bytes. JSON's statistics are left out unless asked for: their
// elapsed time differs per run.
std::string Render(std::string_view format, const Result& result,
                   OutputOptions options = {.json_quote_64bit_integers = false,
                                            .write_statistics = false}) {
  auto output = MakeOutputFormat(format, options);
  EXPECT_TRUE(output.ok()) << output.status();
  std::string out;
  (*output)->Begin(result.names, result.types, &out);
  for (size_t row = 0; row < result.block.rows(); ++row) {
    core::Block one;
    for (const auto& column : result.block.columns) {
      one.columns.push_back(std::make_shared<core::Column>(column->Slice(row, 1)));
    }
    (*output)->Write(one, &out);
  }
  (*output)->End(&out);
  return out;
}

Result EmptyResult() {
  Result result;
  result.names = {"number"};
  result.types = {TypeId::kUInt64};
  result.block.columns = {std::make_shared<core::Column>(TypeId::kUInt64)};
  return result;
}

Result Numbers(int count) {
  Result result = EmptyResult();
  auto column = std::make_shared<core::Column>(TypeId::kUInt64);
  for (int i = 0; i < count; ++i) column->Append<uint64_t>(i);
  result.block.columns = {column};
  return result;
}

TEST(OutputFormatTest, TabSeparated) {
  EXPECT_EQ(Render("TabSeparated", MakeResult()),
            "18446744073709551615\ttab\\there \"q\" it\\'s\\nnew/line\\\\\t0.1\t2013-07-15\t"
            "2013-07-15 10:47:34\n"
            "7\t\tnan\t1970-01-01\t1970-01-01 00:00:00\n");
  EXPECT_EQ(Render("TSV", Numbers(2)), "0\n1\n");
  EXPECT_EQ(Render("TSVWithNames", Numbers(1)), "number\n0\n");
  EXPECT_EQ(Render("TabSeparatedWithNamesAndTypes", Numbers(1)), "number\nUInt64\n0\n");
  EXPECT_EQ(Render("TSVWithNamesAndTypes", EmptyResult()), "number\nUInt64\n");
  EXPECT_EQ(Render("TSV", EmptyResult()), "");
}

TEST(OutputFormatTest, TabSeparatedRawDoesNotEscape) {
  Result result = EmptyResult();
  result.types = {TypeId::kString};
  auto column = std::make_shared<core::Column>(TypeId::kString);
  column->AppendString("a\\b'c");
  result.block.columns = {column};
  EXPECT_EQ(Render("TSVRaw", result), "a\\b'c\n");
}

TEST(OutputFormatTest, Csv) {
  EXPECT_EQ(Render("CSV", MakeResult()),
            "18446744073709551615,\"tab\there \"\"q\"\" it's\nnew/line\\\",0.1,\"2013-07-15\","
            "\"2013-07-15 10:47:34\"\n"
            "7,\"\",nan,\"1970-01-01\",\"1970-01-01 00:00:00\"\n");
  EXPECT_EQ(Render("CSVWithNames", Numbers(2)), "\"number\"\n0\n1\n");
  EXPECT_EQ(Render("CSVWithNamesAndTypes", EmptyResult()), "\"number\"\n\"UInt64\"\n");
  EXPECT_EQ(Render("CSV", EmptyResult()), "");
}

TEST(OutputFormatTest, JsonEachRow) {
  EXPECT_EQ(Render("JSONEachRow", MakeResult()),
            "{\"n\":18446744073709551615,\"s\":\"tab\\there \\\"q\\\" it's\\nnew\\/line\\\\\","
            "\"f\":0.1,\"d\":\"2013-07-15\",\"t\":\"2013-07-15 10:47:34\"}\n"
            "{\"n\":7,\"s\":\"\",\"f\":null,\"d\":\"1970-01-01\",\"t\":\"1970-01-01 00:00:00\"}\n");
  EXPECT_EQ(Render("JSONEachRow", EmptyResult()), "");
}

TEST(OutputFormatTest, JsonCompactMatchesClickHouseLayout) {
  EXPECT_EQ(Render("JSONCompact", Numbers(2)),
            "{\n"
            "\t\"meta\":\n"
            "\t[\n"
            "\t\t{\n"
            "\t\t\t\"name\": \"number\",\n"
            "\t\t\t\"type\": \"UInt64\"\n"
            "\t\t}\n"
            "\t],\n"
            "\n"
            "\t\"data\":\n"
            "\t[\n"
            "\t\t[0],\n"
            "\t\t[1]\n"
            "\t],\n"
            "\n"
            "\t\"rows\": 2\n"
            "}\n");
  std::string mixed = Render("JSONCompact", MakeResult());
  EXPECT_NE(mixed.find("\t\t\t\"name\": \"s\",\n\t\t\t\"type\": \"String\"\n\t\t},\n"),
            std::string::npos)
      << mixed;
  EXPECT_NE(mixed.find("\t\t[7, \"\", null, \"1970-01-01\", \"1970-01-01 00:00:00\"]\n\t],"),
            std::string::npos)
      << mixed;
  EXPECT_EQ(Render("JSONCompact", EmptyResult()),
            "{\n\t\"meta\":\n\t[\n\t\t{\n\t\t\t\"name\": \"number\",\n\t\t\t\"type\": \"UInt64\"\n"
            "\t\t}\n\t],\n\n\t\"data\":\n\t[\n\n\t],\n\n\t\"rows\": 0\n}\n");
}

TEST(OutputFormatTest, Json) {
  EXPECT_EQ(Render("JSON", Numbers(2)),
            "{\n\t\"meta\":\n\t[\n\t\t{\n\t\t\t\"name\": \"number\",\n\t\t\t\"type\": \"UInt64\"\n"
            "\t\t}\n\t],\n\n\t\"data\":\n\t[\n"
            "\t\t{\n\t\t\t\"number\": 0\n\t\t},\n"
            "\t\t{\n\t\t\t\"number\": 1\n\t\t}\n"
            "\t],\n\n\t\"rows\": 2\n}\n");
}

TEST(OutputFormatTest, JsonStatisticsAndQuoting) {
  OutputOptions options;  // the defaults: statistics on, 64-bit integers unquoted
  std::string json = Render("JSON", Numbers(1), options);
  EXPECT_NE(json.find("\t\"rows\": 1,\n\n\t\"statistics\":\n\t{\n\t\t\"elapsed\": 0,\n"
                      "\t\t\"rows_read\": 0,\n\t\t\"bytes_read\": 0\n\t}\n}\n"),
            std::string::npos)
      << json;
  options.json_quote_64bit_integers = true;
  EXPECT_EQ(Render("JSONCompactEachRow", Numbers(2), options), "[\"0\"]\n[\"1\"]\n");
  EXPECT_EQ(Render("JSONEachRow", Numbers(1), options), "{\"number\":\"0\"}\n");
}

TEST(OutputFormatTest, ValuesMarkdownTskvRowBinary) {
  EXPECT_EQ(Render("Values", MakeResult()),
            "(18446744073709551615,'tab\\there \"q\" it\\'s\\nnew/line\\\\',0.1,"
            "'2013-07-15','2013-07-15 10:47:34'),(7,'',nan,'1970-01-01','1970-01-01 00:00:00')");
  EXPECT_EQ(Render("Markdown", Numbers(2)), "| number |\n|-:|\n| 0 |\n| 1 |\n");
  EXPECT_EQ(Render("TSKV", Numbers(2)), "number=0\nnumber=1\n");
  EXPECT_EQ(Render("RowBinaryWithNamesAndTypes", Numbers(1)),
            std::string("\x01\x06number\x06UInt64\0\0\0\0\0\0\0\0", 23));
  EXPECT_EQ(Render("Native", Numbers(1)),
            std::string("\x01\x01\x06number\x06UInt64\0\0\0\0\0\0\0\0", 24));
}

// Tuples as ClickHouse writes them (bytes from chdb): t Tuple(UInt8, Nullable(String)) of
// (0, 'a') and (1, NULL), e the empty tuple.
TEST(OutputFormatTest, Tuples) {
  Result result;
  result.names = {"t", "e"};
  result.types = {*core::MakeTupleType({TypeId::kUInt8, core::MakeNullable(TypeId::kString)}),
                  *core::MakeTupleType({})};
  auto t = std::make_shared<core::Column>(result.types[0]);
  t->MutableElement(0).Append<uint8_t>(0);
  t->MutableElement(0).Append<uint8_t>(1);
  t->MutableElement(1).AppendString("a");
  t->MutableElement(1).AppendNull();
  t->SetSize(2);
  auto e = std::make_shared<core::Column>(result.types[1]);
  e->SetSize(2);
  result.block.columns = {t, e};
  EXPECT_EQ(Render("TSV", result), "(0,'a')\t()\n(1,NULL)\t()\n");
  EXPECT_EQ(Render("CSV", result), "0,\"a\",\n1,\\N,\n");
  EXPECT_EQ(Render("JSONEachRow", result),
            "{\"t\":[0,\"a\"],\"e\":[]}\n{\"t\":[1,null],\"e\":[]}\n");
  EXPECT_EQ(Render("JSONCompactEachRow", result), "[[0,\"a\"], []]\n[[1,null], []]\n");
  EXPECT_EQ(Render("Values", result), "((0,'a'),()),((1,NULL),())");
  EXPECT_EQ(Render("RowBinary", result), std::string("\x00\x00\x01" "a\x01\x01", 6));
  constexpr char kNative[] =
      "\x02\x02\x01t\x1eTuple(UInt8, Nullable(String))\x00\x01\x00\x01\x01" "a"
      "\x00\x01" "e\x07Tuple()00";
  EXPECT_EQ(Render("Native", result), std::string(kNative, sizeof(kNative) - 1));
}

// Native's blocks are 8192 rows whatever blocks the rows came in (Render gives one per row): a
// streamed result's output must not depend on the workers' timing.
TEST(OutputFormatTest, NativeBlocksDoNotFollowInputBlocks) {
  std::string three("\x01\x03\x06number\x06UInt64", 16);
  for (char value : {0, 1, 2}) three += std::string(1, value) + std::string(7, '\0');
  EXPECT_EQ(Render("Native", Numbers(3)), three);
  std::string big = Render("Native", Numbers(10000));
  const std::string first("\x01\x80\x40\x06number\x06UInt64", 17);  // 8192 rows
  EXPECT_EQ(big.substr(0, first.size()), first);
  const size_t second = first.size() + 8192 * 8;
  EXPECT_EQ(big.substr(second, 3), std::string("\x01\x90\x0e", 3));  // 1808 rows
  EXPECT_EQ(big.size(), second + 17 + 1808 * 8);
}

TEST(OutputFormatTest, PrettyCompact) {
  EXPECT_EQ(Render("PrettyCompact", Numbers(2)),
            "┌─number─┐\n"
            "│      0 │\n"
            "│      1 │\n"
            "└────────┘\n");
  Result result;
  result.names = {"x", "name"};
  result.types = {TypeId::kInt64, TypeId::kString};
  auto x = std::make_shared<core::Column>(TypeId::kInt64);
  auto name = std::make_shared<core::Column>(TypeId::kString);
  x->Append<int64_t>(-12345);
  name->AppendString("привет");
  x->Append<int64_t>(3);
  name->AppendString("a\tb");
  result.block.columns = {x, name};
  EXPECT_EQ(Render("PrettyCompact", result),
            "┌──────x─┬─name───┐\n"
            "│ -12345 │ привет │\n"
            "│      3 │ a\\tb   │\n"
            "└────────┴────────┘\n");
  EXPECT_EQ(Render("PrettyCompact", EmptyResult()), "");
}

TEST(OutputFormatTest, PrettyCompactRightAlignsDates) {
  Result result;
  result.names = {"d", "s"};
  result.types = {TypeId::kDate, TypeId::kString};
  auto d = std::make_shared<core::Column>(TypeId::kDate);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  d->Append<uint16_t>(15901);
  s->AppendString("");
  result.block.columns = {d, s};
  EXPECT_EQ(Render("PrettyCompact", result),
            "┌──────────d─┬─s─┐\n"
            "│ 2013-07-15 │   │\n"
            "└────────────┴───┘\n");
}

TEST(OutputFormatTest, Pretty) {
  EXPECT_EQ(Render("Pretty", Numbers(2)),
            "┏━━━━━━━━┓\n"
            "┃ number ┃\n"
            "┡━━━━━━━━┩\n"
            "│      0 │\n"
            "├────────┤\n"
            "│      1 │\n"
            "└────────┘\n");
}

TEST(OutputFormatTest, PrettyStopsAfterTenThousandRows) {
  std::string out = Render("PrettyCompact", Numbers(10001));
  EXPECT_NE(out.find("│   9999 │\n└──"), std::string::npos);
  EXPECT_EQ(out.find("10000 │"), std::string::npos);
  EXPECT_TRUE(out.ends_with("┘\n  Showed first 10000.\n"));
}

TEST(OutputFormatTest, Vertical) {
  Result result;
  result.names = {"n", "text"};
  result.types = {TypeId::kUInt8, TypeId::kString};
  auto n = std::make_shared<core::Column>(TypeId::kUInt8);
  auto text = std::make_shared<core::Column>(TypeId::kString);
  n->Append<uint8_t>(1);
  text->AppendString("x");
  n->Append<uint8_t>(2);
  text->AppendString("y");
  result.block.columns = {n, text};
  EXPECT_EQ(Render("Vertical", result),
            "Row 1:\n──────\nn:    1\ntext: x\n\nRow 2:\n──────\nn:    2\ntext: y\n");
}

TEST(OutputFormatTest, NullWritesNothing) { EXPECT_EQ(Render("Null", MakeResult()), ""); }

TEST(OutputFormatTest, FloatsUseShortestText) {
  Result result;
  result.names = {"f"};
  result.types = {TypeId::kFloat64};
  auto f = std::make_shared<core::Column>(TypeId::kFloat64);
  for (double v : {1.5, 3.0, 1e21, 123456789.123, -std::numeric_limits<double>::infinity()}) {
    f->Append<double>(v);
  }
  result.block.columns = {f};
  EXPECT_EQ(Render("TSV", result), "1.5\n3\n1e21\n123456789.123\n-inf\n");
  EXPECT_EQ(Render("JSONEachRow", result),
            "{\"f\":1.5}\n{\"f\":3}\n{\"f\":1e21}\n{\"f\":123456789.123}\n{\"f\":null}\n");
}

TEST(OutputFormatTest, UnknownFormatIsAnError) {
  auto output = MakeOutputFormat("Foo");
  ASSERT_FALSE(output.ok());
  EXPECT_EQ(core::CodeOf(output.status()), core::ErrorCode::kUnknownFormat);
  EXPECT_EQ(output.status().message(), "Unknown format Foo");
  EXPECT_FALSE(MakeOutputFormat("tabseparated").ok());  // names are case-sensitive
}

}  // namespace
}  // namespace granite::coordinator

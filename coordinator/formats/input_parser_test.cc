#include "coordinator/formats/input_parser.h"

#include <gtest/gtest.h>

#include "coordinator/formats/output_format.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

const std::vector<std::string> kNames = {"id", "name", "day"};
const std::vector<TypeId> kTypes = {TypeId::kUInt32, TypeId::kString, TypeId::kDate};

std::string ToTsv(const core::Block& block, const std::vector<std::string>& names,
                  const std::vector<TypeId>& types) {
  auto output = MakeOutputFormat("TSV");
  std::string out;
  (*output)->Begin(names, types, &out);
  (*output)->Write(block, &out);
  (*output)->End(&out);
  return out;
}

// Parses with the id/name/day schema and returns the rows as TSV, or "error <CODE>: message".
std::string Parse(std::string_view format, std::string_view data,
                  const std::vector<std::string>& names = kNames,
                  const std::vector<TypeId>& types = kTypes) {
  auto block = ParseInput(format, data, names, types);
  if (!block.ok()) {
    return "error " + std::string(core::ErrorName(core::CodeOf(block.status()))) + ": " +
           std::string(block.status().message());
  }
  EXPECT_EQ(block->columns.size(), types.size());
  for (const auto& column : block->columns) EXPECT_EQ(column->size(), block->rows());
  return ToTsv(*block, names, types);
}

TEST(InputParserTest, TabSeparated) {
  EXPECT_EQ(Parse("TabSeparated", "1\tab\\tc\\nd\\\\\t2013-07-15\n2\t\\N\t\\N\n"),
            "1\tab\\tc\\nd\\\\\t2013-07-15\n2\t\t1970-01-01\n");
  EXPECT_EQ(Parse("TSV", "1\tx\t2013-07-15"), "1\tx\t2013-07-15\n");  // no final newline
  EXPECT_EQ(Parse("TSV", "1\tx\t2013-07-15\n\n\n"), "1\tx\t2013-07-15\n");
  EXPECT_EQ(Parse("TSV", "1\tit\\'s\t2013-07-15\n"), "1\tit\\'s\t2013-07-15\n");
  EXPECT_EQ(Parse("TSV", ""), "");
}

TEST(InputParserTest, TabSeparatedErrorsNameTheLine) {
  EXPECT_EQ(Parse("TSV", "1\ta\t2013-07-15\n2\tb\t2013-07-16\nabc\tc\t2013-07-17\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"abc\" as UInt32: (at row 3, line 3, "
            "column 1 'id')");
  EXPECT_EQ(Parse("TSV", "1\ta\t2013-07-15\n2\tb\t2013-13-01\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"2013-13-01\" as Date: (at row 2, line 2, "
            "column 3 'day')");
  EXPECT_EQ(Parse("TSV", "1\ta\t2013-07-15\n2\tb\n3\tc\t2013-07-15\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected '\\t' "
            "before: '\\n3\\tc\\t2013-07-15': (at row 2, line 2, column 2 'name') (the row has 2 "
            "of 3 columns)");
  EXPECT_EQ(Parse("TSV", "1\ta\t2013-07-15\textra\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected '\\n' "
            "before: '\\textra': (at row 1, line 1, column 3 'day') (the row has more than 3 "
            "columns)");
  EXPECT_EQ(Parse("TSV", "99999999999\ta\t2013-07-15\n"),
            "error VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: Value 99999999999 is out of range of "
            "UInt32: (at row 1, line 1, column 1 'id')");
  EXPECT_EQ(Parse("TSV", "\ta\t2013-07-15\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"\" as UInt32: (at row 1, line 1, column 1 "
            "'id')");
}

TEST(InputParserTest, TabSeparatedWithNamesMapsColumnsByName) {
  EXPECT_EQ(Parse("TSVWithNames", "day\tid\n2013-07-15\t5\n2013-07-16\t6\n"),
            "5\t\t2013-07-15\n6\t\t2013-07-16\n");
  EXPECT_EQ(Parse("TabSeparatedWithNamesAndTypes",
                  "id\tname\tday\nUInt32\tString\tDate\n1\tx\t2013-07-15\n"),
            "1\tx\t2013-07-15\n");
  EXPECT_EQ(Parse("TSVWithNames", "id\tbogus\n1\t2\n"),
            "error INCORRECT_DATA: Unknown field found while parsing header: bogus: (at row 0, "
            "line 1)");
  EXPECT_EQ(Parse("TSVWithNames", "id\tname\tday\n1\tx\tnope\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"nope\" as Date: (at row 1, line 2, column 3 "
            "'day')");
}

TEST(InputParserTest, Csv) {
  EXPECT_EQ(Parse("CSV", "1,\"a,\"\"b\"\"\",2013-07-15\n2,plain text ,\"2013-07-16\"\n"),
            "1\ta,\"b\"\t2013-07-15\n2\tplain text\t2013-07-16\n");
  EXPECT_EQ(Parse("CSV", "1,\"multi\nline\",2013-07-15\r\n2,x,2013-07-16\r\n"),
            "1\tmulti\\nline\t2013-07-15\n2\tx\t2013-07-16\n");
  EXPECT_EQ(Parse("CSV", ",,\n\\N,\\N,\\N"), "0\t\t1970-01-01\n0\t\t1970-01-01\n");
  EXPECT_EQ(Parse("CSV", " 7 , \"q\" ,2013-07-15"), "7\tq\t2013-07-15\n");
  EXPECT_EQ(Parse("CSVWithNames", "\"name\",\"id\"\nx,1\n"), "1\tx\t1970-01-01\n");
  EXPECT_EQ(Parse("CSV", ""), "");
}

TEST(InputParserTest, CsvErrorsNameTheLine) {
  EXPECT_EQ(Parse("CSV", "1,a,2013-07-15\n2,\"two\nlines\",2013-07-15\n3,c,x\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"x\" as Date: (at row 3, line 4, column 3 "
            "'day')");
  EXPECT_EQ(Parse("CSV", "1,a,2013-07-15\n2,b\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected ',' before: "
            "'': (at row 2, line 2, column 2 'name') (the row has 2 of 3 columns)");
  EXPECT_EQ(Parse("CSV", "1,a,2013-07-15,4\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected end of line "
            "before: ',4': (at row 1, line 1, column 3 'day') (the row has more than 3 columns)");
  EXPECT_EQ(Parse("CSV", "1,\"open,2013-07-15\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected '\"' "
            "before: '': (at row 1, line 1, column 2 'name') (the quoted field that starts here "
            "is not closed)");
  EXPECT_EQ(Parse("CSV", "1,\"a\"b,2013-07-15\n"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected ',' before: "
            "'b,2013-07-15': (at row 1, line 1, column 2 'name')");
  EXPECT_EQ(Parse("CSV", "-1,a,2013-07-15\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"-1\" as UInt32: (at row 1, line 1, column 1 "
            "'id')");
}

TEST(InputParserTest, JsonEachRow) {
  EXPECT_EQ(Parse("JSONEachRow",
                  "{\"id\": 1, \"name\": \"a\\\"b\\u00e9\\ud83d\\ude00\", \"day\": \"2013-07-15\"}\n"
                  "{\"day\":\"2013-07-16\",\"id\":\"2\"}\n"
                  "  {\"name\": null, \"id\": 3}{}\n"),
            "1\ta\"bé😀\t2013-07-15\n2\t\t2013-07-16\n3\t\t1970-01-01\n0\t\t1970-01-01\n");
  EXPECT_EQ(Parse("JSONEachRow", "[{\"id\": 1}, {\"id\": 2}]"),
            "1\t\t1970-01-01\n2\t\t1970-01-01\n");
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": true, \"name\": 12.5}\n{\"id\": false, \"name\": "
                                 "{\"k\": [1, \"}\"]}}\n"),
            "1\t12.5\t1970-01-01\n0\t{\"k\": [1, \"}\"]}\t1970-01-01\n");
  EXPECT_EQ(Parse("JSONEachRow", ""), "");
}

TEST(InputParserTest, JsonEachRowErrors) {
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": 1}\n{\"id\": 2, \"color\": \"red\"}\n"),
            "error INCORRECT_DATA: Unknown field found while parsing JSONEachRow format: color: "
            "(at row 2, line 2)");
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": 1, \"id\": 2}"),
            "error INCORRECT_DATA: Duplicate field found while parsing JSONEachRow format: id: "
            "(at row 1, line 1, column 1 'id')");
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": 1}\n\n{\"id\": \"x\"}\n"),
            "error CANNOT_PARSE_TEXT: Cannot parse \"x\" as UInt32: (at row 2, line 3, column 1 "
            "'id')");
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": 1 \"name\": \"a\"}"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected ',' or '}' "
            "before: '\"name\": \"a\"}': (at row 1, line 1, column 1 'id')");
  EXPECT_EQ(Parse("JSONEachRow", "{\"id\": [1]}"),
            "error CANNOT_PARSE_TEXT: Cannot parse JSON array as UInt32: (at row 1, line 1, "
            "column 1 'id')");
  EXPECT_EQ(Parse("JSONEachRow", "{\"name\": \"unterminated}"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected a closed "
            "JSON string before: '\"unterminated}': (at row 1, line 1, column 2 'name')");
  EXPECT_EQ(Parse("JSONEachRow", "1"),
            "error CANNOT_PARSE_INPUT_ASSERTION_FAILED: Cannot parse input: expected '{' before: "
            "'1': (at row 1, line 1)");
}

TEST(InputParserTest, UnknownFormat) {
  EXPECT_EQ(Parse("ORC", ""), "error UNKNOWN_FORMAT: Unknown format ORC");
  EXPECT_TRUE(IsInputFormat("CSV"));
  EXPECT_FALSE(IsInputFormat("PrettyCompact"));
}

TEST(InputParserTest, AllTypesRoundTripThroughEveryFormat) {
  const std::vector<std::string> names = {"u8", "i64", "f32", "f64", "s", "d", "t"};
  const std::vector<TypeId> types = {TypeId::kUInt8,  TypeId::kInt64, TypeId::kFloat32,
                                     TypeId::kFloat64, TypeId::kString, TypeId::kDate,
                                     TypeId::kDateTime};
  const std::string tsv =
      "255\t-9223372036854775808\t0.1\t-1e-7\ttab\\t\\\\ \"quote\" it\\'s, comma\t2149-06-06\t"
      "2106-02-07 06:28:15\n"
      "0\t9223372036854775807\t-inf\t123456789.123\t\t1970-01-01\t1970-01-01 00:00:00\n";
  ASSERT_EQ(Parse("TSV", tsv, names, types), tsv);
  for (const char* format : {"CSV", "JSONEachRow", "TSVWithNames", "CSVWithNames"}) {
    auto block = ParseInput("TSV", tsv, names, types);
    ASSERT_TRUE(block.ok());
    auto output = MakeOutputFormat(format);
    std::string text;
    (*output)->Begin(names, types, &text);
    (*output)->Write(*block, &text);
    (*output)->End(&text);
    std::string back = Parse(format, text, names, types);
    if (std::string_view(format) == "JSONEachRow") {
      // JSON writes -inf as null, which reads back as the default 0.
      std::string expected = tsv;
      expected.replace(expected.find("-inf"), 4, "0");
      EXPECT_EQ(back, expected) << format << ":\n" << text;
    } else {
      EXPECT_EQ(back, tsv) << format << ":\n" << text;
    }
  }
}

TEST(InputParserTest, HundredThousandRowsRoundTripTsv) {
  const std::vector<std::string> names = {"id", "s", "f", "t"};
  const std::vector<TypeId> types = {TypeId::kUInt64, TypeId::kString, TypeId::kFloat64,
                                     TypeId::kDateTime};
  std::string tsv;
  for (int i = 0; i < 100000; ++i) {
    tsv += std::to_string(i * 7919ull) + "\tname\\t" + std::to_string(i % 97) + "\t" +
           std::to_string(i % 1000) + ".25\t2013-07-15 10:47:" + (i % 60 < 10 ? "0" : "") +
           std::to_string(i % 60) + "\n";
  }
  auto block = ParseInput("TSV", tsv, names, types);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(block->rows(), 100000u);
  EXPECT_EQ(block->columns[0]->Get<uint64_t>(99999), 99999ull * 7919);
  EXPECT_EQ(block->columns[1]->StringAt(5), "name\t5");
  EXPECT_EQ(ToTsv(*block, names, types), tsv);
}

}  // namespace
}  // namespace granite::coordinator

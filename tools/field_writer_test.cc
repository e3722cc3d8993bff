#include "tools/field_writer.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>

#include "gtest/gtest.h"

namespace granite::tools {
namespace {

std::string Write(TextFormat format, const std::function<void(FieldWriter&)>& fill) {
  std::ostringstream out;
  FieldWriter writer(format, &out, 16);
  fill(writer);
  EXPECT_TRUE(writer.Flush().ok());
  return out.str();
}

TEST(FieldWriterTest, TabSeparatedEscapesClickHouseStyle) {
  std::string text = Write(TextFormat::kTabSeparated, [](FieldWriter& w) {
    w.String("a\tb\nc\\d\re");
    w.String(std::string_view("nul\0x", 5));
    w.String("quote\"'");
    w.String("");
    w.EndRow();
  });
  EXPECT_EQ(text, "a\\tb\\nc\\\\d\\re\tnul\\0x\tquote\"'\t\n");
}

TEST(FieldWriterTest, CsvQuotesEveryStringAndDoublesQuotes) {
  std::string text = Write(TextFormat::kCsv, [](FieldWriter& w) {
    w.Int(-5);
    w.String("say \"hi\", ok\nnext");
    w.String("");
    w.Date(15888);
    w.EndRow();
    w.Int(7);
    w.EndRow();
  });
  EXPECT_EQ(text, "-5,\"say \"\"hi\"\", ok\nnext\",\"\",2013-07-02\n7\n");
}

TEST(FieldWriterTest, IntegersCoverTheWholeRange) {
  std::string text = Write(TextFormat::kTabSeparated, [](FieldWriter& w) {
    w.Int(0);
    w.Int(9);
    w.Int(10);
    w.Int(-99);
    w.Int(1234567890123LL);
    w.Int(std::numeric_limits<int64_t>::min());
    w.Int(std::numeric_limits<int64_t>::max());
    w.EndRow();
  });
  EXPECT_EQ(text,
            "0\t9\t10\t-99\t1234567890123\t-9223372036854775808\t9223372036854775807\n");
}

TEST(FieldWriterTest, DatesAndDateTimes) {
  EXPECT_EQ(FieldWriter::FormatDate(0), "1970-01-01");
  EXPECT_EQ(FieldWriter::FormatDate(15888), "2013-07-02");
  EXPECT_EQ(FieldWriter::FormatDate(15917), "2013-07-31");
  EXPECT_EQ(FieldWriter::FormatDate(11016), "2000-02-29");
  std::string text = Write(TextFormat::kTabSeparated, [](FieldWriter& w) {
    w.DateTime(0);
    w.DateTime(1373892000);  // 2013-07-15 12:40:00 UTC
    w.DateTime(1373932799);
    w.EndRow();
  });
  EXPECT_EQ(text, "1970-01-01 00:00:00\t2013-07-15 12:40:00\t2013-07-15 23:59:59\n");
}

TEST(FieldWriterTest, LargeOutputIsFlushedInBlocks) {
  std::ostringstream out;
  FieldWriter writer(TextFormat::kTabSeparated, &out, 1000);
  std::string big(5000, 'x');
  for (int i = 0; i < 10; ++i) {
    writer.String(big);
    writer.EndRow();
    // Each row exceeds the flush threshold, so nothing stays pending.
    EXPECT_EQ(out.str().size(), static_cast<size_t>((i + 1) * 5001));
  }
  ASSERT_TRUE(writer.Flush().ok());
}

TEST(FieldWriterTest, FailedStreamIsReported) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  FieldWriter writer(TextFormat::kTabSeparated, &out, 8);
  writer.String("more than eight bytes");
  writer.EndRow();
  EXPECT_FALSE(writer.status().ok());
  EXPECT_FALSE(writer.Flush().ok());
}

}  // namespace
}  // namespace granite::tools

#include "tools/hits_generator.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "coordinator/formats/input_parser.h"
#include "gtest/gtest.h"
#include "tools/hits_layout.h"
#include "tools/hits_schema.h"

namespace granite::tools {
namespace {

std::string Generate(uint64_t rows, uint64_t seed, TextFormat format) {
  std::ostringstream out;
  GeneratorOptions options;
  options.rows = rows;
  options.seed = seed;
  options.format = format;
  EXPECT_TRUE(GenerateHits(options, out).ok());
  return out.str();
}

// Parses generated text the way INSERT INTO hits FORMAT ... does.
core::Block Parse(const std::string& text, std::string_view format) {
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  for (const HitsColumn& c : HitsColumns()) {
    names.emplace_back(c.name);
    types.push_back(c.type);
  }
  absl::StatusOr<core::Block> block = coordinator::ParseInput(format, text, names, types);
  EXPECT_TRUE(block.ok()) << block.status();
  return block.ok() ? *block : core::Block{};
}

int Index(std::string_view name) {
  const auto& columns = HitsColumns();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The expected shape of the generated data at 100k rows, parsed once for all the literal tests.
class HitsDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    block_ = new core::Block(Parse(Generate(100000, 1, TextFormat::kTabSeparated), "TabSeparated"));
  }
  static void TearDownTestSuite() { delete block_; }
  const core::Column& Col(std::string_view name) { return *block_->columns[Index(name)]; }
  template <typename T>
  T Get(std::string_view name, size_t row) {
    return Col(name).Get<T>(row);
  }
  std::string_view Str(std::string_view name, size_t row) { return Col(name).StringAt(row); }
  static core::Block* block_;
};
core::Block* HitsDataTest::block_ = nullptr;

TEST(HitsSchemaTest, HasTheBenchmarkLayout) {
  const auto& columns = HitsColumns();
  ASSERT_EQ(columns.size(), 105u);
  int strings = 0, int16s = 0, int32s = 0, int64s = 0, datetimes = 0, dates = 0;
  for (const HitsColumn& c : columns) {
    strings += c.type == core::TypeId::kString;
    int16s += c.type == core::TypeId::kInt16;
    int32s += c.type == core::TypeId::kInt32;
    int64s += c.type == core::TypeId::kInt64;
    datetimes += c.type == core::TypeId::kDateTime;
    dates += c.type == core::TypeId::kDate;
  }
  EXPECT_EQ(strings, 28);
  EXPECT_EQ(int16s, 48);
  EXPECT_EQ(int32s, 19);
  EXPECT_EQ(int64s, 6);
  EXPECT_EQ(datetimes, 3);
  EXPECT_EQ(dates, 1);
}

// Cross-checks the built-in layout with the benchmark's create.sql (outside the repository, in
// ../shared/clickbench beside it) when that folder is present.
TEST(HitsSchemaTest, MatchesCreateSqlWhenPresent) {
  // ../shared beside the repository: found by walking up from the test's working directory (in
  // the build tree), since __FILE__ is relative when ccache rewrites paths to the source root.
  std::ifstream file;
  for (std::filesystem::path dir = std::filesystem::absolute(std::filesystem::current_path());
       !file.is_open() && dir.has_relative_path(); dir = dir.parent_path()) {
    file.open(dir / "shared" / "clickbench" / "create.sql");
  }
  if (!file) GTEST_SKIP() << "no ClickBench folder beside the repository";
  std::stringstream sql;
  sql << file.rdbuf();
  std::string text = sql.str();
  std::regex column(R"(\n\s+(\w+)\s+([A-Za-z]+(?:\(\d+\))?)\s+NOT NULL)");
  size_t i = 0;
  const auto& columns = HitsColumns();
  for (auto it = std::sregex_iterator(text.begin(), text.end(), column);
       it != std::sregex_iterator(); ++it, ++i) {
    ASSERT_LT(i, columns.size());
    EXPECT_EQ((*it)[1].str(), columns[i].name);
    absl::StatusOr<core::TypeId> type = core::ParseType((*it)[2].str());
    ASSERT_TRUE(type.ok()) << (*it)[2].str();
    EXPECT_EQ(*type, columns[i].type) << columns[i].name;
  }
  EXPECT_EQ(i, columns.size());
}

TEST(HitsGeneratorTest, SameOptionsGiveSameBytes) {
  std::string a = Generate(5000, 7, TextFormat::kTabSeparated);
  std::string b = Generate(5000, 7, TextFormat::kTabSeparated);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Generate(5000, 8, TextFormat::kTabSeparated));
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 5000);
}

TEST(HitsGeneratorTest, ZeroRowsWritesNothing) {
  EXPECT_EQ(Generate(0, 1, TextFormat::kCsv), "");
}

// TSV and CSV carry the same values: every column parses to identical contents.
TEST(HitsGeneratorTest, TabSeparatedAndCsvParseToTheSameValues) {
  core::Block tsv = Parse(Generate(20000, 3, TextFormat::kTabSeparated), "TabSeparated");
  core::Block csv = Parse(Generate(20000, 3, TextFormat::kCsv), "CSV");
  ASSERT_EQ(tsv.columns.size(), 105u);
  ASSERT_EQ(csv.columns.size(), 105u);
  ASSERT_EQ(tsv.rows(), 20000u);
  ASSERT_EQ(csv.rows(), 20000u);
  for (size_t c = 0; c < 105; ++c) {
    const core::Column& a = *tsv.columns[c];
    const core::Column& b = *csv.columns[c];
    if (a.type() == core::TypeId::kString) {
      EXPECT_EQ(a.Chars(), b.Chars()) << HitsColumns()[c].name;
      EXPECT_EQ(a.Offsets(), b.Offsets()) << HitsColumns()[c].name;
    } else {
      ASSERT_EQ(a.RawSize(), b.RawSize());
      EXPECT_EQ(0, std::memcmp(a.RawData(), b.RawData(), a.RawSize())) << HitsColumns()[c].name;
    }
  }
}

// Strings with tabs, newlines, backslashes and quotes occur and survive the round trip.
TEST_F(HitsDataTest, AwkwardCharactersRoundTrip) {
  int tabs = 0, newlines = 0, backslashes = 0, quotes = 0;
  for (std::string_view column : {"Title", "Params"}) {
    for (size_t r = 0; r < block_->rows(); ++r) {
      std::string_view s = Str(column, r);
      tabs += s.find('\t') != std::string_view::npos;
      newlines += s.find('\n') != std::string_view::npos;
      backslashes += s.find('\\') != std::string_view::npos;
      quotes += s.find('"') != std::string_view::npos;
    }
  }
  EXPECT_GT(tabs, 0);
  EXPECT_GT(newlines, 0);
  EXPECT_GT(backslashes, 0);
  EXPECT_GT(quotes, 0);
}

// Returns true if `s` is well-formed UTF-8 (DuckDB's CSV reader, for one, rejects anything else).
bool IsUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

TEST_F(HitsDataTest, StringsAreValidUtf8) {
  for (size_t c = 0; c < HitsColumns().size(); ++c) {
    if (HitsColumns()[c].type != core::TypeId::kString) continue;
    const core::Column& column = *block_->columns[c];
    for (size_t r = 0; r < column.size(); ++r) {
      ASSERT_TRUE(IsUtf8(column.StringAt(r))) << HitsColumns()[c].name << " row " << r;
    }
  }
}

TEST_F(HitsDataTest, QueryLiteralsSelectRows) {
  const size_t rows = block_->rows();
  ASSERT_EQ(rows, 100000u);
  size_t counter62 = 0, google_url = 0, google_title = 0, phrase = 0, adv = 0, special_user = 0;
  size_t refresh = 0, dont_count = 0, special_referer = 0, special_url = 0, mobile = 0;
  size_t link62 = 0;
  uint16_t min_date = 0xffff, max_date = 0;
  std::set<std::pair<int16_t, int16_t>> windows;
  for (size_t r = 0; r < rows; ++r) {
    bool c62 = Get<int32_t>("CounterID", r) == kSpecialCounterId;
    counter62 += c62;
    std::string_view url = Str("URL", r);
    bool has_phrase = !Str("SearchPhrase", r).empty();
    google_url += url.find("google") != std::string_view::npos;
    google_title += Str("Title", r).find("Google") != std::string_view::npos &&
                    url.find(".google.") == std::string_view::npos && has_phrase;
    phrase += has_phrase;
    adv += Get<int16_t>("AdvEngineID", r) != 0;
    special_user += Get<int64_t>("UserID", r) == kSpecialUserId;
    refresh += Get<int16_t>("IsRefresh", r);
    dont_count += Get<int16_t>("DontCountHits", r);
    mobile += !Str("MobilePhoneModel", r).empty();
    int16_t trafic = Get<int16_t>("TraficSourceID", r);
    special_referer += c62 && (trafic == -1 || trafic == 6) &&
                       Get<int64_t>("RefererHash", r) == kSpecialRefererHash;
    if (c62 && Get<int64_t>("URLHash", r) == kSpecialUrlHash) {
      ++special_url;
      windows.insert({Get<int16_t>("WindowClientWidth", r), Get<int16_t>("WindowClientHeight", r)});
    }
    link62 += c62 && Get<int16_t>("IsLink", r) != 0;
    min_date = std::min(min_date, Get<uint16_t>("EventDate", r));
    max_date = std::max(max_date, Get<uint16_t>("EventDate", r));
  }
  EXPECT_EQ(special_user, 4u);
  EXPECT_EQ(min_date, kFirstDay);
  EXPECT_EQ(max_date, kFirstDay + kDays - 1);
  // Shares documented in bench/clickbench/README.md, with generous bounds.
  EXPECT_NEAR(counter62, 4000, 50);
  EXPECT_GT(google_url, 10u);
  EXPECT_GT(google_title, 10u);
  EXPECT_NEAR(phrase, 12000, 1500);
  EXPECT_NEAR(adv, 630, 150);
  EXPECT_NEAR(refresh, 3000, 500);
  EXPECT_NEAR(dont_count, 10000, 1000);
  EXPECT_NEAR(mobile, 2000, 600);
  EXPECT_GT(special_referer, 300u);
  EXPECT_GT(special_url, 1000u);
  EXPECT_GT(windows.size(), special_url * 9 / 10);
  EXPECT_GT(link62, 800u);
}

TEST_F(HitsDataTest, RowsComeInPrimaryKeyOrder) {
  for (size_t r = 1; r < block_->rows(); ++r) {
    auto key = [&](size_t i) {
      return std::make_tuple(Get<int32_t>("CounterID", i), Get<uint16_t>("EventDate", i),
                             Get<int64_t>("UserID", i), Get<uint32_t>("EventTime", i),
                             Get<int64_t>("WatchID", i));
    };
    ASSERT_LE(key(r - 1), key(r)) << "row " << r;
  }
}

TEST_F(HitsDataTest, EventDateIsTheMoscowDateOfEventTime) {
  for (size_t r = 0; r < block_->rows(); ++r) {
    uint32_t time = Get<uint32_t>("EventTime", r);
    ASSERT_EQ(Get<uint16_t>("EventDate", r), (time + kMoscowOffsetSeconds) / 86400) << "row " << r;
  }
}

TEST(HitsLayoutTest, CountersAddUpAndTheBigOnesStayBig) {
  for (uint64_t rows : {100ULL, 12345ULL, 1000000ULL, 10000000ULL}) {
    HitsLayout layout = HitsLayout::Build(rows, 1);
    uint64_t total = 0, above_one_percent = 0;
    int32_t previous = -1;
    for (const CounterPlan& c : layout.counters()) {
      total += c.rows;
      EXPECT_GT(c.id, previous);  // sorted, distinct
      previous = c.id;
      above_one_percent += c.rows * 100 > rows;
    }
    EXPECT_EQ(total, rows);
    if (rows >= 1000000) EXPECT_GE(above_one_percent, 25u);
  }
}

TEST(RunGeneratorTest, RejectsBadArguments) {
  auto run = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return RunGenerator(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_EQ(run({"visits"}), 2);
  EXPECT_EQ(run({"hits", "--rows", "ten"}), 2);
  EXPECT_EQ(run({"hits", "--format", "Parquet"}), 2);
  EXPECT_EQ(run({"hits", "--rows"}), 2);
  EXPECT_EQ(run({"hits", "--bogus", "1"}), 2);
}

}  // namespace
}  // namespace granite::tools

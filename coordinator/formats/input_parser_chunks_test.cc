// InputParser fed piece by piece with small chunk limits must give exactly what ParseInput gives
// for the whole text: the same rows, or the same error naming the same global row and line.
#include <gtest/gtest.h>

#include <algorithm>

#include "coordinator/formats/input_parser.h"
#include "coordinator/formats/output_format.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

const std::vector<std::string> kNames = {"id", "name", "day"};
const std::vector<TypeId> kTypes = {TypeId::kUInt32, TypeId::kString, TypeId::kDate};

std::string ToTsv(const core::Block& block) {
  auto output = MakeOutputFormat("TSV");
  std::string out;
  (*output)->Begin(kNames, kTypes, &out);
  (*output)->Write(block, &out);
  (*output)->End(&out);
  return out;
}

// Returns the error's code and message. The excerpt of the text after the error ("before:
// '...'") is cut at the end of the chunk, so it is left out of the comparison.
std::string Describe(const absl::Status& status) {
  std::string message(status.message());
  size_t before = message.find("before: '");
  if (before != std::string::npos) {
    size_t close = message.find("': (at row", before);
    if (close != std::string::npos) message.erase(before, close + 2 - before);
  }
  return "error " + std::string(core::ErrorName(core::CodeOf(status))) + ": " + message;
}

std::string Whole(std::string_view format, std::string_view data) {
  auto block = ParseInput(format, data, kNames, kTypes);
  return block.ok() ? ToTsv(*block) : Describe(block.status());
}

// Feeds `data` in pieces of `piece` bytes (as the insert executor does with streamed input) and
// parses chunks of at most `max_rows` rows / `max_bytes` bytes; returns the rows as TSV (with
// `chunks` counting non-empty blocks) or the error.
std::string Chunked(std::string_view format, std::string_view data, size_t piece,
                    size_t max_rows, size_t max_bytes, size_t* chunks = nullptr) {
  auto parser = InputParser::Create(format, kNames, kTypes);
  if (!parser.ok()) return Describe(parser.status());
  InputLimits limits{max_rows, max_bytes};
  std::string pending, out;
  size_t fed = 0, offset = 0, blocks = 0;
  while (true) {
    bool last = fed == data.size();
    size_t consumed;
    auto block = parser->Parse(std::string_view(pending).substr(offset), last, limits, &consumed);
    if (!block.ok()) return Describe(block.status());
    if (block->rows() > 0) {
      ++blocks;
      EXPECT_LE(block->rows(), max_rows);
      out += ToTsv(*block);
    }
    offset += consumed;
    if (last && offset == pending.size()) break;
    if (consumed == 0 || pending.size() - offset < max_bytes) {
      size_t take = std::min(piece, data.size() - fed);
      pending.append(data.substr(fed, take));
      fed += take;
    }
  }
  if (chunks != nullptr) *chunks = blocks;
  EXPECT_EQ(parser->rows(), static_cast<size_t>(std::count(out.begin(), out.end(), '\n')));
  return out;
}

// Parses `data` as the parallel insert does (insert_executor.cc's SendText): the first chunks
// with Parse until the parser can cut ahead, then each chunk found by CutAhead parsed by its own
// ChunkParser counting from 0, in reverse order of cutting (as a pool may finish them); an error
// is parsed again by a ChunkParser placed where its chunk starts. Returns what Chunked returns.
std::string CutAhead(std::string_view format, std::string_view data, size_t piece,
                     size_t max_rows, size_t max_bytes,
                     const std::vector<std::string>& names = kNames,
                     const std::vector<TypeId>& types = kTypes) {
  auto parser = InputParser::Create(format, names, types);
  if (!parser.ok()) return Describe(parser.status());
  InputLimits limits{max_rows, max_bytes};
  std::string pending, out;
  size_t fed = 0, offset = 0;
  struct Cut {
    std::string text;
    bool final;
  };
  std::vector<Cut> cuts;
  auto append = [&](const core::Block& block) {
    auto output = MakeOutputFormat("TSV");
    (*output)->Begin(names, types, &out);
    (*output)->Write(block, &out);
    (*output)->End(&out);
  };
  auto feed = [&] {
    size_t take = std::min(piece, data.size() - fed);
    pending.append(data.substr(fed, take));
    fed += take;
  };
  while (true) {
    bool last = fed == data.size();
    std::string_view rest = std::string_view(pending).substr(offset);
    if (parser->CanCutAhead()) {
      bool final;
      size_t cut = parser->CutAhead(rest, last, limits, &final);
      if (cut == 0 && !final) {
        if (last) return "no progress";
        feed();
        continue;
      }
      cuts.push_back({std::string(rest.substr(0, cut)), final});
      offset += cut;
      if (last && offset == pending.size()) break;
      if (pending.size() - offset < max_bytes) feed();
      continue;
    }
    size_t consumed;
    auto block = parser->Parse(rest, last, limits, &consumed);
    if (!block.ok()) return Describe(block.status());
    if (block->rows() > 0) append(*block);
    offset += consumed;
    if (last && offset == pending.size()) break;
    if (consumed == 0 || pending.size() - offset < max_bytes) feed();
  }
  struct Parsed {
    absl::StatusOr<core::Block> block;
    size_t rows = 0, lines = 0;
  };
  std::vector<Parsed> parsed(cuts.size());
  for (size_t i = cuts.size(); i-- > 0;) {
    InputParser chunk_parser = parser->ChunkParser(0, 0);
    parsed[i].block = chunk_parser.ParseCut(cuts[i].text, cuts[i].final);
    parsed[i].rows = chunk_parser.rows();
    parsed[i].lines = chunk_parser.lines();
  }
  size_t rows = parser->rows(), lines = parser->lines();
  for (size_t i = 0; i < cuts.size(); ++i) {
    if (!parsed[i].block.ok()) {
      InputParser again = parser->ChunkParser(rows, lines);
      auto reparsed = again.ParseCut(cuts[i].text, cuts[i].final);
      EXPECT_FALSE(reparsed.ok());
      return Describe(reparsed.status());
    }
    if (parsed[i].block->rows() > 0) append(*parsed[i].block);
    rows += parsed[i].rows;
    lines += parsed[i].lines;
  }
  return out;
}

struct Case {
  const char* format;
  const char* data;
};

const Case kCases[] = {
    {"TSV", "1\tab\\tc\\nd\\\\\t2013-07-15\n2\t\\N\t\\N\n"},
    {"TSV", "1\tx\t2013-07-15\n2\ty\t2013-07-16\n3\tz\t2013-07-17"},
    {"TSV", "1\tx\t2013-07-15\n\n\n"},
    {"TSV", "1\tline\\\nbreak\t2013-07-15\n2\tback\\\\\t2013-07-16\n3\t\\\\\\\n\t2013-07-17\n"},
    {"TSV", "1\ta\t2013-07-15\n2\tb\t2013-07-16\nabc\tc\t2013-07-17\n4\td\t2013-07-18\n"},
    {"TSV", "1\ta\t2013-07-15\n\n3\tc\t2013-07-15\n"},
    {"TSV", "1\ta\t2013-07-15\n2\tb\n3\tc\t2013-07-15\n"},
    {"TSV", "\xEF\xBB\xBF" "1\ta\t2013-07-15\n2\tb\t2013-07-16\n"},
    {"TSVRaw", "1\ta\\\t2013-07-15\n2\tb\t2013-07-16\n"},
    {"TSVWithNames", "day\tid\n2013-07-15\t1\n2013-07-16\t2\n2013-07-17\tx\n"},
    {"TSVWithNamesAndTypes", "id\tname\nUInt32\tString\n1\ta\n2\tb\n"},
    {"TSVWithNames", "id\tbogus\n1\t2\n"},
    {"CSV", "1,\"a\nb\",2013-07-15\n2,\"c\"\"d\",2013-07-16\r\n3,,2013-07-17\n"},
    {"CSV", "1,\"multi\nline\nfield\",2013-07-15\n2,x,2013-07-16\n3,y,bad-date\n4,z,\n"},
    {"CSV", "1,a,2013-07-15\n2,\"b\"x,2013-07-16\n3,c,2013-07-17\n"},
    {"CSV", "1,a,2013-07-15\n2,\"never closed,2013-07-16\n3,c,2013-07-17\n"},
    {"CSV", "1,a,2013-07-15\r\n2,b,2013-07-16\r\n\r\n"},
    {"CSVWithNames", "name,id\n\"x\ny\",1\nz,2\n\"w\",q\n"},
    {"CSVWithNamesAndTypes", "id,name\nUInt32,String\n1,a\n2,\"b\nc\"\n"},
    {"JSONEachRow", "{\"id\": 1, \"name\": \"a}{\\\"\"}\n{\"id\": 2, \"day\": \"2013-07-15\"}\n"},
    {"JSONEachRow", "[{\"id\": 1},\n {\"id\": 2, \"name\": {\"x\": [1, 2]}},\n {\"id\": 3}]\n"},
    {"JSONEachRow", "[{\"id\": 1},\n {\"id\": 2}\n"},
    // The unclosed array's last row ends the data: a chunk cut after it must still report the
    // missing ']' (found by fuzz/input_json_each_row).
    {"JSONEachRow", "[{\"id\": 1},\n {\"id\": 2}"},
    {"JSONEachRow", "{\"id\": 1}\n{\"id\": 2}\n{\"id\": \"x\"}\n{\"id\": 4}\n"},
    {"JSONEachRow", "{\"id\": 1}\n{\"id\": 2, \"nope\": 1}\n"},
    {"JSONEachRow", "{\"id\": 1}\nxyz\n{\"id\": 2}\n"},
    {"JSONEachRow", "{\"id\": 1}\n{\"id\": 2\n"},
    // A bare value with a quote or a bracket in it: rows are cut by their braces outside
    // strings, so the parser must not read it as one value (found by fuzz/input_json_each_row).
    {"JSONEachRow", "{\"name\": ab\"x, \"id\": \"1]\"}\n{\"id\": 2}\n"},
    {"JSONEachRow", "{\"name\": a{b}\n{\"id\": 2}\n"},
};

TEST(InputParserChunksTest, EveryPieceAndChunkSizeGivesTheWholeTextResult) {
  for (const Case& c : kCases) {
    const std::string expected = Whole(c.format, c.data);
    for (size_t piece : {1, 2, 3, 7, 1000}) {
      for (size_t max_rows : {1, 2, 3}) {
        for (size_t max_bytes : {1, 10, 1 << 20}) {
          EXPECT_EQ(Chunked(c.format, c.data, piece, max_rows, max_bytes), expected)
              << c.format << " " << testing::PrintToString(std::string(c.data)) << " piece "
              << piece << " rows " << max_rows << " bytes " << max_bytes;
        }
      }
    }
  }
}

TEST(InputParserChunksTest, ChunksCutAheadAndParsedApartGiveTheWholeTextResult) {
  for (const Case& c : kCases) {
    const std::string expected = Whole(c.format, c.data);
    for (size_t piece : {1, 3, 1000}) {
      for (size_t max_rows : {1, 2, 3}) {
        for (size_t max_bytes : {1, 10, 1 << 20}) {
          EXPECT_EQ(CutAhead(c.format, c.data, piece, max_rows, max_bytes), expected)
              << c.format << " " << testing::PrintToString(std::string(c.data)) << " piece "
              << piece << " rows " << max_rows << " bytes " << max_bytes;
        }
      }
    }
  }
}

TEST(InputParserChunksTest, BlankRowsAtAChunkEndStayRows) {
  // With one String column a blank line is a row (''), also where a chunk ends; only blank lines
  // at the very end of the text are dropped.
  const std::vector<std::string> names = {"s"};
  const std::vector<TypeId> types = {TypeId::kString};
  for (const char* format : {"TSV", "CSV"}) {
    const std::string data = "a\n\n\nb\n\n";
    auto whole = ParseInput(format, data, names, types);
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_EQ(whole->rows(), 4u) << format;
    auto output = MakeOutputFormat("TSV");
    std::string expected;
    (*output)->Begin(names, types, &expected);
    (*output)->Write(*whole, &expected);
    (*output)->End(&expected);
    for (size_t max_rows : {1, 2, 3}) {
      EXPECT_EQ(CutAhead(format, data, 1000, max_rows, 1 << 20, names, types), expected)
          << format << " rows " << max_rows;
    }
  }
}

TEST(InputParserChunksTest, ChunksHoldAtMostTheLimit) {
  std::string tsv;
  for (int i = 0; i < 1000; ++i) tsv += std::to_string(i) + "\tname" + std::to_string(i) + "\t2020-01-01\n";
  size_t chunks = 0;
  EXPECT_EQ(Chunked("TSV", tsv, 4096, 100, 1 << 20, &chunks), Whole("TSV", tsv));
  EXPECT_EQ(chunks, 10u);
  // A byte limit ends the chunk after the row that reaches it.
  EXPECT_EQ(Chunked("TSV", tsv, 4096, 1 << 20, 2000, &chunks), Whole("TSV", tsv));
  EXPECT_GE(chunks, tsv.size() / 2100);
  EXPECT_LE(chunks, tsv.size() / 2000 + 1);
}

TEST(InputParserChunksTest, ErrorsInALaterChunkNameTheGlobalLine) {
  std::string csv;
  for (int i = 1; i <= 50; ++i) {
    csv += i == 37 ? "12x4,\"bad\",2020-01-01\n" : std::to_string(i) + ",\"a\nb\",2020-01-01\n";
  }
  std::string error = Chunked("CSV", csv, 64, 5, 1 << 20);
  EXPECT_EQ(error, Whole("CSV", csv));
  EXPECT_NE(error.find("row 37, line 73"), std::string::npos) << error;
  EXPECT_EQ(CutAhead("CSV", csv, 64, 5, 1 << 20), error);
}

TEST(InputParserChunksTest, UnknownFormat) {
  EXPECT_EQ(core::CodeOf(InputParser::Create("ORC", kNames, kTypes).status()),
            core::ErrorCode::kUnknownFormat);
}

}  // namespace
}  // namespace granite::coordinator

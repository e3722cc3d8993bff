// Input formats: parse the rows of an INSERT (INSERT INTO t FORMAT x <data>, or an HTTP body)
// into Blocks whose columns have the table's (or the column list's) types, in order.
// InputParser parses the text chunk by chunk (a bounded number of rows or bytes at a time, never
// splitting a row), so an INSERT of any size needs memory for one chunk only; ParseInput parses
// a whole text at once.
//
// Formats (names case-sensitive like ClickHouse):
// - TabSeparated / TSV: fields split by '\t', rows by '\n'; escapes \\ \t \n \r \0 \b \f \a \v
//   \' \" \/ \xHH are decoded as ClickHouse does; a field that is exactly \N (NULL) becomes the
//   column's default value, since granite has no Nullable. TSVRaw / TabSeparatedRaw: no escapes.
// - CSV: fields split by ','; a field may be "quoted" with "" standing for '"' and may contain
//   newlines; unquoted fields are trimmed of spaces and tabs; rows end with \n or \r\n. An empty
//   field, or unquoted \N, of a non-String column becomes the default value (ClickHouse's
//   input_format_csv_empty_as_default).
// - JSONEachRow: objects {"name": value, ...}, separated by whitespace or commas, optionally
//   wrapped in [ ]; keys name columns; a missing key or null gives the default value; an unknown
//   or repeated key is an error (INCORRECT_DATA); numbers may be quoted ("5"), strings accept
//   numbers, true / false, and nested objects / arrays as their raw text; true / false in a number
//   column are 1 / 0.
// - TSVWithNames, TSVWithNamesAndTypes, CSVWithNames, CSVWithNamesAndTypes (and the
//   TabSeparated... spellings): the first line names the columns of the data, mapped by name like
//   ClickHouse's input_format_with_names_use_header; columns not named get default values; the
//   types line is skipped.
// - Native: ClickHouse's binary blocks (native_input.h), as clickhouse-connect sends inserts.
// - ArrowStream / Arrow: Arrow IPC stream or file (arrow_input.h), as insert_arrow sends them.
// - Parquet: a whole Parquet file (parquet_input.h), read row group by row group once all of
//   it arrived.
// In every text format, blank lines at the very end of the data are ignored.
//
// Default values: 0 for numbers, "" for String, 1970-01-01 (00:00:00) for Date (DateTime).
//
// Errors name the 1-based data row, the line where that row starts, the column (1-based number
// and name) and the offending text, e.g.
//   Cannot parse "abc" as UInt32: (at row 17, line 18, column 2 'b')
//   Cannot parse input: expected '\t' before: '\n': (at row 3, line 3, column 1 'a') (the row
//     has 1 of 2 columns)
// Codes: CANNOT_PARSE_TEXT for a bad value, CANNOT_PARSE_INPUT_ASSERTION_FAILED for bad structure,
// INCORRECT_DATA for unknown or repeated JSON keys and header names, UNKNOWN_FORMAT.
// On error nothing is returned but the Status: the insert fails as a whole.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/arrow_input.h"
#include "coordinator/formats/input_progress.h"
#include "coordinator/formats/parquet_input.h"
#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

// Returns true if `format` names an input format ParseInput understands.
bool IsInputFormat(std::string_view format);

// Parses input text chunk by chunk: headers are read once, rows and lines in errors count from
// the start of the whole text, and a row (a CSV quoted field may hold newlines, a JSON object
// many lines) is never split between chunks.
// Thread-safety: none; one parser per insert.
class InputParser {
 public:
  // Fails with UNKNOWN_FORMAT. REQUIRES: names.size() == types.size().
  static absl::StatusOr<InputParser> Create(std::string_view format,
                                            std::vector<std::string> names,
                                            std::vector<core::TypeId> types);

  // Parses whole rows from the front of `data`, at most `limits` of them, into a block (possibly
  // of 0 rows when `data` holds no whole row yet) and sets *consumed to the bytes used. The caller
  // passes the unconsumed rest again, followed by more text. `last` says no text follows `data`:
  // then a final row without a line end is whole and trailing blank lines are ignored; the text
  // is all parsed once a call with `last` consumes all of `data`.
  absl::StatusOr<core::Block> Parse(std::string_view data, bool last, const InputLimits& limits,
                                    size_t* consumed);

  // Chunks cut ahead, for parsing them on several threads at once (exec/insert_executor.cc): once
  // the first chunk was parsed (headers, byte order mark, a JSON array's '['), a text format's
  // later chunks can be found without parsing them (CutAhead) and parsed each by its own copy of
  // the parser (ChunkParser) in any order. The chunks are exactly the ones Parse would cut.
  //
  // Returns true when CutAhead may be called: a text format whose first chunk was parsed.
  bool CanCutAhead() const;
  // Returns where the next chunk of `data` ends, as Parse with these arguments would cut it, and
  // sets *final like CutChunk (input_progress.h); 0 with !*final: no whole row yet.
  // REQUIRES: CanCutAhead().
  size_t CutAhead(std::string_view data, bool last, const InputLimits& limits, bool* final) const;
  // Returns a copy of this parser that counts rows and lines from `rows` and `lines` (the data
  // rows and lines before the chunk it parses, for the positions its errors name); it parses a
  // chunk from CutAhead with ParseCut.
  InputParser ChunkParser(size_t rows, size_t lines) const;
  // Parses all of `chunk`, one whole chunk from CutAhead; `final` as CutAhead set it.
  absl::StatusOr<core::Block> ParseCut(std::string_view chunk, bool final);

  // Per column, the rows of the block the last Parse returned whose field the input left out
  // (InputBlockBuilder::AppendOmitted); empty when none was.
  const std::vector<std::vector<uint32_t>>& omitted() const { return omitted_; }
  // Returns the data rows parsed so far.
  size_t rows() const { return progress_.rows; }
  // Returns the lines consumed so far (as the format counts them; errors name them).
  size_t lines() const { return progress_.lines; }
  // input_format_null_as_default: a NULL read for a column that is not Nullable becomes its
  // default (true, ClickHouse's default) or fails with CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN.
  void set_null_as_default(bool value) { null_as_default_ = value; }
  // Per column, whether its fields are taken without the format's escaping
  // (InputBlockBuilder::set_verbatim).
  void set_verbatim(std::vector<bool> verbatim) { verbatim_ = std::move(verbatim); }

 private:
  enum class Kind { kTabSeparated, kTabSeparatedRaw, kCsv, kJsonEachRow, kNative, kArrow, kParquet };
  InputParser(Kind kind, int header_lines, std::vector<std::string> names,
              std::vector<core::TypeId> types)
      : kind_(kind), header_lines_(header_lines), names_(std::move(names)),
        types_(std::move(types)) {}

  Kind kind_;
  int header_lines_;
  std::vector<bool> verbatim_;
  std::vector<std::string> names_;
  std::vector<core::TypeId> types_;
  bool null_as_default_ = true;
  bool bom_checked_ = false;
  InputProgress progress_;
  std::shared_ptr<ArrowInputState> arrow_;  // kArrow: the schema read so far
  std::shared_ptr<ParquetInputState> parquet_;  // kParquet: the footer and the next row group
  std::vector<std::vector<uint32_t>> omitted_;
};

// Parses all rows of `data` in `format` into a block with one column per name, of `types`.
// REQUIRES: names.size() == types.size().
absl::StatusOr<core::Block> ParseInput(std::string_view format, std::string_view data,
                                       const std::vector<std::string>& names,
                                       const std::vector<core::TypeId>& types);

}  // namespace granite::coordinator

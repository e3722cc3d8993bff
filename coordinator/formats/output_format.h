// Output formats: turn the result blocks of a query into the bytes a client asked for
// (FORMAT x / output_format). The coordinator calls Begin once with the result's column names and
// types, Write once per result block (appending to a buffer it may flush to the client between
// calls, so results stream), and End once.
//
// Supported names (case-sensitive like ClickHouse): TabSeparated (TSV), TabSeparatedRaw (TSVRaw),
// TabSeparatedWithNames (TSVWithNames), TabSeparatedWithNamesAndTypes (TSVWithNamesAndTypes),
// CSV, CSVWithNames, CSVWithNamesAndTypes, JSONEachRow, JSONCompactEachRow, JSON, JSONCompact,
// Pretty, PrettyCompact, PrettyCompactMonoBlock, Vertical, Values, Markdown, TSKV, RowBinary,
// RowBinaryWithNames, RowBinaryWithNamesAndTypes, Native, Arrow, ArrowStream, Parquet, Null.
//
// JSON formats quote 64-bit integers with output_format_json_quote_64bit_integers = 1 (off by
// default, as in ClickHouse 26), and JSON / JSONCompact end with a "statistics" object (elapsed,
// rows_read, bytes_read) unless output_format_write_statistics = 0.
//
// Deliberate differences from ClickHouse (which granite documents rather than hides):
// - JSON formats write nan and inf as null.
// - Pretty formats print ONE table for the whole result in End (ClickHouse prints one table per
//   block, which depends on block boundaries); like ClickHouse they stop after 10000 rows and say
//   "  Showed first 10000.". Control characters in strings are shown TSV-escaped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/output_options.h"
#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

// Writes result blocks in one output format.
// Thread-safety: none; one instance serves one query's result.
// REQUIRES: Begin is called once before any Write, End once after the last Write; every block
// passed to Write has one column per name given to Begin, of the matching type.
class OutputFormat {
 public:
  virtual ~OutputFormat() = default;

  // Returns an error when the format cannot write columns of these types (UNKNOWN_TYPE, as
  // ClickHouse); the caller asks before Begin. Default: every type is written.
  virtual absl::Status Accepts(const std::vector<std::string>& names,
                               const std::vector<core::TypeId>& types) const {
    return absl::OkStatus();
  }
  // Records the result's shape and appends any header (column names, JSON "meta", ...).
  virtual void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
                     std::string* out) = 0;
  // Appends the rows of `block`.
  virtual void Write(const core::Block& block, std::string* out) = 0;
  // Appends the WITH TOTALS row (one row, after the last Write, before End) where the format
  // shows one, as ClickHouse: TSV and CSV families after an empty line, JSON / JSONCompact as
  // "totals", Pretty formats as a second table after "Totals:". Default: not shown (JSONEachRow,
  // Values, Markdown, TSKV, the binary formats).
  virtual void WriteTotals(const core::Block& totals, std::string* out) {}
  // Appends the extremes (SETTINGS extremes = 1: two rows, each column's min then max; after
  // WriteTotals, before End) where the format shows them, as ClickHouse: TSV and CSV families
  // after an empty line, JSON / JSONCompact as "extremes" {"min", "max"}, Pretty formats as a
  // table after "Extremes:". Default: not shown.
  virtual void WriteExtremes(const core::Block& extremes, std::string* out) {}
  // Appends whatever closes the output (JSON footer, the buffered Pretty table, ...).
  virtual void End(std::string* out) = 0;
  // Returns the HTTP Content-Type ClickHouse sends for this format.
  virtual std::string_view ContentType() const { return "text/plain; charset=UTF-8"; }

  // What the query read, for formats that report it (JSON's "statistics"); set before End.
  struct Statistics {
    double elapsed_seconds = 0;
    uint64_t rows_read = 0;
    uint64_t bytes_read = 0;
  };
  void set_statistics(const Statistics& statistics) { statistics_ = statistics; }

 protected:
  Statistics statistics_;
};

// Returns a new writer for format `name`, or Error(kUnknownFormat, "Unknown format Foo").
absl::StatusOr<std::unique_ptr<OutputFormat>> MakeOutputFormat(std::string_view name,
                                                               const OutputOptions& options = {});

}  // namespace granite::coordinator

// The column builder behind every input format (coordinator/formats/input_parser.h): owns the
// columns being filled, parses field text into them, tracks the row and line being parsed, and
// words the errors so that each names its position.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/column.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::coordinator {

// Accumulates parsed rows column by column.
// Thread-safety: none.
// Invariants: after a parser finishes a row, every column has exactly `rows parsed` values.
class InputBlockBuilder {
 public:
  // REQUIRES: names.size() == types.size().
  InputBlockBuilder(const std::vector<std::string>& names, const std::vector<core::TypeId>& types);

  size_t column_count() const { return columns_.size(); }
  core::TypeId type(size_t column) const { return types_[column]; }
  // Columns whose text fields are taken as they stand, without a text format's own escaping
  // (a Tuple or Map column read as text: its strings carry quoted-string escapes, as arrays').
  void set_verbatim(const std::vector<bool>& verbatim) { verbatim_ = verbatim; }
  bool verbatim(size_t column) const { return column < verbatim_.size() && verbatim_[column]; }
  const std::string& name(size_t column) const { return names_[column]; }

  // Sets the data row (1-based) and the line it starts on (1-based) named by errors.
  void SetPosition(size_t row, size_t line) {
    row_ = row;
    line_ = line;
  }

  // Parses `text` as a value of column `column` and appends it; on failure returns
  // CANNOT_PARSE_TEXT naming the text, type and position.
  absl::Status AppendText(size_t column, std::string_view text);
  // Appends the column's default value (0, "", 1970-01-01; NULL for a Nullable column).
  void AppendDefault(size_t column);
  // The same for a field the input left out (a JSON key, a column a WithNames header lacks); the
  // row is recorded, so that INSERT computes the column's DEFAULT expression for it instead
  // (ClickHouse's input_format_defaults_for_omitted_fields).
  void AppendOmitted(size_t column);
  // Per column, the rows (0-based, in append order) that AppendOmitted filled.
  const std::vector<std::vector<uint32_t>>& omitted() const { return omitted_; }
  // Appends a NULL read from the input (\N): NULL in a Nullable column; in another column its
  // default when null_as_default (input_format_null_as_default), else
  // CANNOT_PARSE_INPUT_ASSERTION_FAILED naming the position, as ClickHouse.
  absl::Status AppendNull(size_t column);
  void set_null_as_default(bool value) { null_as_default_ = value; }

  // Appends a column decoded by a binary format (Arrow, Parquet) to column `column`, converted
  // to its type like CAST; its NULLs stay NULLs in a Nullable column, else become defaults
  // (input_format_null_as_default) or CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN.
  absl::Status AppendConverted(size_t column, core::Column decoded);
  // Returns column `column` for binary formats, which append decoded values directly.
  // REQUIRES: they keep the invariant (every column the same number of rows after a row).
  core::Column* column(size_t column) { return columns_[column].get(); }

  // Returns the index of the column called `name`, or -1.
  int FindColumn(std::string_view name) const;

  // Maps the column names of a WithNames header to columns; fails on an unknown or repeated name.
  absl::StatusOr<std::vector<int>> MapHeader(const std::vector<std::string>& header);
  // Appends defaults to the columns that `field_to_column` (from MapHeader) does not fill, as
  // omitted fields (AppendOmitted).
  void AppendDefaultsForUnmapped(const std::vector<int>& field_to_column);

  // Returns CANNOT_PARSE_INPUT_ASSERTION_FAILED: "Cannot parse input: expected <expected> before:
  // '<rest...>': <position>" followed by ` (note)` if `note` is not empty. `column` may be -1.
  absl::Status ExpectedError(std::string_view expected, std::string_view rest, int column,
                             std::string_view note) const;
  // Returns `code` with "<message>: <position>".
  absl::Status PositionError(core::ErrorCode code, std::string_view message, int column) const;
  // Returns "(at row R, line L, column C 'name')"; the column part only when column >= 0.
  std::string Where(int column) const;

  // Returns the block of all rows appended.
  core::Block Finish();

 private:
  // Constant after construction.
  std::vector<std::string> names_;
  std::vector<core::TypeId> types_;
  std::vector<bool> verbatim_;
  absl::flat_hash_map<std::string, int> index_;
  // The columns being filled.
  std::vector<std::shared_ptr<core::Column>> columns_;
  std::vector<std::vector<uint32_t>> omitted_;
  bool null_as_default_ = true;
  // Current position, for errors.
  size_t row_ = 0;
  size_t line_ = 0;
};

}  // namespace granite::coordinator

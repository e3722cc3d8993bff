// KeyExpression: one expression of a table's PARTITION BY / ORDER BY / PRIMARY KEY clause, as the
// coordinator stores it (ClickHouse's display name: "EventDate", "toYYYYMM(EventDate)",
// "intDiv(UserID, 100)"), parsed and compiled with core::Expression over the table's columns.
// Storage evaluates it on inserted blocks (partitioning and sorting) and on single values
// (turning a range of a column into a range of partitions while pruning).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/expression.h"
#include "core/value.h"
#include "storage/table_schema.h"

namespace granite::storage {

// A compiled key expression.
// Thread-safety: immutable after Parse; all methods may be called concurrently.
class KeyExpression {
 public:
  // Parses `text` — a column name, an integer or 'string' literal, or name(arg, ...) — and
  // compiles it against `schema`'s columns.
  // Errors: SYNTAX_ERROR naming the position; UNKNOWN_IDENTIFIER for a column that is not in the
  // table; the function registry's errors (UNKNOWN_FUNCTION, ILLEGAL_TYPE_OF_ARGUMENT, ...).
  static absl::StatusOr<std::shared_ptr<const KeyExpression>> Parse(std::string_view text,
                                                                     const TableSchema& schema);

  const std::string& text() const { return text_; }
  core::TypeId type() const { return type_; }
  // Returns the schema index of the column when the expression is just that column, else -1.
  int plain_column() const { return plain_column_; }
  // Returns the schema index of the one column the expression reads, or -1 if it reads none or
  // several.
  int source_column() const { return source_column_; }
  // True when the value never decreases as source_column() grows (a plain column, or a function
  // like toYYYYMM, toDate, toStartOfMonth, intDiv(x, positive constant) of one).
  bool monotonic() const { return monotonic_; }

  // Returns the expression's value for every row of `table_block` (all columns, schema order).
  absl::StatusOr<core::ColumnPtr> Evaluate(const core::Block& table_block) const;

  // Returns the expression's value when source_column() holds `value` (in GranuleBounds form).
  // REQUIRES: source_column() >= 0.
  // Errors: the value does not fit the column's type; kernel errors.
  absl::StatusOr<core::Value> EvaluateAt(const core::Value& value) const;

 private:
  KeyExpression() = default;

  // Constant after construction.
  std::string text_;
  core::TypeId type_ = core::TypeId::kUInt8;
  int plain_column_ = -1;
  int source_column_ = -1;
  core::TypeId source_type_ = core::TypeId::kUInt8;
  bool monotonic_ = false;
  std::shared_ptr<const core::Expression> over_table_;   // columns by schema index
  std::shared_ptr<const core::Expression> over_source_;  // the source column as column 0
};

// Returns the value at `row` of `column` in GranuleBounds form (int64 / uint64 / double / string).
core::Value ValueAt(const core::Column& column, size_t row);

}  // namespace granite::storage

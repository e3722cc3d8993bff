// PartSplitter: turns the rows of one insert into the blocks of its new parts — one per value of
// the table's PARTITION BY expression, each sorted by the table's sort key (ORDER BY, else
// PRIMARY KEY) — and sorts the rows of a merge the same way. Rows with equal keys keep their
// input order (the sort is stable), so a merge keeps the insertion order of its sources.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "storage/key_expression.h"
#include "storage/part_writer.h"
#include "storage/table_schema.h"

namespace granite::storage {

// Partitions and sorts blocks of one table.
// Thread-safety: immutable after Create; all methods may be called concurrently.
class PartSplitter {
 public:
  // Compiles the table's PARTITION BY and sort key expressions. A sort key expression that does
  // not compile (a function granite lacks) ends the key: rows are sorted by the prefix before it,
  // which is still an order of the full key. A PARTITION BY that does not compile is an error
  // when `strict` (CREATE TABLE), else ignored (opening a table stored by an older version).
  // Errors: those of KeyExpression::Parse, prefixed with the clause.
  static absl::StatusOr<std::shared_ptr<const PartSplitter>> Create(const TableSchema& schema,
                                                                    bool strict);

  // One new part: its rows (schema order) and description.
  struct Piece {
    core::Block block;
    PartDescription description;
  };

  // Splits `block` (schema order) into one piece per partition, in ascending partition order,
  // each sorted by the sort key. A block of 0 rows gives no piece.
  // Errors: kernel errors of the key expressions (e.g. a value out of a function's range).
  absl::StatusOr<std::vector<Piece>> Split(const core::Block& block) const;

  // Sorts `block`, whose rows all belong to `partition`, by the sort key.
  absl::StatusOr<Piece> Sort(const core::Block& block, const PartitionValue& partition) const;

  // Returns the partition expression, or null when the table has no PARTITION BY.
  const KeyExpression* partition_key() const { return partition_key_.get(); }
  const std::vector<std::shared_ptr<const KeyExpression>>& sort_key() const { return sort_key_; }

 private:
  PartSplitter() = default;

  // Evaluates the sort key, sorts `block` and its key columns by (`prefix`, key); `prefix` is the
  // partition column or null.
  absl::StatusOr<Piece> SortWith(const core::Block& block, core::ColumnPtr prefix,
                                 core::ColumnPtr* sorted_prefix) const;

  // Constant after construction.
  std::shared_ptr<const KeyExpression> partition_key_;
  std::vector<std::shared_ptr<const KeyExpression>> sort_key_;
  std::vector<std::string> sort_key_text_;
};

}  // namespace granite::storage

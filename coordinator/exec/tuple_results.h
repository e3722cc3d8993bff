// Tuples in a top-level SELECT's result: `SELECT (a, b) AS t, tuple(1, 'x') FROM ...`. Workers
// never compute a tuple (core/tuple_type.h); instead the SELECT runs with each tuple item split
// into its elements (nested tuples flattened) as hidden columns, and the coordinator puts the
// tuple columns together from them at the end, in the result sink as rows stream or in the
// final block. References to a tuple item's alias elsewhere in the SELECT (WHERE t = (1, 2),
// ORDER BY t) are replaced by the tuple itself, and a tuple in ORDER BY or GROUP BY is its
// elements (ExpandTupleKeys), as ClickHouse orders and groups tuples element by element. A Map
// value (mapFromArrays(keys, values), planner/compound_columns.h) is a tuple of its two arrays
// that comes out typed Map(K, V); an array of tuples (arrayZip(a, b)) the tuple of its elements'
// arrays that comes out typed Array(Tuple(...)).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/types.h"
#include "coordinator/exec/result_sink.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// One output column: a column of the split SELECT's result, or a tuple of such shapes.
struct TupleShape {
  bool tuple = false;
  size_t column = 0;                 // !tuple: its index in the split result
  std::vector<TupleShape> elements;  // tuple: its elements
  bool map = false;                  // a Map: elements are its keys' and values' arrays
  bool array = false;                // an Array(Tuple(...)) (arrayZip): elements are arrays
  std::vector<std::string> names;    // a named tuple's element names
};

struct TupleSplit {
  sql::SelectStatement select;      // the SELECT with tuple items as their elements
  std::vector<TupleShape> outputs;  // per item of the original select list
  std::vector<std::string> names;   // per item: its output column name
};

// Returns `select` with every tuple in ORDER BY and GROUP BY written as its elements
// (ORDER BY (a, b) DESC is ORDER BY a DESC, b DESC).
sql::SelectStatement ExpandTupleKeys(sql::SelectStatement select);

// Returns the split of `select` when an item of its select list is a tuple (directly or as an
// alias of one), else nullopt. REQUIRES: `select` has no UNION / INTERSECT / EXCEPT operands.
std::optional<TupleSplit> SplitSelectTuples(const sql::SelectStatement& select);

// Returns the split of a UNION / INTERSECT / EXCEPT whose operands' select lists hold tuples
// (directly or as aliases): each operand split alike, the first's shapes and names for the
// result; nullopt when no operand has a tuple item, or an operand has operands of its own.
// REQUIRES: the operands' compound columns are expanded (planner/compound_columns.h).
// Errors: NOT_IMPLEMENTED when the operands' tuples differ in shape.
absl::StatusOr<std::optional<TupleSplit>> SplitSetOperationTuples(
    const sql::SelectStatement& select);

// The output types of a split whose SELECT returned `types`. Errors: LIMIT_EXCEEDED from
// core::MakeTupleType; ILLEGAL_TYPE_OF_ARGUMENT for a map whose keys or values are no arrays.
absl::StatusOr<std::vector<core::TypeId>> TupleOutputTypes(const TupleSplit& split,
                                                          const std::vector<core::TypeId>& types);

// Returns the output block of `block`, a block of the split SELECT's result.
// REQUIRES: `types` came from TupleOutputTypes for this split. Errors:
// SIZES_OF_ARRAYS_DONT_MATCH when an array of tuples (arrayZip) gets arrays of unequal sizes.
absl::StatusOr<core::Block> AssembleTuples(const TupleSplit& split,
                                           const std::vector<core::TypeId>& types,
                                           const core::Block& block);

// A result sink that puts the tuples together and passes the rows on to `next`.
class TupleResultSink : public ResultSink {
 public:
  TupleResultSink(const TupleSplit* split, ResultSink* next) : split_(split), next_(next) {}
  absl::Status Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
                     const std::string& format) override;
  absl::StatusOr<bool> Push(const core::Block& block) override;

 private:
  const TupleSplit* split_;
  ResultSink* next_;
  std::vector<core::TypeId> types_;  // the output types, from Begin
};

}  // namespace granite::coordinator

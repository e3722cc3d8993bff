// Table functions (FROM numbers(10), FROM zeros_mt(1e6), FROM generate_series(1, 9, 2)): the one
// registry that knows every table function, what it takes and what it yields. The coordinator's
// binder asks it to bind the arguments of a FROM f(...) and for the output columns; the plan
// carries the function's canonical name and bound arguments (plan.proto, TableFunctionSource); a
// worker asks it for the rows of its slice, morsel by morsel (worker/morsel_source.h).
//
// A table function is a sequence of `rows` rows; row i is computed from i alone, so the rows are
// sliced across workers by contiguous ranges (SliceOf) and a slice is produced in morsels of any
// size without listing them, whatever the row count (up to 2^64 - 1).
//
// Adding a table function touches one file: a file core/table_functions/<stem>.cc (any .cc here
// but table_function_registry.cc and tests) defines
//   std::vector<TableFunction> TableFunctions_<stem>();
// returning its definitions; core/CMakeLists.txt lists the files at configure time and the
// registry calls each of them once (table_function_registry.cc).
//
// Thread-safety: the registry is built once on first use and read-only afterwards; every function
// here is safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::core {

// The arguments of a call after binding, as the plan carries them (TableFunctionSource.args).
using TableFunctionArgs = std::vector<uint64_t>;

struct TableFunctionColumn {
  std::string_view name;
  TypeId type;
  // Known values of the column: every value lies in [min, max], and (when `distinct`) no two rows
  // share a value, so workers' slices hold disjoint values (coordinator/planner/distinct_planner.h).
  struct Range {
    uint64_t min = 0;
    uint64_t max = 0;
  };
  // Returns the range of the column's values for `args`; nullopt when unknown or empty.
  std::optional<Range> (*range)(const TableFunctionArgs& args) = nullptr;
  bool distinct = false;
};

struct TableFunction {
  std::string_view name;  // canonical; matched case-insensitively
  std::vector<TableFunctionColumn> columns;
  // True: one thread produces the rows of a slice in order and workers' slices are concatenated
  // in worker order (numbers, zeros); false: morsels are produced in parallel (numbers_mt).
  bool ordered = true;
  // Checks the constant arguments of a call (literal values, in order) and returns the bound
  // ones. Errors follow ClickHouse: a wrong argument count -> kNumberOfArgumentsDoesntMatch; an
  // argument of the wrong type -> kIllegalTypeOfArgument; a bad value -> kBadArguments; each
  // names the function and the argument position. `name` is the canonical name.
  absl::StatusOr<TableFunctionArgs> (*bind)(std::string_view name, const std::vector<Value>& args);
  // Returns the number of rows. REQUIRES: `args` came from bind.
  uint64_t (*rows)(const TableFunctionArgs& args);
  // Returns column `column` of rows [begin, end). REQUIRES: begin <= end <= rows(args).
  ColumnPtr (*produce)(const TableFunctionArgs& args, size_t column, uint64_t begin, uint64_t end);
};

// Returns the table function called `name` (any case), or null.
const TableFunction* FindTableFunction(std::string_view name);

// Returns every registered table function, sorted by name.
std::vector<const TableFunction*> AllTableFunctions();

// Rows [begin, end) of `rows` that worker `index` of `count` produces: contiguous slices in
// worker order. REQUIRES: index < count.
struct RowSlice {
  uint64_t begin = 0;
  uint64_t end = 0;
};
RowSlice SliceOf(uint64_t rows, uint64_t index, uint64_t count);

// Helpers for bind functions.
// Returns an error unless min_args <= args.size() <= max_args, naming `name` and its `usage`.
absl::Status CheckArgumentCount(std::string_view name, std::string_view usage, size_t count,
                                size_t min_args, size_t max_args);
// Returns argument `i` (0-based) as a non-negative integer: an unsigned literal, a non-negative
// integral Float64 literal (1e8) below 2^64. Others (a string, a negative or fractional number)
// are kIllegalTypeOfArgument errors naming the function and position.
absl::StatusOr<uint64_t> UInt64Argument(std::string_view name, const std::vector<Value>& args,
                                        size_t i);

// Returns a UInt64 column of first + i * step for i in [begin, end) (wrapping modulo 2^64).
ColumnPtr ArithmeticSequence(uint64_t first, uint64_t step, uint64_t begin, uint64_t end);

}  // namespace granite::core

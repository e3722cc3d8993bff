// generate_series(start, stop[, step]): one UInt64 column `generate_series` holding start,
// start + step, ... up to and including stop (empty when start > stop), as in ClickHouse 24+;
// generateSeries is its other name. step >= 1, default 1. Bound arguments: {start, stop, step}.
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/table_functions/table_function.h"

namespace granite::core {

namespace {

absl::StatusOr<TableFunctionArgs> Bind(std::string_view name, const std::vector<Value>& args) {
  RETURN_IF_ERROR(CheckArgumentCount(
      name, absl::StrCat("2 or 3 arguments: ", ToAbsl(name), "(start, stop[, step])"), args.size(), 2, 3));
  TableFunctionArgs bound = {0, 0, 1};  // start, stop, step
  for (size_t i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(bound[i], UInt64Argument(name, args, i));
  }
  if (bound[2] == 0) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Argument 3 (step) of table function '", ToAbsl(name), "' must be at least 1"));
  }
  return bound;
}

uint64_t Rows(const TableFunctionArgs& a) {
  if (a[0] > a[1]) return 0;
  // (stop - start) / step + 1 rows; only 0..2^64-1 inclusive with step 1 overflows: saturate.
  const uint64_t steps = (a[1] - a[0]) / a[2];
  return steps == ~uint64_t{0} ? steps : steps + 1;
}

std::optional<TableFunctionColumn::Range> Range(const TableFunctionArgs& a) {
  const uint64_t rows = Rows(a);
  if (rows == 0) return std::nullopt;
  return TableFunctionColumn::Range{a[0], a[0] + (rows - 1) * a[2]};
}

ColumnPtr Produce(const TableFunctionArgs& a, size_t, uint64_t begin, uint64_t end) {
  return ArithmeticSequence(a[0], a[2], begin, end);
}

TableFunction GenerateSeries(std::string_view name) {
  return TableFunction{
      .name = name,
      .columns = {TableFunctionColumn{.name = "generate_series", .type = TypeId::kUInt64,
                                      .range = Range, .distinct = true}},
      .ordered = true,
      .bind = Bind,
      .rows = Rows,
      .produce = Produce,
  };
}

}  // namespace

std::vector<TableFunction> TableFunctions_generate_series() {
  return {GenerateSeries("generate_series"), GenerateSeries("generateSeries")};
}

}  // namespace granite::core

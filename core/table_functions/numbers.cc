// numbers / numbers_mt: one UInt64 column `number`, as in ClickHouse:
//   numbers(N)       0, 1, ..., N - 1
//   numbers(N, M)    N, N + 1, ..., N + M - 1 (the second argument is the count M)
//   numbers(N, M, S) the values of [N, N + M) with step S >= 1: ceil(M / S) rows
// Bound arguments: {offset, count, step}. numbers produces its rows in order; numbers_mt in
// parallel, in no particular order.
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/table_functions/table_function.h"

namespace granite::core {

namespace {

absl::StatusOr<TableFunctionArgs> Bind(std::string_view name, const std::vector<Value>& args) {
  RETURN_IF_ERROR(CheckArgumentCount(name, name == "numbers_mt" ? "1 to 3 arguments: numbers_mt(N[, M[, S]])"
                                                                : "1 to 3 arguments: numbers(N[, M[, S]])",
                                     args.size(), 1, 3));
  TableFunctionArgs bound = {0, 0, 1};  // offset, count, step
  for (size_t i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(uint64_t v, UInt64Argument(name, args, i));
    bound[args.size() == 1 ? 1 : i] = v;
  }
  if (bound[2] == 0) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Argument 3 (step) of table function '", ToAbsl(name), "' must be at least 1"));
  }
  return bound;
}

uint64_t Rows(const TableFunctionArgs& a) { return a[1] / a[2] + (a[1] % a[2] != 0 ? 1 : 0); }

std::optional<TableFunctionColumn::Range> Range(const TableFunctionArgs& a) {
  const uint64_t rows = Rows(a);
  if (rows == 0) return std::nullopt;
  const unsigned __int128 last = a[0] + static_cast<unsigned __int128>(rows - 1) * a[2];
  if (last > ~uint64_t{0}) return std::nullopt;  // the values wrap past 2^64
  return TableFunctionColumn::Range{a[0], static_cast<uint64_t>(last)};
}

ColumnPtr Produce(const TableFunctionArgs& a, size_t, uint64_t begin, uint64_t end) {
  return ArithmeticSequence(a[0], a[2], begin, end);
}

TableFunction Numbers(std::string_view name, bool ordered) {
  return TableFunction{
      .name = name,
      .columns = {TableFunctionColumn{.name = "number", .type = TypeId::kUInt64, .range = Range,
                                      .distinct = true}},
      .ordered = ordered,
      .bind = Bind,
      .rows = Rows,
      .produce = Produce,
  };
}

}  // namespace

std::vector<TableFunction> TableFunctions_numbers() {
  return {Numbers("numbers", true), Numbers("numbers_mt", false)};
}

}  // namespace granite::core

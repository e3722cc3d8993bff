// zeros / zeros_mt: N rows of one UInt8 column `zero` holding 0, as in ClickHouse (for tests and
// benchmarks of the machinery around a scan). Bound arguments: {N}.
#include "core/status_macros.h"
#include "core/table_functions/table_function.h"

namespace granite::core {

namespace {

absl::StatusOr<TableFunctionArgs> Bind(std::string_view name, const std::vector<Value>& args) {
  RETURN_IF_ERROR(CheckArgumentCount(name, "exactly 1 argument: the number of rows", args.size(),
                                     1, 1));
  ASSIGN_OR_RETURN(uint64_t count, UInt64Argument(name, args, 0));
  return TableFunctionArgs{count};
}

uint64_t Rows(const TableFunctionArgs& a) { return a[0]; }

std::optional<TableFunctionColumn::Range> Range(const TableFunctionArgs& a) {
  if (a[0] == 0) return std::nullopt;
  return TableFunctionColumn::Range{0, 0};
}

ColumnPtr Produce(const TableFunctionArgs&, size_t, uint64_t begin, uint64_t end) {
  auto column = std::make_shared<Column>(TypeId::kUInt8);
  column->Resize(end - begin);
  return column;
}

TableFunction Zeros(std::string_view name, bool ordered) {
  return TableFunction{
      .name = name,
      .columns = {TableFunctionColumn{.name = "zero", .type = TypeId::kUInt8, .range = Range}},
      .ordered = ordered,
      .bind = Bind,
      .rows = Rows,
      .produce = Produce,
  };
}

}  // namespace

std::vector<TableFunction> TableFunctions_zeros() {
  return {Zeros("zeros", true), Zeros("zeros_mt", false)};
}

}  // namespace granite::core

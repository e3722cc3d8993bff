// The table-function registry (table_function.h): collects the definitions of every
// core/table_functions/<stem>.cc file, listed at configure time in table_function_files.inc.
#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/table_functions/table_function.h"

namespace granite::core {

#define GRANITE_TABLE_FUNCTION_FILE(stem) std::vector<TableFunction> TableFunctions_##stem();
#include "core/table_functions/table_function_files.inc"
#undef GRANITE_TABLE_FUNCTION_FILE

namespace {

struct Registry {
  std::vector<TableFunction> functions;
  absl::flat_hash_map<std::string, const TableFunction*> by_name;  // lower-case name
};

const Registry& TheRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
#define GRANITE_TABLE_FUNCTION_FILE(stem)                             \
  for (TableFunction& f : TableFunctions_##stem()) r->functions.push_back(std::move(f));
#include "core/table_functions/table_function_files.inc"
#undef GRANITE_TABLE_FUNCTION_FILE
    std::sort(r->functions.begin(), r->functions.end(),
              [](const TableFunction& a, const TableFunction& b) { return a.name < b.name; });
    for (const TableFunction& f : r->functions) {
      r->by_name.emplace(absl::AsciiStrToLower(ToAbsl(f.name)), &f);
    }
    return r;
  }();
  return *registry;
}

}  // namespace

const TableFunction* FindTableFunction(std::string_view name) {
  const Registry& registry = TheRegistry();
  auto it = registry.by_name.find(absl::AsciiStrToLower(ToAbsl(name)));
  return it == registry.by_name.end() ? nullptr : it->second;
}

std::vector<const TableFunction*> AllTableFunctions() {
  std::vector<const TableFunction*> all;
  for (const TableFunction& f : TheRegistry().functions) all.push_back(&f);
  return all;
}

RowSlice SliceOf(uint64_t rows, uint64_t index, uint64_t count) {
  // [rows * i / n, rows * (i + 1) / n) without overflow for large row counts.
  auto bound = [&](uint64_t i) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(rows) * i / count);
  };
  return RowSlice{bound(index), bound(index + 1)};
}

absl::Status CheckArgumentCount(std::string_view name, std::string_view usage, size_t count,
                                size_t min_args, size_t max_args) {
  if (count >= min_args && count <= max_args) return absl::OkStatus();
  return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
               absl::StrCat("Table function '", ToAbsl(name), "' requires ", ToAbsl(usage), ", got ", count,
                            count == 1 ? " argument" : " arguments"));
}

absl::StatusOr<uint64_t> UInt64Argument(std::string_view name, const std::vector<Value>& args,
                                        size_t i) {
  const Value& v = args[i];
  if (const auto* u = std::get_if<uint64_t>(&v)) return *u;
  if (const auto* d = std::get_if<double>(&v);
      d != nullptr && *d >= 0 && *d < 18446744073709551616.0 && std::floor(*d) == *d) {
    return static_cast<uint64_t>(*d);
  }
  if (std::holds_alternative<std::string>(v)) {
    return Error(ErrorCode::kIllegalTypeOfArgument,
                 absl::StrCat("Illegal type String of argument ", i + 1, " of table function '",
                              ToAbsl(name), "': it must be a number"));
  }
  // A negative or fractional number (as ClickHouse: ILLEGAL_TYPE_OF_ARGUMENT).
  const std::string text = std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v))
                                                              : absl::StrCat(std::get<double>(v));
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("The value ", text, " of argument ", i + 1, " of table function '",
                            ToAbsl(name), "' is not representable as UInt64"));
}

ColumnPtr ArithmeticSequence(uint64_t first, uint64_t step, uint64_t begin, uint64_t end) {
  auto column = std::make_shared<Column>(TypeId::kUInt64);
  column->ResizeUninitialized(end - begin);
  uint64_t* data = column->Data<uint64_t>();
  uint64_t value = first + begin * step;
  for (uint64_t i = 0; i < end - begin; ++i, value += step) data[i] = value;
  return column;
}

}  // namespace granite::core

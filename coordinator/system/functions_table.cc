#include "coordinator/system/functions_table.h"

#include "core/aggregation/aggregate_function_factory.h"
#include "core/functions/function_registry.h"

namespace granite::coordinator {

using core::TypeId;

LocalTable BuildFunctionsTable() {
  LocalTable table;
  table.names = {"name", "is_aggregate", "case_insensitive", "alias_to", "origin"};
  table.types = {TypeId::kString, TypeId::kUInt8, TypeId::kUInt8, TypeId::kString,
                 TypeId::kString};
  std::vector<core::MutableColumnPtr> columns;
  for (TypeId type : table.types) columns.push_back(std::make_shared<core::Column>(type));
  size_t rows = 0;
  auto append = [&](const core::FunctionListing& f, bool aggregate) {
    columns[0]->AppendString(f.name);
    columns[1]->Append<uint8_t>(aggregate ? 1 : 0);
    columns[2]->Append<uint8_t>(f.case_insensitive ? 1 : 0);
    columns[3]->AppendString(f.alias_to);
    columns[4]->AppendString("System");
    ++rows;
  };
  for (const core::FunctionListing& f : core::ListScalarFunctions()) {
    // Internal functions the binder places in plans (__enumName, ...) are not for users.
    if (f.name.rfind("__", 0) == 0) continue;
    append(f, false);
  }
  for (const core::FunctionListing& f : core::ListAggregateFunctions()) append(f, true);
  table.block.rows_without_columns = rows;
  for (auto& column : columns) table.block.columns.push_back(std::move(column));
  return table;
}

}  // namespace granite::coordinator

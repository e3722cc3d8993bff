#include "coordinator/planner/distinct_planner.h"

#include <optional>
#include <string>
#include <vector>

#include "coordinator/planner/shard_local_aggregation.h"
#include "coordinator/planner/value_range.h"
#include "core/table_functions/table_function.h"
#include "core/types.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::TypeId;

namespace {

// Returns the column `name` of the table function `source` reads, or null.
const core::TableFunctionColumn* FunctionColumn(const pb::Source& source, const std::string& name) {
  if (!source.has_function()) return nullptr;
  const core::TableFunction* function = core::FindTableFunction(source.function().name());
  if (function == nullptr) return nullptr;
  for (const core::TableFunctionColumn& column : function->columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

// Returns the known ranges of the source columns: those a table function declares (`number` of
// numbers(N) is [0, N-1]).
std::vector<std::optional<ValueRange>> SourceRanges(const pb::Source& source) {
  std::vector<std::optional<ValueRange>> ranges(source.columns_size());
  const core::TableFunctionArgs args(source.function().args().begin(),
                                     source.function().args().end());
  for (int i = 0; i < source.columns_size(); ++i) {
    const core::TableFunctionColumn* column = FunctionColumn(source, source.columns(i));
    if (column == nullptr || column->range == nullptr) continue;
    if (std::optional<core::TableFunctionColumn::Range> range = column->range(args)) {
      ranges[i] = ValueRange{static_cast<__int128>(range->min), static_cast<__int128>(range->max)};
    }
  }
  return ranges;
}

// True when the values of `arg` on different workers are disjoint (header, rules a and b).
bool DisjointAcrossWorkers(const pb::Expr& arg, const pb::Source& source,
                           const pb::TableSchema* schema, size_t worker_count) {
  if (arg.node_case() != pb::Expr::kColumn ||
      static_cast<int>(arg.column()) >= source.columns_size()) {
    return false;
  }
  const std::string& column = source.columns(static_cast<int>(arg.column()));
  if (source.has_function()) {
    const core::TableFunctionColumn* declared = FunctionColumn(source, column);
    return declared != nullptr && declared->distinct;
  }
  return schema != nullptr && source.has_table() && source.table() == schema->name() &&
         IsWholeShardingKey(*schema, column, worker_count);
}

}  // namespace

void PlanBoundedAggregation(pb::Fragment* fragment, const pb::TableSchema* schema,
                            size_t worker_count, const core::Settings& settings) {
  if (!fragment->aggregate()) return;
  if (!settings.use_value_ranges) return;
  const pb::Source& source = fragment->source();
  std::vector<std::optional<ValueRange>> columns = SourceRanges(source);
  if (fragment->group_keys_size() == 1 &&
      core::IsInteger(static_cast<TypeId>(fragment->group_keys(0).type()))) {
    std::optional<ValueRange> range = RangeOf(fragment->group_keys(0), columns);
    if (range && range->Size() <= kDirectKeyMaxValues) {
      fragment->set_direct_key(true);
      fragment->set_direct_key_base(static_cast<uint64_t>(range->min));
    }
  }
  const uint64_t max_bits =
      fragment->group_keys_size() == 0 ? kBitmapMaxBits : kBitmapMaxBitsPerGroup;
  for (pb::AggregateCall& call : *fragment->mutable_aggregates()) {
    if (call.args_size() != 1) continue;
    const pb::Expr& arg = call.args(0);
    if (call.name() == "uniqExact" && core::IsInteger(static_cast<TypeId>(arg.type()))) {
      std::optional<ValueRange> range = RangeOf(arg, columns);
      if (range && range->Size() <= max_bits) {
        // The bit pattern of the minimum as the worker widens it (two's complement for signed).
        call.set_bitmap_base(static_cast<uint64_t>(range->min));
        call.set_bitmap_bits(static_cast<uint64_t>(range->Size()));
      }
    }
    if ((call.name() == "uniqExact" || call.name() == "uniq") &&
        DisjointAcrossWorkers(arg, source, schema, worker_count)) {
      call.set_disjoint_across_workers(true);
    }
  }
}

}  // namespace granite::coordinator

#include "coordinator/planner/rules/distinct_planner.h"

#include <optional>
#include <string>
#include <vector>

#include "coordinator/planner/rules/shard_local_aggregation.h"
#include "coordinator/planner/rules/value_range.h"
#include "core/table_functions/table_function.h"
#include "core/types.h"

namespace granite::coordinator {


using core::TypeId;

namespace {

// Returns the column `name` of the table function `source` reads, or null.
const core::TableFunctionColumn* FunctionColumn(const core::plan::Scan& source, const std::string& name) {
  if (!source.function) return nullptr;
  const core::TableFunction* function = core::FindTableFunction(source.function->name);
  if (function == nullptr) return nullptr;
  for (const core::TableFunctionColumn& column : function->columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

// Returns the known ranges of the source columns: those a table function declares (`number` of
// numbers(N) is [0, N-1]).
std::vector<std::optional<ValueRange>> SourceRanges(const core::plan::Scan& source) {
  std::vector<std::optional<ValueRange>> ranges(source.columns.size());
  if (!source.function) return ranges;
  const core::TableFunctionArgs& args = source.function->args;
  for (size_t i = 0; i < source.columns.size(); ++i) {
    const core::TableFunctionColumn* column = FunctionColumn(source, source.columns[i]);
    if (column == nullptr || column->range == nullptr) continue;
    if (std::optional<core::TableFunctionColumn::Range> range = column->range(args)) {
      ranges[i] = ValueRange{static_cast<__int128>(range->min), static_cast<__int128>(range->max)};
    }
  }
  return ranges;
}

// True when the values of `arg` on different workers are disjoint (header, rules a and b).
bool DisjointAcrossWorkers(const core::plan::Expr& arg, const core::plan::Scan& source,
                           const core::TableSchema* schema, size_t worker_count) {
  if (!arg.is_column() || arg.column >= source.columns.size()) return false;
  const std::string& column = source.columns[arg.column];
  if (source.function) {
    const core::TableFunctionColumn* declared = FunctionColumn(source, column);
    return declared != nullptr && declared->distinct;
  }
  return schema != nullptr && source.is_table() && source.table == schema->name &&
         IsWholeShardingKey(*schema, column, worker_count);
}

}  // namespace

bool ApplyDirectKey(QueryPlan* plan, const RuleContext& context) {
  core::plan::Fragment& fragment = plan->fragment;
  if (!fragment.aggregate || !plan->settings.use_value_ranges) return false;
  core::plan::Aggregate& aggregate = *fragment.aggregate;
  if (aggregate.keys.size() != 1 || !core::IsInteger(aggregate.keys[0].type)) return false;
  std::optional<ValueRange> range = RangeOf(aggregate.keys[0], SourceRanges(fragment.scan));
  if (!range || range->Size() > kDirectKeyMaxValues) return false;
  aggregate.direct_key = true;
  aggregate.direct_key_base = static_cast<uint64_t>(range->min);
  return true;
}

bool ApplyDistinctBitmap(QueryPlan* plan, const RuleContext& context) {
  core::plan::Fragment& fragment = plan->fragment;
  if (!fragment.aggregate || !plan->settings.use_value_ranges) return false;
  std::vector<std::optional<ValueRange>> columns = SourceRanges(fragment.scan);
  const uint64_t max_bits =
      fragment.aggregate->keys.empty() ? kBitmapMaxBits : kBitmapMaxBitsPerGroup;
  bool fired = false;
  for (core::plan::AggregateCall& call : fragment.aggregate->calls) {
    if (call.args.size() != 1 || call.name != "uniqExact") continue;
    const core::plan::Expr& arg = call.args[0];
    if (!core::IsInteger(arg.type)) continue;
    std::optional<ValueRange> range = RangeOf(arg, columns);
    if (!range || range->Size() > max_bits) continue;
    // The bit pattern of the minimum as the worker widens it (two's complement for signed).
    call.bitmap_base = static_cast<uint64_t>(range->min);
    call.bitmap_bits = static_cast<uint64_t>(range->Size());
    fired = true;
  }
  return fired;
}

bool ApplyDisjointDistinct(QueryPlan* plan, const RuleContext& context) {
  core::plan::Fragment& fragment = plan->fragment;
  if (!fragment.aggregate || !plan->settings.use_value_ranges) return false;
  bool fired = false;
  for (core::plan::AggregateCall& call : fragment.aggregate->calls) {
    if (call.args.size() != 1 || (call.name != "uniqExact" && call.name != "uniq")) continue;
    if (DisjointAcrossWorkers(call.args[0], fragment.scan, context.table,
                              context.worker_count)) {
      call.disjoint_across_workers = true;
      fired = true;
    }
  }
  return fired;
}

}  // namespace granite::coordinator

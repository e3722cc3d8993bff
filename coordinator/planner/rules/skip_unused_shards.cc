#include "coordinator/planner/rules/skip_unused_shards.h"

#include <cmath>
#include <memory>
#include <limits>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "coordinator/cluster/sharding_key.h"
#include "core/column.h"
#include "core/functions/constant_column.h"
#include "core/functions/expr_builder.h"

namespace granite::coordinator {
namespace {

using core::TypeId;
using core::plan::Expr;

// Plain integer types: a constant of any of them compares with a column of any other by value.
bool IsPlainInteger(TypeId type) {
  switch (core::BaseOf(type)) {
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
      return true;
    default:
      return false;
  }
}

// Appends `constant` to `column` as the one value of the column's type it equals; false when
// there is none or the conversion is not certain (then nothing is pruned).
bool AppendConstant(const Expr& constant, core::Column* column) {
  const TypeId type = column->type();
  const core::Value& value = constant.literal;
  if (type == TypeId::kString) {
    if (!std::holds_alternative<std::string>(value)) return false;
    column->AppendString(std::get<std::string>(value));
    return true;
  }
  const bool same_kind = IsPlainInteger(type) ? IsPlainInteger(constant.type)
                                              : constant.type == type;
  if (!same_kind || core::HasStringLayout(type) || core::IsDecimal(type)) return false;
  return core::DispatchFixed(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      if (const auto* u = std::get_if<uint64_t>(&value)) {
        if (*u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
        column->Append(static_cast<T>(*u));
        return true;
      }
      if (const auto* i = std::get_if<int64_t>(&value)) {
        if (std::is_unsigned_v<T> && *i < 0) return false;
        if (std::is_signed_v<T> && (*i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                                    *i > static_cast<int64_t>(std::numeric_limits<T>::max()))) {
          return false;
        }
        column->Append(static_cast<T>(*i));
        return true;
      }
      return false;
    } else if constexpr (std::is_floating_point_v<T>) {
      const auto* d = std::get_if<double>(&value);
      if (d == nullptr || std::isnan(*d) || static_cast<double>(static_cast<T>(*d)) != *d) {
        return false;
      }
      column->Append(static_cast<T>(*d));
      return true;
    } else {
      return false;  // 128-bit values
    }
  });
}

// The constants conjunct `c` allows for input column `column` (`column = c`, `c = column`,
// `column IN (c1, ...)`, `column IN <set>` of at most kMaxShardKeyCombinations values), or
// nullopt when `c` does not fix it that way.
std::optional<std::vector<Expr>> ConstantsFor(const Expr& c, uint32_t column) {
  auto is_key = [&](const Expr& e) { return e.is_column() && e.column == column; };
  if (c.IsCall("equals") && c.args.size() == 2) {
    if (is_key(c.args[0]) && c.args[1].is_literal()) return std::vector<Expr>{c.args[1]};
    if (is_key(c.args[1]) && c.args[0].is_literal()) return std::vector<Expr>{c.args[0]};
    return std::nullopt;
  }
  if (!c.IsCall("in") || c.args.size() != 2 || !is_key(c.args[0])) return std::nullopt;
  const Expr& list = c.args[1];
  if (list.is_set() && list.set != nullptr && list.set->size() <= kMaxShardKeyCombinations) {
    std::vector<Expr> constants;
    for (size_t row = 0; row < list.set->size(); ++row) {
      constants.push_back(core::Lit(core::ValueAt(*list.set, row), list.type));
    }
    return constants;
  }
  if (!list.IsCall("tuple")) return std::nullopt;
  for (const Expr& element : list.args) {
    if (!element.is_literal()) return std::nullopt;
  }
  return list.args;
}

void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.IsCall("and")) {
    for (const Expr& arg : e.args) SplitConjuncts(arg, out);
    return;
  }
  out->push_back(&e);
}

}  // namespace

std::vector<uint32_t> ShardsForFilter(const core::plan::Fragment& fragment,
                                      const core::TableSchema& schema, size_t shard_count) {
  const core::plan::Scan& scan = fragment.scan;
  const std::optional<Expr>& filter = scan.prune_filter ? scan.prune_filter : fragment.filter;
  if (!scan.is_table() || scan.table != schema.name || !filter || shard_count < 2 ||
      schema.sharding_key.empty() || schema.shard_count != shard_count) {
    return {};
  }
  std::vector<const Expr*> conjuncts;
  SplitConjuncts(*filter, &conjuncts);
  // Each key column's allowed values, as a column of its type.
  std::vector<std::shared_ptr<core::Column>> keys;
  size_t combinations = 1;
  for (const std::string& name : schema.sharding_key) {
    std::optional<TypeId> type;
    for (const core::ColumnSchema& column : schema.columns) {
      if (column.name == name) type = column.type;
    }
    std::optional<uint32_t> input;
    for (uint32_t i = 0; i < scan.columns.size(); ++i) {
      if (scan.columns[i] == name && !scan.reads_sizes(i)) input = i;
    }
    if (!type || core::IsNullable(*type) || !input) return {};
    std::optional<std::vector<Expr>> constants;
    for (const Expr* c : conjuncts) {
      constants = ConstantsFor(*c, *input);
      if (constants) break;
    }
    if (!constants || constants->empty()) return {};
    auto values = std::make_shared<core::Column>(*type);
    for (const Expr& constant : *constants) {
      if (!AppendConstant(constant, values.get())) return {};
    }
    combinations *= values->size();
    if (combinations > kMaxShardKeyCombinations) return {};
    keys.push_back(std::move(values));
  }
  // Every combination of the key columns' values: the rows INSERT would have routed.
  std::vector<std::shared_ptr<core::Column>> columns;
  for (const auto& values : keys) {
    columns.push_back(std::make_shared<core::Column>(values->logical_type()));
  }
  for (size_t n = 0; n < combinations; ++n) {
    size_t rest = n;
    for (size_t k = 0; k < keys.size(); ++k) {
      columns[k]->AppendFrom(*keys[k], rest % keys[k]->size());
      rest /= keys[k]->size();
    }
  }
  core::Block rows;
  std::vector<size_t> key_columns;
  for (size_t k = 0; k < columns.size(); ++k) {
    rows.columns.push_back(std::move(columns[k]));
    key_columns.push_back(k);
  }
  const std::vector<uint32_t> of_rows = ShardOfRows(rows, key_columns, shard_count);
  const std::set<uint32_t> shards(of_rows.begin(), of_rows.end());
  if (shards.size() >= shard_count) return {};
  return std::vector<uint32_t>(shards.begin(), shards.end());
}

bool ApplySkipUnusedShards(QueryPlan* plan, const RuleContext& context) {
  if (context.table == nullptr || !plan->settings.optimize_skip_unused_shards) return false;
  plan->fragment.shards = ShardsForFilter(plan->fragment, *context.table, context.worker_count);
  return !plan->fragment.shards.empty();
}

}  // namespace granite::coordinator

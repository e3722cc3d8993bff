#include "worker/part_bounds_scan.h"

#include <set>
#include <vector>

#include "core/types.h"
#include "core/value_text.h"

namespace granite::worker {

std::optional<core::Block> PartBoundsBlock(const core::plan::Fragment& fragment,
                                           const MorselSource& source) {
  if (!fragment.aggregate || fragment.filter || fragment.joining() ||
      !fragment.aggregate->keys.empty() ||
      fragment.aggregate->calls.empty() || !fragment.scan.is_table()) {
    return std::nullopt;
  }
  if (!fragment.settings.use_part_bounds_for_min_max) return std::nullopt;
  // The type of each source column, from the min / max calls that read it.
  const size_t columns = fragment.scan.columns.size();
  std::vector<std::optional<core::TypeId>> types(columns);
  for (const core::plan::AggregateCall& call : fragment.aggregate->calls) {
    if ((call.name != "min" && call.name != "max") || call.args.size() != 1) {
      return std::nullopt;
    }
    const core::plan::Expr& arg = call.args[0];
    if (!arg.is_column() || arg.column >= columns) return std::nullopt;
    const core::TypeId type = arg.type;
    // Integers, Date, DateTime; not Nullable (min / max skip NULLs, bounds do not know them).
    if (!core::IsInteger(type) || core::IsNullable(type)) return std::nullopt;
    types[arg.column] = type;
  }
  for (const auto& type : types) {
    if (!type) return std::nullopt;
  }
  // The parts of the scan, each once, in morsel order.
  std::vector<const storage::Part*> parts;
  std::set<const storage::Part*> seen;
  for (const Morsel& morsel : source.table_morsels()) {
    if (morsel.data != nullptr && seen.insert(morsel.data).second) parts.push_back(morsel.data);
  }
  core::Block block;
  block.rows_without_columns = 2 * parts.size();
  for (size_t c = 0; c < columns; ++c) {
    auto column = std::make_shared<core::Column>(*types[c]);
    const size_t index = source.schema_index(c);
    for (const storage::Part* part : parts) {
      const storage::GranuleBounds& bounds = part->column_bounds(index);
      if (!bounds.present) return std::nullopt;
      if (!core::AppendValue(bounds.min, *types[c], column.get()).ok() ||
          !core::AppendValue(bounds.max, *types[c], column.get()).ok()) {
        return std::nullopt;
      }
    }
    block.columns.push_back(std::move(column));
  }
  return block;
}

}  // namespace granite::worker

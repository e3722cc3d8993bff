#include "coordinator/exec/limit_by.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/block_sort.h"
#include "core/join/row_keys.h"

namespace granite::coordinator {

core::Block ApplyLimitBy(core::Block block, size_t visible, const LimitByOptions& options) {
  std::vector<const core::Column*> keys;
  for (size_t c = visible; c < block.columns.size(); ++c) keys.push_back(block.columns[c].get());
  absl::flat_hash_map<std::string, uint64_t> seen;
  std::vector<uint32_t> kept;
  std::string key;
  uint64_t skipped = 0;
  const size_t rows = block.rows();
  for (size_t row = 0; row < rows; ++row) {
    if (options.limit && kept.size() >= *options.limit) break;
    key.clear();
    core::AppendRowKey(keys, row, &key);
    const uint64_t n = seen[key]++;
    if (n < options.limit_by_offset || n - options.limit_by_offset >= options.limit_by) continue;
    if (skipped < options.offset) {
      ++skipped;
      continue;
    }
    kept.push_back(static_cast<uint32_t>(row));
  }
  block.columns.resize(visible);
  block.rows_without_columns = visible == 0 ? kept.size() : 0;
  return core::TakeRows(block, kept);
}

}  // namespace granite::coordinator

#include "coordinator/cluster/sharding_key.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/types.h"

namespace granite::coordinator {

using core::ErrorCode;

namespace {

// Seeds the row hash so that the worker of a row is not correlated with the bucket its group
// falls into when it is aggregated (core::BucketOf of the group key hash).
constexpr uint64_t kShardSeed = 0x5348415244494e47ULL;  // "SHARDING"

bool IsPlainName(std::string_view name) {
  if (name.empty() || !(absl::ascii_isalpha(name[0]) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
}

// Adds the hash of every row's value in `column` into `hashes`.
void CombineColumn(const core::Column& column, std::vector<uint64_t>* hashes) {
  size_t rows = column.size();
  if (core::HasStringLayout(column.type())) {
    for (size_t r = 0; r < rows; ++r) {
      (*hashes)[r] = core::HashCombine((*hashes)[r], core::HashBytes(column.StringAt(r)));
    }
    return;
  }
  core::DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* data = column.Data<T>();
    for (size_t r = 0; r < rows; ++r) {
      T value = data[r];
      // -0.0 and 0.0 are one group: they must go to one worker.
      if constexpr (std::is_floating_point_v<T>) value = value == 0 ? T(0) : value;
      if constexpr (sizeof(T) > 8) {
        // A 128-bit value (Decimal128): both halves.
        uint64_t halves[2];
        std::memcpy(halves, &value, sizeof(T));
        (*hashes)[r] = core::HashCombine(core::HashCombine((*hashes)[r], core::HashInt(halves[0])),
                                         core::HashInt(halves[1]));
      } else {
        uint64_t bits = 0;  // the value's bytes, zero-extended: equal values, equal hashes
        std::memcpy(&bits, &value, sizeof(T));
        (*hashes)[r] = core::HashCombine((*hashes)[r], core::HashInt(bits));
      }
    }
  });
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseShardingKey(std::string_view text,
                                                          const core::TableSchema& schema) {
  std::vector<std::string> columns;
  std::vector<std::string> items = absl::StrSplit(core::ToAbsl(text), ',');
  if (absl::StripAsciiWhitespace(core::ToAbsl(text)).empty()) {
    return core::Error(ErrorCode::kBadArguments,
                       "Setting sharding_key of table " + schema.name + " is empty");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item(absl::StripAsciiWhitespace(items[i]));
    std::string where = absl::StrCat(" (item ", i + 1, " of sharding_key of table ", schema.name,
                                      ")");
    std::string name = item;
    if (name.size() >= 2 && name.front() == '`' && name.back() == '`') {
      name = name.substr(1, name.size() - 2);
    } else if (!IsPlainName(name)) {
      return core::Error(ErrorCode::kBadArguments,
                         "Sharding key \"" + item +
                             "\" is not a column name: sharding_key takes column names only" +
                             where);
    }
    if (name.empty()) {
      return core::Error(ErrorCode::kBadArguments, "Empty column name in sharding key" + where);
    }
    bool found = false;
    for (const core::ColumnSchema& column : schema.columns) found = found || column.name == name;
    if (!found) {
      return core::Error(ErrorCode::kUnknownIdentifier,
                         "Missing column " + name + " in the sharding key" + where);
    }
    if (!seen.insert(name).second) {
      return core::Error(ErrorCode::kBadArguments,
                         "Column " + name + " is repeated in the sharding key" + where);
    }
    columns.push_back(std::move(name));
  }
  return columns;
}

std::vector<uint32_t> ShardOfRows(const core::Block& block, const std::vector<size_t>& key_columns,
                                  size_t worker_count) {
  std::vector<uint64_t> hashes(block.rows(), kShardSeed);
  for (size_t c : key_columns) CombineColumn(*block.columns[c], &hashes);
  std::vector<uint32_t> shards(hashes.size());
  for (size_t r = 0; r < hashes.size(); ++r) {
    shards[r] = static_cast<uint32_t>(hashes[r] % worker_count);
  }
  return shards;
}

std::vector<core::Block> SplitByShard(const core::Block& block,
                                      const std::vector<size_t>& key_columns, size_t worker_count) {
  std::vector<uint32_t> shards = ShardOfRows(block, key_columns, worker_count);
  std::vector<std::vector<uint32_t>> rows(worker_count);
  for (uint32_t r = 0; r < shards.size(); ++r) rows[shards[r]].push_back(r);
  std::vector<core::Block> out;
  out.reserve(worker_count);
  for (const auto& indices : rows) out.push_back(core::TakeRows(block, indices));
  return out;
}

std::vector<core::Block> SplitEvenly(const core::Block& block, size_t count, size_t first) {
  const size_t total = block.rows();
  std::vector<core::Block> out(count);
  for (size_t i = 0; i < count; ++i) {
    size_t begin = total * i / count, end = total * (i + 1) / count;
    if (begin < end) out[(first + i) % count] = core::SliceRows(block, begin, end - begin);
  }
  return out;
}

std::vector<size_t> ShardingKeyColumns(const core::TableSchema& schema) {
  std::vector<size_t> columns;
  for (const std::string& key : schema.sharding_key) {
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (schema.columns[i].name == key) columns.push_back(i);
    }
  }
  return columns;
}

}  // namespace granite::coordinator

// Aggregator implementation. Parts:
//   1. Create and the layout choice.
//   2. Add / Merge: validation, then AssignGroups (group ids of a batch) and one call per aggregate.
//   3. The per-layout group assignment templates (direct array, int map, string map, serialized).
//   4. Emitting groups: Partial, PartialByBucket, Finalize; Clear.
#include "core/aggregation/aggregator.h"

#include <numeric>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/aggregation/key_hash.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// Prefetching slots pays off only once the table no longer fits in the L2 cache.
constexpr size_t kPrefetchCapacity = 1 << 15;
constexpr size_t kPrefetchDistance = 16;

std::string TypeList(const std::vector<TypeId>& types) {
  std::string out;
  for (TypeId type : types) absl::StrAppend(&out, out.empty() ? "" : ", ", ToAbsl(TypeName(type)));
  return out;
}

}  // namespace

// ---- 1. Create and the layout choice ----------------------------------------------------------

absl::StatusOr<std::unique_ptr<Aggregator>> Aggregator::Create(
    std::vector<TypeId> key_types, std::vector<AggregateSpec> aggregates) {
  std::vector<std::unique_ptr<AggregateFunction>> functions;
  for (const AggregateSpec& spec : aggregates) {
    ASSIGN_OR_RETURN(std::unique_ptr<AggregateFunction> function, CreateAggregateFunction(spec));
    functions.push_back(std::move(function));
  }
  return std::unique_ptr<Aggregator>(
      new Aggregator(std::move(key_types), std::move(aggregates), std::move(functions)));
}

Aggregator::Aggregator(std::vector<TypeId> key_types, std::vector<AggregateSpec> specs,
                       std::vector<std::unique_ptr<AggregateFunction>> functions)
    : key_types_(std::move(key_types)), specs_(std::move(specs)), functions_(std::move(functions)) {
  for (const auto& function : functions_) state_types_.push_back(function->StateTypes());
  if (key_types_.empty()) {
    layout_ = KeyLayout::kNoKeys;
  } else if (key_types_.size() == 1 && !IsString(key_types_[0]) && ValueSize(key_types_[0]) <= 2) {
    layout_ = KeyLayout::kDirect16;  // the array is allocated on first use (AssignGroups)
  } else if (key_types_.size() == 1 && !IsString(key_types_[0])) {
    layout_ = KeyLayout::kFixed64;
  } else if (key_types_.size() == 1) {
    layout_ = KeyLayout::kString;
  } else {
    layout_ = KeyLayout::kSerialized;
  }
  // The map a layout does not use keeps only a token allocation.
  if (layout_ != KeyLayout::kFixed64) int_map_.Reset(4);
  if (layout_ != KeyLayout::kString && layout_ != KeyLayout::kSerialized) string_map_.Reset(4);
  ResetKeyColumns();
}

std::vector<TypeId> Aggregator::PartialTypes() const {
  std::vector<TypeId> types = key_types_;
  for (const auto& state : state_types_) types.insert(types.end(), state.begin(), state.end());
  return types;
}

std::vector<TypeId> Aggregator::ResultTypes() const {
  std::vector<TypeId> types = key_types_;
  for (const auto& function : functions_) types.push_back(function->ResultType());
  return types;
}

// ---- 2. Add / Merge ---------------------------------------------------------------------------

absl::Status Aggregator::CheckKeys(const std::vector<ColumnPtr>& keys, size_t rows) const {
  if (keys.size() != key_types_.size()) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Aggregator expects ", key_types_.size(), " key columns (",
                              TypeList(key_types_), "), got ", keys.size()));
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k]->type() != key_types_[k] || keys[k]->size() < rows) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Aggregator key column ", k, " is ",
                                ToAbsl(TypeName(keys[k]->type())), " with ", keys[k]->size(),
                                " rows, expected ", ToAbsl(TypeName(key_types_[k])), " with ",
                                rows));
    }
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Add(const std::vector<ColumnPtr>& keys,
                             const std::vector<std::vector<ColumnPtr>>& args, size_t rows) {
  RETURN_IF_ERROR(CheckKeys(keys, rows));
  if (args.size() != specs_.size()) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Aggregator expects arguments of ", specs_.size(),
                              " aggregates, got ", args.size()));
  }
  for (size_t a = 0; a < args.size(); ++a) {
    const std::vector<TypeId>& expected = specs_[a].arg_types;
    bool ok = args[a].size() == expected.size();
    for (size_t j = 0; ok && j < expected.size(); ++j) {
      ok = args[a][j]->type() == expected[j] && args[a][j]->size() >= rows;
    }
    if (!ok) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Arguments of aggregate ", a, " (", specs_[a].name,
                                ") do not match (", TypeList(expected), ") with ", rows, " rows"));
    }
  }
  if (rows == 0) return absl::OkStatus();
  AssignGroups(keys, rows);
  for (size_t a = 0; a < functions_.size(); ++a) {
    if (layout_ == KeyLayout::kNoKeys) {
      functions_[a]->AddBatchOneGroup(0, args[a], rows);
    } else {
      functions_[a]->AddBatch(group_ids_.data(), args[a], rows);
    }
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Merge(const Block& partial) {
  std::vector<TypeId> expected = PartialTypes();
  bool ok = partial.columns.size() == expected.size();
  for (size_t c = 0; ok && c < expected.size(); ++c) {
    ok = partial.columns[c]->type() == expected[c] &&
         partial.columns[c]->size() == partial.rows();
  }
  if (!ok) {
    std::vector<TypeId> got;
    for (const ColumnPtr& column : partial.columns) got.push_back(column->type());
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Partial aggregate block has columns (", TypeList(got),
                              "), expected (", TypeList(expected), ")"));
  }
  size_t rows = partial.rows();
  if (rows == 0) return absl::OkStatus();
  std::vector<ColumnPtr> keys(partial.columns.begin(), partial.columns.begin() + key_types_.size());
  AssignGroups(keys, rows);
  size_t column = key_types_.size();
  for (size_t a = 0; a < functions_.size(); ++a) {
    RETURN_IF_ERROR(functions_[a]->MergeBatch(group_ids_.data(), &partial.columns[column], rows));
    column += state_types_[a].size();
  }
  return absl::OkStatus();
}

// ---- 3. Group assignment per layout -----------------------------------------------------------

void Aggregator::AssignGroups(const std::vector<ColumnPtr>& keys, size_t rows) {
  group_ids_.resize(rows);
  bool prefetch = false;
  switch (layout_) {
    case KeyLayout::kNoKeys:
      if (groups_ == 0) groups_ = 1;
      std::fill(group_ids_.begin(), group_ids_.end(), 0);
      break;
    case KeyLayout::kDirect16:
      if (direct_.empty()) {
        direct_.assign(size_t{1} << (8 * ValueSize(key_types_[0])), IntHashMap::kEmpty);
      }
      DispatchFixed(key_types_[0], [&](auto tag) {
        using T = typename decltype(tag)::Type;
        if constexpr (sizeof(T) <= 2) AssignDirect<T>(*keys[0], rows);
      });
      break;
    case KeyLayout::kFixed64:
      prefetch = int_map_.capacity() >= kPrefetchCapacity;
      DispatchFixed(key_types_[0], [&](auto tag) {
        using T = typename decltype(tag)::Type;
        if (prefetch) {
          AssignFixed<T, true>(*keys[0], rows);
        } else {
          AssignFixed<T, false>(*keys[0], rows);
        }
      });
      break;
    case KeyLayout::kString:
      prefetch = string_map_.size() * 2 >= kPrefetchCapacity;
      if (prefetch) {
        AssignString<true>(*keys[0], rows);
      } else {
        AssignString<false>(*keys[0], rows);
      }
      break;
    case KeyLayout::kSerialized:
      prefetch = string_map_.size() * 2 >= kPrefetchCapacity;
      if (prefetch) {
        AssignSerialized<true>(keys, rows);
      } else {
        AssignSerialized<false>(keys, rows);
      }
      break;
  }
  for (const auto& function : functions_) function->Resize(groups_);
}

template <typename T>
void Aggregator::AssignDirect(const Column& key, size_t rows) {
  using Index = std::make_unsigned_t<T>;
  const T* values = key.Data<T>();
  uint32_t* direct = direct_.data();
  uint32_t* ids = group_ids_.data();
  Column& key_column = *key_columns_[0];
  for (size_t i = 0; i < rows; ++i) {
    auto index = static_cast<Index>(values[i]);
    uint32_t group = direct[index];
    if (group == IntHashMap::kEmpty) {
      group = static_cast<uint32_t>(groups_++);
      direct[index] = group;
      key_column.Append<T>(values[i]);
      direct_min_ = std::min<uint32_t>(direct_min_, index);
      direct_max_ = std::max<uint32_t>(direct_max_, index);
    }
    ids[i] = group;
  }
}

template <typename T, bool kPrefetch>
void Aggregator::AssignFixed(const Column& key, size_t rows) {
  const T* values = key.Data<T>();
  hashes_.resize(rows);
  uint64_t* hashes = hashes_.data();
  for (size_t i = 0; i < rows; ++i) hashes[i] = HashInt(WidenKey(values[i]));
  uint32_t* ids = group_ids_.data();
  Column& key_column = *key_columns_[0];
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + kPrefetchDistance < rows) int_map_.Prefetch(hashes[i + kPrefetchDistance]);
    auto next = static_cast<uint32_t>(groups_);
    uint32_t group = int_map_.FindOrInsert(WidenKey(values[i]), hashes[i], next);
    if (group == next) {
      ++groups_;
      key_column.Append<T>(values[i]);
    }
    ids[i] = group;
  }
}

template <bool kPrefetch>
void Aggregator::AssignString(const Column& key, size_t rows) {
  hashes_.resize(rows);
  uint64_t* hashes = hashes_.data();
  for (size_t i = 0; i < rows; ++i) hashes[i] = HashBytes(key.StringAt(i));
  uint32_t* ids = group_ids_.data();
  Column& key_column = *key_columns_[0];
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + kPrefetchDistance < rows) {
      string_map_.Prefetch(hashes[i + kPrefetchDistance]);
    }
    std::string_view value = key.StringAt(i);
    auto next = static_cast<uint32_t>(groups_);
    uint32_t group = string_map_.FindOrInsert(value, hashes[i], next);
    if (group == next) {
      ++groups_;
      key_column.AppendString(value);
    }
    ids[i] = group;
  }
}

void Aggregator::SerializeKeys(const std::vector<ColumnPtr>& keys, size_t rows) {
  // Lengths first (fixed widths plus each string with its 4-byte prefix), then column by column,
  // so the type dispatch happens once per column rather than once per value.
  size_t fixed_width = 0;
  for (TypeId type : key_types_) fixed_width += IsString(type) ? sizeof(uint32_t) : ValueSize(type);
  serialized_offsets_.assign(rows + 1, 0);
  size_t* offsets = serialized_offsets_.data();
  for (size_t i = 0; i < rows; ++i) offsets[i + 1] = fixed_width;
  for (const ColumnPtr& key : keys) {
    if (!IsString(key->type())) continue;
    for (size_t i = 0; i < rows; ++i) offsets[i + 1] += key->StringAt(i).size();
  }
  for (size_t i = 0; i < rows; ++i) offsets[i + 1] += offsets[i];
  serialized_.resize(offsets[rows]);
  std::vector<size_t> cursor(offsets, offsets + rows);
  char* out = serialized_.data();
  for (const ColumnPtr& key : keys) {
    if (IsString(key->type())) {
      for (size_t i = 0; i < rows; ++i) {
        std::string_view value = key->StringAt(i);
        auto size = static_cast<uint32_t>(value.size());
        std::memcpy(out + cursor[i], &size, sizeof(size));
        std::memcpy(out + cursor[i] + sizeof(size), value.data(), value.size());
        cursor[i] += sizeof(size) + value.size();
      }
      continue;
    }
    DispatchFixed(key->type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* values = key->Data<T>();
      for (size_t i = 0; i < rows; ++i) {
        // The low sizeof(T) bytes of the widened value (little-endian): the value itself, with
        // -0.0 folded into 0.0 like the hash.
        uint64_t widened = WidenKey(values[i]);
        std::memcpy(out + cursor[i], &widened, sizeof(T));
        cursor[i] += sizeof(T);
      }
    });
  }
}

template <bool kPrefetch>
void Aggregator::AssignSerialized(const std::vector<ColumnPtr>& keys, size_t rows) {
  hashes_.resize(rows);
  HashKeys(keys, rows, hashes_.data());
  SerializeKeys(keys, rows);
  const uint64_t* hashes = hashes_.data();
  const size_t* offsets = serialized_offsets_.data();
  uint32_t* ids = group_ids_.data();
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + kPrefetchDistance < rows) {
      string_map_.Prefetch(hashes[i + kPrefetchDistance]);
    }
    std::string_view bytes(serialized_.data() + offsets[i], offsets[i + 1] - offsets[i]);
    auto next = static_cast<uint32_t>(groups_);
    uint32_t group = string_map_.FindOrInsert(bytes, hashes[i], next);
    if (group == next) {
      ++groups_;
      for (size_t k = 0; k < keys.size(); ++k) key_columns_[k]->AppendFrom(*keys[k], i);
    }
    ids[i] = group;
  }
}

// ---- 4. Emitting groups -----------------------------------------------------------------------

std::vector<MutableColumnPtr> Aggregator::NewStateColumns() const {
  std::vector<MutableColumnPtr> columns;
  for (const auto& state : state_types_) {
    for (TypeId type : state) columns.push_back(std::make_shared<Column>(type));
  }
  return columns;
}

Block Aggregator::EmitGroups(const uint32_t* groups, size_t count) const {
  Block block;
  for (const MutableColumnPtr& key : key_columns_) {
    block.columns.push_back(std::make_shared<Column>(key->Take(groups, count)));
  }
  std::vector<MutableColumnPtr> states = NewStateColumns();
  std::vector<Column*> raw;
  for (const MutableColumnPtr& column : states) raw.push_back(column.get());
  size_t column = 0;
  for (size_t a = 0; a < functions_.size(); ++a) {
    functions_[a]->WriteStates(groups, count, raw.data() + column);
    column += state_types_[a].size();
  }
  block.columns.insert(block.columns.end(), states.begin(), states.end());
  block.rows_without_columns = count;
  return block;
}

Block Aggregator::Partial() {
  std::vector<uint32_t> all(groups_);
  std::iota(all.begin(), all.end(), 0u);
  Block block;
  // The key columns already hold every group in id order: move them instead of copying.
  for (MutableColumnPtr& key : key_columns_) block.columns.push_back(std::move(key));
  key_columns_.clear();
  Block states = EmitGroups(all.data(), all.size());
  block.columns.insert(block.columns.end(), states.columns.begin(), states.columns.end());
  block.rows_without_columns = groups_;
  Clear();
  return block;
}

std::vector<Block> Aggregator::PartialByBucket() {
  size_t count = groups_;
  std::vector<uint64_t> hashes(count);
  HashKeys(key_columns_, count, hashes.data());
  // Counting sort of group ids by bucket.
  std::vector<uint32_t> starts(kBucketCount + 1, 0);
  for (uint64_t hash : hashes) ++starts[BucketOf(hash) + 1];
  for (uint32_t b = 0; b < kBucketCount; ++b) starts[b + 1] += starts[b];
  std::vector<uint32_t> order(count);
  std::vector<uint32_t> cursor(starts.begin(), starts.end() - 1);
  for (uint32_t g = 0; g < count; ++g) order[cursor[BucketOf(hashes[g])]++] = g;

  std::vector<Block> buckets(kBucketCount);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    buckets[b] = EmitGroups(order.data() + starts[b], starts[b + 1] - starts[b]);
  }
  Clear();
  return buckets;
}

absl::StatusOr<Block> Aggregator::Finalize() {
  if (layout_ == KeyLayout::kNoKeys && groups_ == 0) {
    groups_ = 1;
    for (const auto& function : functions_) function->Resize(1);
  }
  Block block;
  for (MutableColumnPtr& key : key_columns_) block.columns.push_back(std::move(key));
  key_columns_.clear();
  for (const auto& function : functions_) {
    auto result = std::make_shared<Column>(function->ResultType());
    result->Reserve(groups_);
    function->Finalize(result.get());
    if (result->size() != groups_) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Aggregate finalized ", result->size(), " rows for ", groups_,
                                " groups"));
    }
    block.columns.push_back(std::move(result));
  }
  block.rows_without_columns = groups_;
  Clear();
  return block;
}

void Aggregator::ResetKeyColumns() {
  key_columns_.clear();
  for (TypeId type : key_types_) key_columns_.push_back(std::make_shared<Column>(type));
}

void Aggregator::Clear() {
  groups_ = 0;
  ResetKeyColumns();
  for (const auto& function : functions_) function->Clear();
  switch (layout_) {
    case KeyLayout::kNoKeys:
      break;
    case KeyLayout::kDirect16:
      if (direct_min_ <= direct_max_) {
        std::fill(direct_.begin() + direct_min_, direct_.begin() + direct_max_ + 1,
                  IntHashMap::kEmpty);
      }
      direct_min_ = UINT32_MAX;
      direct_max_ = 0;
      break;
    case KeyLayout::kFixed64:
      int_map_.Reset();
      break;
    case KeyLayout::kString:
    case KeyLayout::kSerialized:
      string_map_.Reset();
      break;
  }
  std::vector<uint32_t>().swap(group_ids_);
  std::vector<uint64_t>().swap(hashes_);
}

}  // namespace granite::core

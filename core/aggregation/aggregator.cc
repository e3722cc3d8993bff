// Aggregator, part 1. Parts:
//   1. Create and the layout choice.
//   2. Add / Merge: validation, then AssignGroups (aggregator_assign.cc) and one call per aggregate.
//   3. In-memory merges between aggregators (the worker's end-of-query merge, LocalMerger).
//   4. Emitting groups: Partial, PartialByBucket, Finalize, the bucket index; Clear.
#include "core/aggregation/aggregator.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/aggregation/bucket_scatter.h"
#include "core/aggregation/packed_keys.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

std::string TypeList(const std::vector<TypeId>& types) {
  std::string out;
  for (TypeId type : types) absl::StrAppend(&out, out.empty() ? "" : ", ", ToAbsl(TypeName(type)));
  return out;
}

}  // namespace

// ---- 1. Create and the layout choice ----------------------------------------------------------

absl::StatusOr<std::unique_ptr<Aggregator>> Aggregator::Create(
    std::vector<TypeId> key_types, std::vector<AggregateSpec> aggregates,
    AggregatorOptions options) {
  std::vector<std::unique_ptr<AggregateFunction>> functions;
  for (const AggregateSpec& spec : aggregates) {
    ASSIGN_OR_RETURN(std::unique_ptr<AggregateFunction> function, CreateAggregateFunction(spec));
    functions.push_back(std::move(function));
  }
  return std::unique_ptr<Aggregator>(new Aggregator(std::move(key_types), std::move(aggregates),
                                                    std::move(functions), options));
}

std::unique_ptr<Aggregator> Aggregator::CloneEmpty(bool sparse) const {
  std::vector<std::unique_ptr<AggregateFunction>> functions;
  // The specs resolved once in Create, so they resolve again.
  for (const AggregateSpec& spec : specs_) functions.push_back(*CreateAggregateFunction(spec));
  AggregatorOptions options = options_;
  options.sparse = sparse;
  return std::unique_ptr<Aggregator>(
      new Aggregator(key_types_, specs_, std::move(functions), options));
}

Aggregator::Aggregator(std::vector<TypeId> key_types, std::vector<AggregateSpec> specs,
                       std::vector<std::unique_ptr<AggregateFunction>> functions,
                       AggregatorOptions options)
    : key_types_(std::move(key_types)), specs_(std::move(specs)),
      functions_(std::move(functions)), options_(options) {
  for (const auto& function : functions_) state_types_.push_back(function->StateTypes());
  size_t packed = PackedWidth(key_types_);
  bool nullable_keys = false;
  for (TypeId type : key_types_) nullable_keys |= IsNullable(type);
  if (key_types_.empty()) {
    layout_ = KeyLayout::kNoKeys;
  } else if (nullable_keys) {
    // A NULL key is its own group: the serialized form carries a null flag per Nullable key.
    layout_ = KeyLayout::kSerialized;
  } else if (key_types_.size() == 1 && HasStringLayout(key_types_[0])) {
    layout_ = KeyLayout::kString;
  } else if (key_types_.size() == 1 && ValueSize(key_types_[0]) <= 8) {
    bool direct = ValueSize(key_types_[0]) <= 2 ||
                  (options_.direct_key && IsInteger(key_types_[0]));
    layout_ = direct && !options_.sparse ? KeyLayout::kDirect16 : KeyLayout::kFixed64;
  } else if (packed > 0 && packed <= 8) {
    layout_ = KeyLayout::kPacked64;
  } else if (packed > 0 && packed <= 16) {
    layout_ = KeyLayout::kPacked128;
  } else {
    layout_ = KeyLayout::kSerialized;
  }
  // Bucket merges (sparse) read keys with known hashes: the cache would not be used.
  if (layout_ == KeyLayout::kSerialized && !options_.sparse) {
    short_packer_ = ShortKeyPacker::Create(key_types_);
  }
  ResetKeys();
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

size_t Aggregator::MemoryBytes() const {
  size_t bytes = group_hashes_.capacity() * sizeof(uint64_t) + fixed_.MemoryBytes() +
                 int_map_.MemoryBytes() + wide_map_.MemoryBytes() + string_map_.MemoryBytes() +
                 string_keys_.capacity() * sizeof(KeyRef) + key_arena_.BytesReserved();
  if (int_map2_) bytes += int_map2_->MemoryBytes();
  if (wide_map2_) bytes += wide_map2_->MemoryBytes();
  if (string_map2_) bytes += string_map2_->MemoryBytes();
  for (const MutableColumnPtr& key : key_columns_) bytes += key->ByteSize();
  return bytes;
}

size_t Aggregator::StateBytes() const {
  size_t bytes = 0;
  for (const auto& function : functions_) bytes += function->StateBytes();
  return bytes;
}

// ---- 2. Add / Merge ---------------------------------------------------------------------------

absl::Status Aggregator::CheckKeys(const std::vector<ColumnPtr>& keys, size_t rows) const {
  if (keys.size() != key_types_.size()) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Aggregator expects ", key_types_.size(), " key columns (",
                              TypeList(key_types_), "), got ", keys.size()));
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k]->type() != RemoveNullable(key_types_[k]) || keys[k]->size() < rows) {
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
  return AddRows(keys, args, rows, nullptr);
}

absl::Status Aggregator::AddRows(const std::vector<ColumnPtr>& keys,
                                 const std::vector<std::vector<ColumnPtr>>& args, size_t rows,
                                 const uint32_t* arg_selection) {
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
      ok = args[a][j]->type() == RemoveNullable(expected[j]) && args[a][j]->size() >= rows;
    }
    if (!ok) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Arguments of aggregate ", a, " (", specs_[a].name,
                                ") do not match (", TypeList(expected), ") with ", rows, " rows"));
    }
  }
  if (rows == 0) return absl::OkStatus();
  if (layout_ == KeyLayout::kNoKeys) {
    // One group, and AddBatchOneGroup reads no group ids: writing `rows` zeros would cost more
    // than count(*) itself (its blocks carry a whole part's row count and no column).
    if (groups_ == 0) groups_ = 1;
    for (const auto& function : functions_) function->Resize(groups_);
  } else {
    AssignGroups(keys, rows, nullptr);
    if (direct_key_violated_) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("GROUP BY key value outside the planned range [",
                                options_.direct_key_base, ", +65536)"));
    }
  }
  for (size_t a = 0; a < functions_.size(); ++a) {
    if (layout_ == KeyLayout::kNoKeys) {
      functions_[a]->AddBatchOneGroup(0, args[a], rows);
    } else if (arg_selection != nullptr) {
      functions_[a]->AddBatchSelected(group_ids_.data(), args[a], arg_selection, rows);
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
    ok = partial.columns[c]->type() == RemoveNullable(expected[c]) &&
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
  // A partial block's rows bound its groups (its keys are distinct, or nearly so: LocalMerger
  // may send threads' groups unmerged): sizing an empty table for them skips the growth steps
  // (a bucket merge starts with 4 slots).
  Reserve(rows);
  AssignGroups(keys, rows, nullptr);
  size_t column = key_types_.size();
  for (size_t a = 0; a < functions_.size(); ++a) {
    RETURN_IF_ERROR(functions_[a]->MergeBatch(group_ids_.data(), &partial.columns[column], rows));
    column += state_types_[a].size();
  }
  return absl::OkStatus();
}

// ---- 3. In-memory merges ----------------------------------------------------------------------

std::vector<ColumnPtr> Aggregator::KeysOf(const uint32_t* groups, size_t count) const {
  std::vector<ColumnPtr> keys;
  if (layout_ == KeyLayout::kString) {
    auto column = std::make_shared<Column>(key_types_[0]);  // String or FixedString
    column->Reserve(count);
    // Sized once: growing the chars by doubling copied them again (8% of a long-string GROUP BY).
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += string_keys_[groups[i]].View().size();
    column->MutableChars().reserve(bytes);
    for (size_t i = 0; i < count; ++i) column->AppendString(string_keys_[groups[i]].View());
    keys.push_back(std::move(column));
    return keys;
  }
  for (const MutableColumnPtr& key : key_columns_) {
    keys.push_back(std::make_shared<Column>(key->Take(groups, count)));
  }
  return keys;
}

void Aggregator::MergeGroupsFrom(Aggregator& src, const uint32_t* groups, size_t count) {
  if (count == 0) return;
  if (layout_ == KeyLayout::kNoKeys) {
    if (groups_ == 0) groups_ = 1;
    uint32_t zero = 0;
    for (size_t a = 0; a < functions_.size(); ++a) {
      functions_[a]->Resize(1);
      functions_[a]->MergeFrom(&zero, *src.functions_[a], groups, 1);
    }
    return;
  }
  std::vector<ColumnPtr> keys = src.KeysOf(groups, count);
  std::vector<uint64_t> hashes(count);
  for (size_t i = 0; i < count; ++i) hashes[i] = src.group_hashes_[groups[i]];
  AssignGroups(keys, count, hashes.data());
  for (size_t a = 0; a < functions_.size(); ++a) {
    functions_[a]->MergeFrom(group_ids_.data(), *src.functions_[a], groups, count);
  }
}

void Aggregator::MergeAllFrom(Aggregator& src) {
  std::vector<uint32_t> all(src.groups_);
  std::iota(all.begin(), all.end(), 0u);
  MergeGroupsFrom(src, all.data(), all.size());
}

void Aggregator::MergePartFrom(Aggregator& src, uint32_t part) {
  if (src.groups_ == 0) return;
  if (groups_ == 0) groups_ = 1;
  for (size_t a = 0; a < functions_.size(); ++a) {
    functions_[a]->Resize(1);
    functions_[a]->MergePartFrom(0, *src.functions_[a], 0, part);
  }
}

void Aggregator::MergeDisjointFrom(Aggregator& src) {
  if (src.groups_ == 0) return;
  if (groups_ == 0) groups_ = 1;
  uint32_t zero = 0;
  for (size_t a = 0; a < functions_.size(); ++a) {
    functions_[a]->Resize(1);
    functions_[a]->MergeDisjointFrom(&zero, *src.functions_[a], &zero, 1);
  }
}

void Aggregator::Reserve(size_t groups) {
  if (two_level_ || groups_ != 0) return;
  switch (layout_) {
    case KeyLayout::kFixed64:
    case KeyLayout::kPacked64:
      int_map_.Reserve(groups);
      break;
    case KeyLayout::kPacked128:
      wide_map_.Reserve(groups);
      break;
    case KeyLayout::kString:
      string_keys_.reserve(groups);
      string_map_.Reserve(groups);
      break;
    case KeyLayout::kSerialized:
      string_map_.Reserve(groups);
      break;
    case KeyLayout::kNoKeys:
    case KeyLayout::kDirect16:
      return;
  }
  group_hashes_.reserve(groups);
  for (const MutableColumnPtr& key : key_columns_) key->Reserve(groups);
  for (const auto& function : functions_) function->Reserve(groups);
}

bool Aggregator::SplitsIntoParts() const {
  for (const auto& function : functions_) {
    if (function->SplitsIntoParts()) return true;
  }
  return false;
}

void Aggregator::PrepareParts() {
  for (const auto& function : functions_) function->PrepareParts();
}

// ---- 4. Emitting groups -----------------------------------------------------------------------

std::vector<MutableColumnPtr> Aggregator::NewStateColumns() const {
  std::vector<MutableColumnPtr> columns;
  for (const auto& state : state_types_) {
    for (TypeId type : state) columns.push_back(std::make_shared<Column>(type));
  }
  return columns;
}

Block Aggregator::EmitGroups(const uint32_t* groups, size_t count, bool final_only) const {
  Block block;
  block.columns = KeysOf(groups, count);
  std::vector<MutableColumnPtr> states = NewStateColumns();
  std::vector<Column*> raw;
  for (const MutableColumnPtr& column : states) raw.push_back(column.get());
  size_t column = 0;
  for (size_t a = 0; a < functions_.size(); ++a) {
    if (final_only) {
      functions_[a]->WriteFinalOnlyStates(groups, count, raw.data() + column);
    } else if (specs_[a].disjoint) {
      functions_[a]->WriteDisjointStates(groups, count, raw.data() + column);
    } else {
      functions_[a]->WriteStates(groups, count, raw.data() + column);
    }
    column += state_types_[a].size();
  }
  block.columns.insert(block.columns.end(), states.begin(), states.end());
  block.rows_without_columns = count;
  return block;
}

Block Aggregator::Partial(bool final_only) {
  std::vector<uint32_t> all(groups_);
  std::iota(all.begin(), all.end(), 0u);
  Block block = EmitGroups(all.data(), all.size(), final_only);
  Clear();
  return block;
}

void Aggregator::BucketOrder(std::vector<uint32_t>* order, std::vector<uint32_t>* starts) const {
  // Counting sort of group ids by the bucket of their saved hash.
  starts->assign(kBucketCount + 1, 0);
  for (size_t g = 0; g < groups_; ++g) ++(*starts)[BucketOf(group_hashes_[g]) + 1];
  for (uint32_t b = 0; b < kBucketCount; ++b) (*starts)[b + 1] += (*starts)[b];
  order->resize(groups_);
  std::vector<uint32_t> cursor(starts->begin(), starts->end() - 1);
  for (uint32_t g = 0; g < groups_; ++g) (*order)[cursor[BucketOf(group_hashes_[g])]++] = g;
}

void Aggregator::GroupsInKeyRange(uint32_t lo, uint32_t hi, std::vector<uint32_t>* out) const {
  fixed_.ForEachInRange(lo, hi, [&](uint32_t, uint32_t group) { out->push_back(group); });
}

std::vector<Block> Aggregator::PartialByBucket(bool final_only) {
  std::vector<Block> buckets(kBucketCount);
  if (layout_ == KeyLayout::kNoKeys) {
    // One group: it travels in bucket 0 (LocalMerger splits parts of big states instead).
    for (uint32_t b = 0; b < kBucketCount; ++b) buckets[b] = EmitGroups(nullptr, 0, final_only);
    if (groups_ > 0) buckets[0] = Partial(final_only);
    return buckets;
  }
  // Below this many groups every state array is cached and the gather costs little.
  constexpr size_t kScatterGroups = size_t{1} << 18;
  if (groups_ >= kScatterGroups) {
    buckets = ScatterGroups(final_only);
    Clear();
    return buckets;
  }
  std::vector<uint32_t> order;
  std::vector<uint32_t> starts;
  BucketOrder(&order, &starts);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    buckets[b] = EmitGroups(order.data() + starts[b], starts[b + 1] - starts[b], final_only);
  }
  Clear();
  return buckets;
}

std::vector<Block> Aggregator::ScatterGroups(bool final_only) const {
  std::vector<uint8_t> bucket_of(groups_);
  std::vector<uint32_t> rows(kBucketCount, 0);
  for (size_t g = 0; g < groups_; ++g) {
    bucket_of[g] = static_cast<uint8_t>(BucketOf(group_hashes_[g]));
    ++rows[bucket_of[g]];
  }
  // The groups of each bucket in increasing order, built only for a column or aggregate that
  // has no scatter path (it then gathers them as EmitGroups does).
  std::vector<uint32_t> order;
  std::vector<uint32_t> starts;
  auto bucket_groups = [&](uint32_t b) {
    if (order.empty()) BucketOrder(&order, &starts);
    return std::pair<const uint32_t*, size_t>(order.data() + starts[b], starts[b + 1] - starts[b]);
  };
  std::vector<std::vector<MutableColumnPtr>> columns(kBucketCount);
  std::vector<std::vector<Column*>> raw(kBucketCount);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    for (TypeId type : key_types_) columns[b].push_back(std::make_shared<Column>(type));
    for (MutableColumnPtr& state : NewStateColumns()) columns[b].push_back(std::move(state));
    for (const MutableColumnPtr& column : columns[b]) raw[b].push_back(column.get());
  }
  std::vector<Column*> outs(kBucketCount);
  auto column_outs = [&](size_t column) {
    for (uint32_t b = 0; b < kBucketCount; ++b) outs[b] = raw[b][column];
    return outs.data();
  };
  // Keys.
  if (layout_ == KeyLayout::kString) {
    std::vector<size_t> bytes(kBucketCount, 0);
    for (size_t g = 0; g < groups_; ++g) bytes[bucket_of[g]] += string_keys_[g].View().size();
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      raw[b][0]->Reserve(rows[b]);
      raw[b][0]->MutableChars().reserve(bytes[b]);
    }
    for (size_t g = 0; g < groups_; ++g) raw[bucket_of[g]][0]->AppendString(string_keys_[g].View());
  } else {
    for (size_t k = 0; k < key_columns_.size(); ++k) {
      Column* const* key_outs = column_outs(k);
      if (ScatterColumnByBucket(*key_columns_[k], bucket_of.data(), rows.data(), key_outs)) {
        continue;
      }
      for (uint32_t b = 0; b < kBucketCount; ++b) {
        auto [groups, count] = bucket_groups(b);
        key_outs[b]->AppendTaken(*key_columns_[k], groups, count);
      }
    }
  }
  // States.
  size_t column = key_types_.size();
  std::vector<Column* const*> state_outs(kBucketCount);
  for (size_t a = 0; a < functions_.size(); ++a) {
    for (uint32_t b = 0; b < kBucketCount; ++b) state_outs[b] = raw[b].data() + column;
    if (!functions_[a]->WriteStatesByBucket(bucket_of.data(), rows.data(), state_outs.data())) {
      for (uint32_t b = 0; b < kBucketCount; ++b) {
        auto [groups, count] = bucket_groups(b);
        if (final_only) {
          functions_[a]->WriteFinalOnlyStates(groups, count, state_outs[b]);
        } else if (specs_[a].disjoint) {
          functions_[a]->WriteDisjointStates(groups, count, state_outs[b]);
        } else {
          functions_[a]->WriteStates(groups, count, state_outs[b]);
        }
      }
    }
    column += state_types_[a].size();
  }
  std::vector<Block> buckets(kBucketCount);
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    buckets[b].columns.assign(columns[b].begin(), columns[b].end());
    buckets[b].rows_without_columns = rows[b];
  }
  return buckets;
}

absl::StatusOr<Block> Aggregator::Finalize(bool with_keys) {
  if (layout_ == KeyLayout::kNoKeys && groups_ == 0) {
    groups_ = 1;
    for (const auto& function : functions_) function->Resize(1);
  }
  Block block;
  if (!with_keys) {
    // Keys are dropped by Clear below.
  } else if (layout_ == KeyLayout::kString) {
    std::vector<uint32_t> all(groups_);
    std::iota(all.begin(), all.end(), 0u);
    block.columns = KeysOf(all.data(), all.size());
  } else {
    for (MutableColumnPtr& key : key_columns_) block.columns.push_back(std::move(key));
    key_columns_.clear();
  }
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

void Aggregator::ResetKeys() {
  key_columns_.clear();
  std::vector<KeyRef>().swap(string_keys_);
  if (layout_ == KeyLayout::kString) return;
  for (TypeId type : key_types_) key_columns_.push_back(std::make_shared<Column>(type));
}

void Aggregator::Clear() {
  groups_ = 0;
  ResetKeys();
  std::vector<uint64_t>().swap(group_hashes_);
  for (const auto& function : functions_) function->Clear();
  fixed_.Clear();
  int_map_.Reset(4);
  wide_map_.Reset(4);
  string_map_.Reset(4);
  int_map2_.reset();
  wide_map2_.reset();
  string_map2_.reset();
  two_level_ = false;
  key_arena_.Clear();
  std::vector<uint32_t>().swap(group_ids_);
  std::vector<uint64_t>().swap(hashes_);
  std::vector<uint64_t>().swap(keys64_);
  std::vector<UInt128>().swap(keys128_);
  std::vector<std::string_view>().swap(views_);
  std::vector<uint32_t>().swap(new_rows_);
  short_map_.reset();
  short_keys_off_ = false;
}

}  // namespace granite::core

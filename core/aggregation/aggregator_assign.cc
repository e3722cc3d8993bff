// Aggregator, part 2: group assignment — the per-row loops that map a batch of keys to group ids,
// one template per key layout (see aggregator.h), and the conversion to two-level tables.
//
// Every loop follows the same shape: hash the whole batch first (or reuse known hashes), then walk
// the rows, prefetching the slot of row i + kPrefetchDistance once the table outgrows the L2 cache;
// a row that creates a group records its hash (group_hashes_) and its row index (new_rows_), and
// the new keys are appended to the key columns after the loop, column by column. (Integer keys in
// a cache-resident table hash inside the loop instead: see AssignIntLayout.)
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/packed_keys.h"
#include "core/aggregation/short_keys.h"
#include "core/dictionary_codes.h"
#include "core/hash.h"
#include "core/metrics/events.h"

namespace granite::core {
namespace {

// Prefetching slots pays off only once the table no longer fits in the L2 cache.
constexpr size_t kPrefetchCapacity = 1 << 15;
constexpr size_t kPrefetchDistance = 16;
constexpr uint64_t kSmallLimit = FixedHashMap::kSize;

}  // namespace

void Aggregator::AssignGroups(const std::vector<ColumnPtr>& keys, size_t rows,
                              const uint64_t* known_hashes) {
  group_ids_.resize(rows);
  new_rows_.clear();
  bool new_rows_are_key_rows = false;  // AssignShortKeys mapped them through selection_ itself
  // A LowCardinality key read with its codes (not the keys of a merge, whose hashes are known).
  const DictionaryCodes* dictionary =
      layout_ == KeyLayout::kString && known_hashes == nullptr ? keys[0]->dictionary_codes()
                                                               : nullptr;
  if (dictionary != nullptr &&
      (keys[0]->nullable() || dictionary->codes.size() != keys[0]->size())) {
    dictionary = nullptr;
  }
  switch (layout_) {
    case KeyLayout::kNoKeys:
      if (groups_ == 0) groups_ = 1;
      std::fill(group_ids_.begin(), group_ids_.end(), 0);
      break;
    case KeyLayout::kDirect16:
      DispatchFixed(key_types_[0], [&](auto tag) {
        using T = typename decltype(tag)::Type;
        if constexpr (sizeof(T) <= 2) {
          AssignDirect<T>(*keys[0], rows);
        } else if constexpr (std::is_integral_v<T>) {
          AssignDirectOffset<T>(*keys[0], rows);
        }
      });
      break;
    case KeyLayout::kFixed64:
      keys64_.resize(rows);
      DispatchFixed(key_types_[0], [&](auto tag) {
        using T = typename decltype(tag)::Type;
        const T* values = keys[0]->Data<T>();
        for (size_t i = 0; i < rows; ++i) keys64_[i] = WidenKey(values[i]);
      });
      AssignIntLayout(keys64_.data(), known_hashes, rows);
      break;
    case KeyLayout::kPacked64:
      keys64_.resize(rows);
      PackKeys64(keys, rows, keys64_.data());
      AssignIntLayout(keys64_.data(), known_hashes, rows);
      break;
    case KeyLayout::kPacked128: {
      keys128_.resize(rows);
      PackKeys128(keys, rows, keys128_.data());
      const uint64_t* hashes = known_hashes;
      if (hashes == nullptr) {
        hashes_.resize(rows);
        for (size_t i = 0; i < rows; ++i) hashes_[i] = HashUInt128(keys128_[i]);
        hashes = hashes_.data();
      }
      bool prefetch = groups_ * 2 >= kPrefetchCapacity;
      if (two_level_) {
        prefetch ? AssignWide<true, true>(keys128_.data(), hashes, rows)
                 : AssignWide<true, false>(keys128_.data(), hashes, rows);
      } else {
        prefetch ? AssignWide<false, true>(keys128_.data(), hashes, rows)
                 : AssignWide<false, false>(keys128_.data(), hashes, rows);
      }
      break;
    }
    case KeyLayout::kString:
      if (dictionary != nullptr) {
        AssignByDictionary(*dictionary, rows);
        break;
      }
      [[fallthrough]];
    case KeyLayout::kSerialized:
      if (layout_ == KeyLayout::kSerialized && known_hashes == nullptr &&
          short_packer_ != nullptr && !short_keys_off_ && AssignShortKeys(keys, rows)) {
        new_rows_are_key_rows = true;
        break;
      }
      AssignViews(keys, rows, known_hashes);
      break;
  }
  if (selection_ != nullptr && layout_ == KeyLayout::kSerialized && !new_rows_are_key_rows) {
    // AddSelected: new_rows_ are batch rows; the key columns are indexed by input row.
    for (uint32_t& row : new_rows_) row = selection_[row];
  }
  if (layout_ != KeyLayout::kNoKeys && layout_ != KeyLayout::kString) AppendNewKeys(keys);
  for (const auto& function : functions_) function->Resize(groups_);
  // The byte test counts what a growth rehash moves (table, key references, hashes), not the key
  // arena, which never moves: as Presize estimates it. Counting the arena converted thread
  // tables of ~1M long String keys midway (8.6% of a worker's CPU; single-level is the faster table
  // at that size, bench/results/groupkeys-2026-11-23.md, Session 6).
  if (!two_level_ && !options_.sparse && layout_ != KeyLayout::kNoKeys &&
      layout_ != KeyLayout::kDirect16 &&
      ((options_.two_level_threshold > 0 && groups_ >= options_.two_level_threshold) ||
       (options_.two_level_threshold_bytes > 0 &&
        MemoryBytes() - key_arena_.BytesReserved() >= options_.two_level_threshold_bytes))) {
    ConvertToTwoLevel();
  }
}

void Aggregator::AssignViews(const std::vector<ColumnPtr>& keys, size_t rows,
                             const uint64_t* known_hashes) {
  bool serialized = layout_ == KeyLayout::kSerialized;
  views_.resize(rows);
  if (serialized) {
    SerializeKeys(keys, rows);
  } else if (selection_ != nullptr) {  // AddSelected: the key column holds every row
    for (size_t i = 0; i < rows; ++i) views_[i] = keys[0]->StringAt(selection_[i]);
  } else {
    for (size_t i = 0; i < rows; ++i) views_[i] = keys[0]->StringAt(i);
  }
  const uint64_t* hashes = known_hashes;
  if (hashes == nullptr) {
    hashes_.resize(rows);
    if (serialized && selection_ != nullptr) {
      HashSelectedKeys(keys, selection_, rows, hashes_.data());
    } else if (serialized) {
      HashKeys(keys, rows, hashes_.data());
    } else {
      for (size_t i = 0; i < rows; ++i) hashes_[i] = HashBytes(views_[i]);
    }
    hashes = hashes_.data();
  }
  bool prefetch = groups_ * 2 >= kPrefetchCapacity;
  const std::string_view* views = views_.data();
  if (serialized) {
    if (two_level_) {
      prefetch ? AssignBytes<true, true, true>(views, hashes, rows)
               : AssignBytes<true, false, true>(views, hashes, rows);
    } else {
      prefetch ? AssignBytes<false, true, true>(views, hashes, rows)
               : AssignBytes<false, false, true>(views, hashes, rows);
    }
  } else if (two_level_) {
    prefetch ? AssignBytes<true, true, false>(views, hashes, rows)
             : AssignBytes<true, false, false>(views, hashes, rows);
  } else {
    prefetch ? AssignBytes<false, true, false>(views, hashes, rows)
             : AssignBytes<false, false, false>(views, hashes, rows);
  }
}

bool Aggregator::AssignShortKeys(const std::vector<ColumnPtr>& keys, size_t rows) {
  // One-byte keys index the map's direct table by their bytes; others pack into 128 bits.
  short_codes_.resize(rows);
  const bool one_byte = short_packer_->PackOneByteKeys(keys, selection_, rows, short_codes_.data());
  if (!one_byte) {
    keys128_.resize(rows);
    if (!short_packer_->Pack(keys, selection_, rows, keys128_.data())) return false;
  }
  if (short_map_ == nullptr) short_map_ = std::make_unique<ShortKeyMap>();
  short_ids_.resize(rows);
  short_misses_.clear();
  for (size_t i = 0; i < rows; ++i) {
    const uint32_t group = one_byte ? short_map_->FindOneByte(short_codes_[i])
                                    : short_map_->Find(keys128_[i]);
    short_ids_[i] = group;
    if (group == ShortKeyMap::kAbsent) short_misses_.push_back(static_cast<uint32_t>(i));
  }
  if (!short_misses_.empty()) {
    // The serialized path finds or creates the missed rows' groups (keys, hashes, new_rows_),
    // reading key row short_rows_[j] for miss j.
    const size_t misses = short_misses_.size();
    short_rows_.resize(misses);
    for (size_t j = 0; j < misses; ++j) {
      short_rows_[j] = selection_ != nullptr ? selection_[short_misses_[j]] : short_misses_[j];
    }
    const uint32_t* selection = selection_;
    selection_ = short_rows_.data();
    AssignViews(keys, misses, nullptr);
    selection_ = selection;
    for (uint32_t& row : new_rows_) row = short_rows_[row];
    for (size_t j = 0; j < misses; ++j) {
      const uint32_t group = group_ids_[j];
      short_ids_[short_misses_[j]] = group;
      if (one_byte) {
        short_map_->InsertOneByte(short_codes_[short_misses_[j]], group);
      } else if (!short_map_->Insert(keys128_[short_misses_[j]], group)) {
        // A full map means many distinct keys: the cache would mostly miss, so it stops here.
        short_keys_off_ = true;
      }
    }
  }
  group_ids_.swap(short_ids_);
  return true;
}

void Aggregator::AssignByDictionary(const DictionaryCodes& codes, size_t rows) {
  const uint32_t* row_codes = codes.codes.data();
  dictionary_slots_.assign(codes.dictionary->size(), UINT32_MAX);
  dictionary_values_.clear();
  for (size_t i = 0; i < rows; ++i) {
    const uint32_t code = row_codes[selection_ != nullptr ? selection_[i] : i];
    uint32_t& slot = dictionary_slots_[code];
    if (slot == UINT32_MAX) {
      slot = static_cast<uint32_t>(dictionary_values_.size());
      dictionary_values_.push_back(code);
    }
  }
  const size_t distinct = dictionary_values_.size();
  views_.resize(distinct);
  hashes_.resize(distinct);
  for (size_t j = 0; j < distinct; ++j) {
    views_[j] = codes.dictionary->StringAt(dictionary_values_[j]);
    hashes_[j] = HashBytes(views_[j]);
  }
  // The distinct values' groups land in group_ids_[0, distinct), then each row takes its value's.
  group_ids_.resize(std::max(rows, distinct));
  if (two_level_) {
    AssignBytes<true, false, false>(views_.data(), hashes_.data(), distinct);
  } else {
    AssignBytes<false, false, false>(views_.data(), hashes_.data(), distinct);
  }
  for (size_t j = 0; j < distinct; ++j) {
    dictionary_slots_[dictionary_values_[j]] = group_ids_[j];
  }
  uint32_t* ids = group_ids_.data();
  if (selection_ != nullptr) {
    for (size_t i = 0; i < rows; ++i) ids[i] = dictionary_slots_[row_codes[selection_[i]]];
  } else {
    for (size_t i = 0; i < rows; ++i) ids[i] = dictionary_slots_[row_codes[i]];
  }
  group_ids_.resize(rows);
}

inline uint32_t Aggregator::DirectGroup(uint16_t index, uint64_t key, size_t row) {
  auto group = static_cast<uint32_t>(groups_++);
  fixed_.Data()[index] = group;
  fixed_.NoteOccupied(index);
  group_hashes_.push_back(HashIntKey(key));
  new_rows_.push_back(static_cast<uint32_t>(row));
  return group;
}

template <typename T>
void Aggregator::AssignDirect(const Column& key, size_t rows) {
  using Index = std::make_unsigned_t<T>;
  const T* values = key.Data<T>();
  uint32_t* direct = fixed_.Data();
  uint32_t* ids = group_ids_.data();
  for (size_t i = 0; i < rows; ++i) {
    auto index = static_cast<Index>(values[i]);
    uint32_t group = direct[index];
    if (group == FixedHashMap::kEmpty) group = DirectGroup(index, WidenKey(values[i]), i);
    ids[i] = group;
  }
}

// A wide integer key of a planned range (AggregatorOptions::direct_key): index v - base. Bits of an
// index past 16 are collected, not branched on, and fail the batch in Add.
template <typename T>
void Aggregator::AssignDirectOffset(const Column& key, size_t rows) {
  const T* values = key.Data<T>();
  const uint64_t base = options_.direct_key_base;
  uint32_t* direct = fixed_.Data();
  uint32_t* ids = group_ids_.data();
  uint64_t outside = 0;
  for (size_t i = 0; i < rows; ++i) {
    uint64_t offset = WidenKey(values[i]) - base;
    outside |= offset;
    auto index = static_cast<uint16_t>(offset);
    uint32_t group = direct[index];
    if (group == FixedHashMap::kEmpty) group = DirectGroup(index, WidenKey(values[i]), i);
    ids[i] = group;
  }
  if (outside >> 16) direct_key_violated_ = true;
}

void Aggregator::AssignIntLayout(const uint64_t* keys, const uint64_t* known_hashes,
                                 size_t rows) {
  bool small = !options_.sparse;
  if (small) {
    // All rows below 2^16 (their OR is): the direct array alone, no hashing at all.
    uint64_t any_bits = 0;
    for (size_t i = 0; i < rows; ++i) any_bits |= keys[i];
    if (any_bits < kSmallLimit) {
      uint32_t* direct = fixed_.Data();
      uint32_t* ids = group_ids_.data();
      for (size_t i = 0; i < rows; ++i) {
        auto index = static_cast<uint32_t>(keys[i]);
        uint32_t group = direct[index];
        if (group == FixedHashMap::kEmpty) {
          group = static_cast<uint32_t>(groups_++);
          direct[index] = group;
          fixed_.NoteOccupied(index);
          group_hashes_.push_back(HashIntKey(keys[i]));
          new_rows_.push_back(static_cast<uint32_t>(i));
        }
        ids[i] = group;
      }
      return;
    }
  }
  bool prefetch = groups_ * 2 >= kPrefetchCapacity;
  const uint64_t* hashes = known_hashes;
  if (hashes == nullptr && prefetch) {
    // Prefetching needs the hashes of rows ahead: hash the batch first. A cache-resident table
    // instead hashes each row inside the probe loop (hashes == nullptr): HashIntKey is one
    // multiply, cheaper than storing and reloading it, and keys of the direct array skip it.
    hashes_.resize(rows);
    for (size_t i = 0; i < rows; ++i) hashes_[i] = HashIntKey(keys[i]);
    hashes = hashes_.data();
  }
  if (two_level_) {
    if (prefetch) {
      small ? AssignInt<true, true, true>(keys, hashes, rows)
            : AssignInt<true, true, false>(keys, hashes, rows);
    } else {
      small ? AssignInt<true, false, true>(keys, hashes, rows)
            : AssignInt<true, false, false>(keys, hashes, rows);
    }
  } else if (prefetch) {
    small ? AssignInt<false, true, true>(keys, hashes, rows)
          : AssignInt<false, true, false>(keys, hashes, rows);
  } else {
    small ? AssignInt<false, false, true>(keys, hashes, rows)
          : AssignInt<false, false, false>(keys, hashes, rows);
  }
}

// `hashes` is null when the rows have no precomputed hashes (then kPrefetch is false).
template <bool kTwoLevel, bool kPrefetch, bool kSmall>
void Aggregator::AssignInt(const uint64_t* keys, const uint64_t* hashes, size_t rows) {
  uint32_t* ids = group_ids_.data();
  uint32_t* direct = kSmall ? fixed_.Data() : nullptr;
  IntHashMap* single = &int_map_;
  TwoLevelHashMap<IntHashMap>* two = int_map2_.get();
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + kPrefetchDistance < rows) {
      uint64_t ahead = hashes[i + kPrefetchDistance];
      if constexpr (kTwoLevel) {
        two->Prefetch(ahead);
      } else {
        single->Prefetch(ahead);
      }
    }
    uint64_t key = keys[i];
    // A run of equal keys (rows clustered by the key: a table sorted by it, its lines inserted
    // together) probes the table once: GROUP BY orderkey over lineitem repeats each key ~4 times.
    if (i > 0 && key == keys[i - 1]) {
      ids[i] = ids[i - 1];
      continue;
    }
    uint32_t group;
    if (kSmall && key < kSmallLimit) {
      group = direct[key];
      if (group == FixedHashMap::kEmpty) {
        group = static_cast<uint32_t>(groups_++);
        direct[key] = group;
        fixed_.NoteOccupied(static_cast<uint32_t>(key));
        group_hashes_.push_back(hashes != nullptr ? hashes[i] : HashIntKey(key));
        new_rows_.push_back(static_cast<uint32_t>(i));
      }
    } else {
      auto next = static_cast<uint32_t>(groups_);
      uint64_t hash = hashes != nullptr ? hashes[i] : HashIntKey(key);
      IntHashMap& table = kTwoLevel ? two->sub(hash) : *single;
      group = table.FindOrInsert(key, hash, next);
      if (group == next) {
        ++groups_;
        group_hashes_.push_back(hash);
        new_rows_.push_back(static_cast<uint32_t>(i));
      }
    }
    ids[i] = group;
  }
}

template <bool kTwoLevel, bool kPrefetch>
void Aggregator::AssignWide(const UInt128* keys, const uint64_t* hashes, size_t rows) {
  uint32_t* ids = group_ids_.data();
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + kPrefetchDistance < rows) {
      uint64_t ahead = hashes[i + kPrefetchDistance];
      if constexpr (kTwoLevel) {
        wide_map2_->Prefetch(ahead);
      } else {
        wide_map_.Prefetch(ahead);
      }
    }
    if (i > 0 && keys[i] == keys[i - 1]) {  // a run of equal keys probes once (AssignInt)
      ids[i] = ids[i - 1];
      continue;
    }
    auto next = static_cast<uint32_t>(groups_);
    UInt128HashMap& table = kTwoLevel ? wide_map2_->sub(hashes[i]) : wide_map_;
    uint32_t group = table.FindOrInsert(keys[i], hashes[i], next);
    if (group == next) {
      ++groups_;
      group_hashes_.push_back(hashes[i]);
      new_rows_.push_back(static_cast<uint32_t>(i));
    }
    ids[i] = group;
  }
}

// Prefetching is two-staged: the slot of row i + 2 * kPrefetchDistance, then, once that slot is in
// cache, the stored bytes of row i + kPrefetchDistance's key if the slot holds a key of its hash
// (a hit on a long key compares its bytes in the arena).
template <bool kTwoLevel, bool kPrefetch, bool kSerialized>
void Aggregator::AssignBytes(const std::string_view* keys, const uint64_t* hashes, size_t rows) {
  uint32_t* ids = group_ids_.data();
  if constexpr (kPrefetch) {  // the slots of the first rows, which the loop does not prefetch
    for (size_t i = 0; i < std::min(rows, 2 * kPrefetchDistance); ++i) {
      if constexpr (kTwoLevel) {
        string_map2_->Prefetch(hashes[i]);
      } else {
        string_map_.Prefetch(hashes[i]);
      }
    }
  }
  for (size_t i = 0; i < rows; ++i) {
    if (kPrefetch && i + 2 * kPrefetchDistance < rows) {
      uint64_t ahead = hashes[i + 2 * kPrefetchDistance];
      if constexpr (kTwoLevel) {
        string_map2_->Prefetch(ahead);
      } else {
        string_map_.Prefetch(ahead);
      }
    }
    if (kPrefetch && i + kPrefetchDistance < rows) {
      uint64_t ahead = hashes[i + kPrefetchDistance];
      if constexpr (kTwoLevel) {
        string_map2_->PrefetchKey(ahead);
      } else {
        string_map_.PrefetchKey(ahead);
      }
    }
    auto next = static_cast<uint32_t>(groups_);
    StringHashMap& table = kTwoLevel ? string_map2_->sub(hashes[i]) : string_map_;
    KeyRef stored;
    uint32_t group = table.FindOrInsert(keys[i], hashes[i], next, key_arena_, &stored);
    if (group == next) {
      ++groups_;
      group_hashes_.push_back(hashes[i]);
      if constexpr (kSerialized) {
        new_rows_.push_back(static_cast<uint32_t>(i));
      } else {
        string_keys_.push_back(stored);
      }
    }
    ids[i] = group;
  }
}

void Aggregator::AppendNewKeys(const std::vector<ColumnPtr>& keys) {
  size_t count = new_rows_.size();
  if (count == 0) return;
  // Every row new and in order (a merge of distinct keys, a first batch of distinct values).
  bool all_rows = new_rows_.back() + 1 == count;
  for (size_t k = 0; k < keys.size(); ++k) {
    // New keys go straight into the growing key columns (no temporary column); both append
    // paths grow the buffers geometrically, so a key column built batch by batch stays linear.
    if (all_rows) {
      key_columns_[k]->AppendRange(*keys[k], 0, count);
    } else {
      key_columns_[k]->AppendTaken(*keys[k], new_rows_.data(), count);
    }
  }
}

namespace {

// Writes the serialized keys of batch rows [0, rows) (input rows row_of(i)) and their views.
template <typename RowOf>
void SerializeRows(const std::vector<TypeId>& key_types, const std::vector<ColumnPtr>& keys,
                   size_t rows, RowOf row_of, std::string* serialized,
                   std::vector<size_t>* serialized_offsets, std::string_view* views) {
  // Lengths first (fixed widths plus each string with its 4-byte prefix), then column by column,
  // so the type dispatch happens once per column rather than once per value.
  size_t fixed_width = 0;
  for (TypeId type : key_types) {
    fixed_width += (HasStringLayout(type) ? sizeof(uint32_t) : ValueSize(type)) + (IsNullable(type) ? 1 : 0);
  }
  serialized_offsets->assign(rows + 1, 0);
  size_t* offsets = serialized_offsets->data();
  for (size_t i = 0; i < rows; ++i) offsets[i + 1] = fixed_width;
  for (const ColumnPtr& key : keys) {
    if (!HasStringLayout(key->type())) continue;
    for (size_t i = 0; i < rows; ++i) offsets[i + 1] += key->StringAt(row_of(i)).size();
  }
  for (size_t i = 0; i < rows; ++i) offsets[i + 1] += offsets[i];
  serialized->resize(offsets[rows]);
  std::vector<size_t> cursor(offsets, offsets + rows);
  char* out = serialized->data();
  for (size_t k = 0; k < keys.size(); ++k) {
    const ColumnPtr& key = keys[k];
    if (IsNullable(key_types[k])) {  // a flag byte, then the value (the default under NULL)
      const uint8_t* nulls = key->NullMap();
      for (size_t i = 0; i < rows; ++i) {
        out[cursor[i]] = nulls != nullptr && nulls[row_of(i)] != 0 ? 1 : 0;
        cursor[i] += 1;
      }
    }
    if (HasStringLayout(key->type())) {
      for (size_t i = 0; i < rows; ++i) {
        std::string_view value = key->StringAt(row_of(i));
        auto size = static_cast<uint32_t>(value.size());
        std::memcpy(out + cursor[i], &size, sizeof(size));
        if (!value.empty()) std::memcpy(out + cursor[i] + sizeof(size), value.data(), size);
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
        StoreKeyBytes(values[row_of(i)], out + cursor[i]);
        cursor[i] += sizeof(T);
      }
    });
  }
  for (size_t i = 0; i < rows; ++i) {
    views[i] = std::string_view(out + offsets[i], offsets[i + 1] - offsets[i]);
  }
}

}  // namespace

void Aggregator::SerializeKeys(const std::vector<ColumnPtr>& keys, size_t rows) {
  if (selection_ != nullptr) {  // AddSelected: batch row i is input row selection_[i]
    SerializeRows(key_types_, keys, rows, [sel = selection_](size_t i) -> size_t { return sel[i]; },
                  &serialized_, &serialized_offsets_, views_.data());
  } else {
    SerializeRows(key_types_, keys, rows, [](size_t i) { return i; }, &serialized_,
                  &serialized_offsets_, views_.data());
  }
}

void Aggregator::Presize(size_t groups) {
  // A bound on what a stale statistic (the table shrank since) can make one thread allocate up
  // front: 16M groups, ~0.8 GiB of 24-byte slots; a bigger table grows from there as before.
  constexpr size_t kMaxPresizeGroups = size_t{1} << 24;
  if (groups_ != 0 || two_level_ || groups == 0) return;
  size_t slot_bytes = 0;
  switch (layout_) {
    case KeyLayout::kFixed64:
    case KeyLayout::kPacked64:
      slot_bytes = 16;
      break;
    case KeyLayout::kPacked128:
    case KeyLayout::kString:
    case KeyLayout::kSerialized:
      slot_bytes = 24;
      break;
    case KeyLayout::kNoKeys:
    case KeyLayout::kDirect16:
      return;
  }
  groups = std::min(groups, kMaxPresizeGroups);
  // What MemoryBytes() would say once the table holds `groups` keys (single-level, load <= 1/2;
  // a string key counted as its 16-byte KeyRef): the conversion test of AssignGroups.
  size_t key_bytes = layout_ == KeyLayout::kString ? 16 : 0;
  for (TypeId type : key_types_) key_bytes += HasStringLayout(type) ? 16 : ValueSize(type);
  size_t bytes = std::bit_ceil(groups * 2) * slot_bytes + groups * (sizeof(uint64_t) + key_bytes);
  bool two_level =
      !options_.sparse &&
      ((options_.two_level_threshold > 0 && groups >= options_.two_level_threshold) ||
       (options_.two_level_threshold_bytes > 0 && bytes >= options_.two_level_threshold_bytes));
  if (!two_level) {
    Reserve(groups);
    return;
  }
  // Sub-table b gets the keys of bucket b: groups / kBucketCount on average, within a few
  // percent; a sub-table that still overflows just grows.
  size_t per_sub = groups / kBucketCount + groups / kBucketCount / 16 + 64;
  switch (layout_) {
    case KeyLayout::kFixed64:
    case KeyLayout::kPacked64:
      int_map2_ = std::make_unique<TwoLevelHashMap<IntHashMap>>();
      int_map2_->Reserve(per_sub);
      break;
    case KeyLayout::kPacked128:
      wide_map2_ = std::make_unique<TwoLevelHashMap<UInt128HashMap>>();
      wide_map2_->Reserve(per_sub);
      break;
    case KeyLayout::kString:
    case KeyLayout::kSerialized:
      string_map2_ = std::make_unique<TwoLevelHashMap<StringHashMap>>();
      string_map2_->Reserve(per_sub);
      break;
    case KeyLayout::kNoKeys:
    case KeyLayout::kDirect16:
      return;
  }
  two_level_ = true;
  if (layout_ == KeyLayout::kString) string_keys_.reserve(groups);
  group_hashes_.reserve(groups);
  for (const MutableColumnPtr& key : key_columns_) key->Reserve(groups);
  for (const auto& function : functions_) function->Reserve(groups);
  CountEvent(Event::kHashTablePresized);
}

void Aggregator::ConvertToTwoLevel() {
  if (two_level_) return;
  switch (layout_) {
    case KeyLayout::kFixed64:
    case KeyLayout::kPacked64:
      int_map2_ = std::make_unique<TwoLevelHashMap<IntHashMap>>();
      int_map2_->ConvertFrom(int_map_);
      int_map_.Reset(4);
      break;
    case KeyLayout::kPacked128:
      wide_map2_ = std::make_unique<TwoLevelHashMap<UInt128HashMap>>();
      wide_map2_->ConvertFrom(wide_map_);
      wide_map_.Reset(4);
      break;
    case KeyLayout::kString:
    case KeyLayout::kSerialized:
      string_map2_ = std::make_unique<TwoLevelHashMap<StringHashMap>>();
      string_map2_->ConvertFrom(string_map_);
      string_map_.Reset(4);
      break;
    case KeyLayout::kNoKeys:
    case KeyLayout::kDirect16:
      return;
  }
  two_level_ = true;
  CountEvent(Event::kHashTableTwoLevelConversions);
}

}  // namespace granite::core

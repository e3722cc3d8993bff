// Short keys: a front cache of the kSerialized GROUP BY layout for a few short String keys
// (`GROUP BY flag, status` over one-letter Strings, possibly with fixed-width keys beside them).
// Serializing such keys costs a byte copy, two byte-string hashes and a byte-wise table probe per
// row, for a handful of groups. Here a row's keys pack into one 128-bit value instead (per key in
// order: a fixed-width key's bytes as StoreKeyBytes writes them; a String key's length in one byte
// then its bytes, zero-padded to the key's capacity) and a small open-addressing table maps the
// packed value to the group the serialized layout gave it. The packing is injective (lengths are
// stored, so "a" and "a\0" differ), and groups, their keys and key hashes are still made by the
// serialized path, so results and buckets do not change: this table is only a cache in front.
// One or two String keys whose values all have one byte skip the packing and the hash: their
// bytes index a direct table (PackOneByteKeys, FindOneByte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/aggregation/int_hash_map.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// Packs rows of a fixed set of key columns into UInt128 values.
// Thread-safety: immutable after construction.
class ShortKeyPacker {
 public:
  // Returns a packer for keys of `types`, or null when they cannot pack into 16 bytes with at
  // least one byte of capacity per String key (every key must be a non-Nullable String,
  // FixedString or fixed-width type, with at least one String key; no Array).
  static std::unique_ptr<ShortKeyPacker> Create(const std::vector<TypeId>& types);

  // Writes the packed keys of rows row(0 .. rows) to out[0 .. rows), where row(i) is
  // selection[i] when selection is set, else i. Returns false (out unspecified) when some String
  // key of those rows is longer than its capacity.
  // REQUIRES: keys match the types of Create; every read row lies in every column.
  bool Pack(const std::vector<ColumnPtr>& keys, const uint32_t* selection, size_t rows,
            UInt128* out) const;

  // One or two String keys whose values in `keys` all have exactly one byte (one-letter flags
  // and statuses): writes code(row(i)) = first key's byte | second key's byte << 8 to
  // out[0 .. rows) and returns true; returns false (out unspecified) for other keys or values.
  // One scan of each key's ends decides (UniformLength); the codes are injective for one set of
  // key types, and ShortKeyMap::FindOneByte maps them without hashing.
  // REQUIRES: as Pack.
  bool PackOneByteKeys(const std::vector<ColumnPtr>& keys, const uint32_t* selection, size_t rows,
                       uint16_t* out) const;

  // The most bytes a String key may have (the same for every String key).
  size_t string_capacity() const { return string_capacity_; }

 private:
  ShortKeyPacker() = default;

  std::vector<size_t> offsets_;  // per key: its byte offset in the packed value
  std::vector<bool> is_string_;  // per key
  size_t string_capacity_ = 0;
  bool full_cover_ = false;  // every byte of a packed value is written by some key
};

// Maps packed keys to group ids: at most kCapacity / 2 of them, then it refuses new ones.
// Thread-safety: none; one per Aggregator.
class ShortKeyMap {
 public:
  static constexpr uint32_t kAbsent = 0xffffffffu;
  static constexpr size_t kCapacity = 4096;  // slots; a few groups stay in the L1 cache

  ShortKeyMap();
  // Returns the group of `key`, or kAbsent.
  uint32_t Find(UInt128 key) const {
    for (size_t pos = HashUInt128(key) & (kCapacity - 1);; pos = (pos + 1) & (kCapacity - 1)) {
      const Slot& slot = slots_[pos];
      if (slot.group == kAbsent || slot.key == key) return slot.group;
    }
  }
  // Maps `key` to `group` unless it is mapped already. Returns false when the map is full (the
  // key is then not added).
  bool Insert(UInt128 key, uint32_t group);
  // The same for the codes of PackOneByteKeys, in a direct table of 2^16 groups made on first
  // use (256 KiB, of which a few lines are touched).
  uint32_t FindOneByte(uint16_t code) const {
    return one_byte_.empty() ? kAbsent : one_byte_[code];
  }
  void InsertOneByte(uint16_t code, uint32_t group);
  size_t size() const { return size_; }
  // Drops every key.
  void Clear();

 private:
  struct Slot {
    UInt128 key;
    uint32_t group;
  };
  std::vector<Slot> slots_;
  size_t size_ = 0;
  std::vector<uint32_t> one_byte_;  // by code: the group, or kAbsent; empty until first used
};

}  // namespace granite::core

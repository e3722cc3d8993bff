#include "core/aggregation/short_keys.h"

#include <algorithm>
#include <cstring>

#include "core/aggregation/key_hash.h"

namespace granite::core {
namespace {

constexpr size_t kPackedBytes = sizeof(UInt128);

// Writes each row's String key at byte `offset` of its packed value: the length, then the bytes.
// With `word_store` (capacity <= 7, offset + 8 <= 16) the length and bytes go in one 8-byte
// store, zeros past the value (bytes of later keys, which are written after this one); else
// only the length and the value's bytes are written. Returns false at the first value longer
// than `capacity`.
template <bool word_store, typename RowOf>
bool PackString(const Column& key, size_t offset, size_t capacity, size_t rows, RowOf row_of,
                UInt128* out) {
  const uint64_t* ends = key.Offsets().data();
  const char* chars = key.Chars().data();
  const size_t chars_size = key.Chars().size();
  char* base = reinterpret_cast<char*>(out) + offset;
  for (size_t i = 0; i < rows; ++i) {
    const size_t row = row_of(i);
    const uint64_t begin = row == 0 ? 0 : ends[row - 1];
    const uint64_t length = ends[row] - begin;
    if (length > capacity) return false;
    char* dst = base + i * sizeof(UInt128);
    if constexpr (word_store) {
      // The value's bytes masked out of one 8-byte load when the buffer has 8 bytes there.
      uint64_t bytes = 0;
      if (begin + 8 <= chars_size) {
        std::memcpy(&bytes, chars + begin, 8);
        bytes &= length == 0 ? 0 : (~uint64_t{0} >> (64 - 8 * length));
      } else if (length > 0) {
        std::memcpy(&bytes, chars + begin, length);
      }
      const uint64_t word = length | (bytes << 8);
      std::memcpy(dst, &word, 8);
    } else {
      dst[0] = static_cast<char>(length);
      if (length > 0) std::memcpy(dst + 1, chars + begin, length);
    }
  }
  return true;
}

// Returns true when every row of `key` has `length` bytes: its values lie back to back at
// multiples of `length`. One pass over the ends that ORs their differences from those multiples
// (xor, or and add vectorize on baseline x86-64, a 64-bit compare does not).
bool UniformLength(const Column& key, uint64_t length) {
  const uint64_t* ends = key.Offsets().data();
  const size_t n = key.size();
  uint64_t differences = 0;
  uint64_t end = 0;
  for (size_t i = 0; i < n; ++i) {
    end += length;
    differences |= ends[i] ^ end;
  }
  return differences == 0;
}

// PackString for a key whose rows all have `length` <= capacity bytes (a one-letter flag or
// status, the common low-cardinality String key): row r's bytes are at r * length, so no row
// reads its offsets. Writes the same packed values as PackString.
// REQUIRES: UniformLength(key, length); length <= 7; offset + 8 <= 16.
template <typename RowOf>
void PackUniformString(const Column& key, size_t offset, uint64_t length, size_t rows,
                       RowOf row_of, UInt128* out) {
  const char* chars = key.Chars().data();
  const size_t chars_size = key.Chars().size();
  const uint64_t mask = length == 0 ? 0 : (~uint64_t{0} >> (64 - 8 * length));
  char* base = reinterpret_cast<char*>(out) + offset;
  // Rows whose 8-byte load stays inside the buffer; the last few copy their bytes.
  const uint64_t safe_rows =
      chars_size >= 8 ? (chars_size - 8) / std::max<uint64_t>(length, 1) + 1 : 0;
  for (size_t i = 0; i < rows; ++i) {
    const size_t row = row_of(i);
    uint64_t bytes = 0;
    if (row < safe_rows) {
      std::memcpy(&bytes, chars + row * length, 8);
      bytes &= mask;
    } else if (length > 0) {
      std::memcpy(&bytes, chars + row * length, length);
    }
    const uint64_t word = length | (bytes << 8);
    std::memcpy(base + i * sizeof(UInt128), &word, 8);
  }
}

// Returns true if no String key of the rows is longer than `capacity`; stops at the first that is
// (a batch of long values costs a scan of lengths up to there, nothing more).
template <typename RowOf>
bool AllFit(const std::vector<ColumnPtr>& keys, size_t rows, RowOf row_of, size_t capacity,
            const std::vector<bool>& is_string) {
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!is_string[k]) continue;
    const uint64_t* ends = keys[k]->Offsets().data();
    for (size_t i = 0; i < rows; ++i) {
      const size_t row = row_of(i);
      if (ends[row] - (row == 0 ? 0 : ends[row - 1]) > capacity) return false;
    }
  }
  return true;
}

template <typename RowOf>
bool PackRows(const std::vector<ColumnPtr>& keys, size_t rows, RowOf row_of, size_t capacity,
              const std::vector<size_t>& offsets, const std::vector<bool>& is_string,
              bool full_cover, UInt128* out) {
  if (!full_cover) {
    // Bytes no key writes must read as zero: cleared first, once the batch is known to pack.
    if (!AllFit(keys, rows, row_of, capacity, is_string)) return false;
    std::memset(static_cast<void*>(out), 0, rows * sizeof(UInt128));
  }
  // String keys first (a batch of long values stops before any other work), in key order so a
  // word store's zeros past its value land in later keys' bytes, written after it; the
  // fixed-width keys last.
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!is_string[k]) continue;
    const bool word_store = capacity <= 7 && offsets[k] + 8 <= kPackedBytes;
    const Column& key = *keys[k];
    if (word_store && key.size() > 0) {
      const uint64_t length = key.Offsets()[0];
      if (length <= capacity && UniformLength(key, length)) {
        PackUniformString(key, offsets[k], length, rows, row_of, out);
        continue;
      }
    }
    const bool ok = capacity <= 7 && offsets[k] + 8 <= kPackedBytes
                        ? PackString<true>(*keys[k], offsets[k], capacity, rows, row_of, out)
                        : PackString<false>(*keys[k], offsets[k], capacity, rows, row_of, out);
    if (!ok) return false;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    if (is_string[k]) continue;
    DispatchFixed(keys[k]->type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* values = keys[k]->Data<T>();
      for (size_t i = 0; i < rows; ++i) {
        StoreKeyBytes(values[row_of(i)], reinterpret_cast<char*>(&out[i]) + offsets[k]);
      }
    });
  }
  return true;
}

}  // namespace

std::unique_ptr<ShortKeyPacker> ShortKeyPacker::Create(const std::vector<TypeId>& types) {
  size_t fixed = 0;
  size_t strings = 0;
  for (TypeId type : types) {
    if (IsNullable(type) || IsArray(type)) return nullptr;
    if (HasStringLayout(type)) {
      ++strings;
    } else {
      fixed += ValueSize(type);
    }
  }
  // Each String key takes a length byte and `capacity` value bytes.
  if (strings == 0 || fixed + strings * 2 > kPackedBytes) return nullptr;
  auto packer = std::unique_ptr<ShortKeyPacker>(new ShortKeyPacker());
  packer->string_capacity_ = (kPackedBytes - fixed - strings) / strings;
  const size_t capacity = packer->string_capacity_;
  size_t offset = 0;
  size_t written = 0;  // bytes every row gets written whatever its values
  for (TypeId type : types) {
    const bool is_string = HasStringLayout(type);
    packer->offsets_.push_back(offset);
    packer->is_string_.push_back(is_string);
    const size_t width = is_string ? 1 + capacity : ValueSize(type);
    if (!is_string) {
      written += width;
    } else if (capacity <= 7 && offset + 8 <= kPackedBytes) {
      written += width;  // a word store covers the key's bytes
    }
    offset += width;
  }
  packer->full_cover_ = written == kPackedBytes;
  return packer;
}

bool ShortKeyPacker::Pack(const std::vector<ColumnPtr>& keys, const uint32_t* selection,
                          size_t rows, UInt128* out) const {
  if (selection != nullptr) {
    return PackRows(keys, rows, [selection](size_t i) -> size_t { return selection[i]; },
                    string_capacity_, offsets_, is_string_, full_cover_, out);
  }
  return PackRows(keys, rows, [](size_t i) { return i; }, string_capacity_, offsets_, is_string_,
                  full_cover_, out);
}

bool ShortKeyPacker::PackOneByteKeys(const std::vector<ColumnPtr>& keys,
                                     const uint32_t* selection, size_t rows,
                                     uint16_t* out) const {
  if (keys.empty() || keys.size() > 2) return false;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!is_string_[k] || !UniformLength(*keys[k], 1)) return false;
  }
  const uint8_t* first = reinterpret_cast<const uint8_t*>(keys[0]->Chars().data());
  const uint8_t* second =
      keys.size() == 2 ? reinterpret_cast<const uint8_t*>(keys[1]->Chars().data()) : nullptr;
  auto pack = [&](auto row_of) {
    if (second == nullptr) {
      for (size_t i = 0; i < rows; ++i) out[i] = first[row_of(i)];
    } else {
      for (size_t i = 0; i < rows; ++i) {
        const size_t row = row_of(i);
        out[i] = static_cast<uint16_t>(first[row] | (second[row] << 8));
      }
    }
  };
  if (selection != nullptr) {
    pack([selection](size_t i) -> size_t { return selection[i]; });
  } else {
    pack([](size_t i) { return i; });
  }
  return true;
}

ShortKeyMap::ShortKeyMap() { Clear(); }

void ShortKeyMap::InsertOneByte(uint16_t code, uint32_t group) {
  if (one_byte_.empty()) one_byte_.assign(size_t{1} << 16, kAbsent);
  if (one_byte_[code] == kAbsent) one_byte_[code] = group;
}

bool ShortKeyMap::Insert(UInt128 key, uint32_t group) {
  size_t pos = HashUInt128(key) & (kCapacity - 1);
  while (true) {
    Slot& slot = slots_[pos];
    if (slot.group == kAbsent) break;
    if (slot.key == key) return true;
    pos = (pos + 1) & (kCapacity - 1);
  }
  if (size_ >= kCapacity / 2) return false;
  slots_[pos] = Slot{key, group};
  ++size_;
  return true;
}

void ShortKeyMap::Clear() {
  slots_.assign(kCapacity, Slot{UInt128{0, 0}, kAbsent});
  size_ = 0;
  one_byte_.clear();
}

}  // namespace granite::core

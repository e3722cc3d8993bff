#include "storage/dictionary_serialization.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "core/absl_compat.h"

namespace granite::storage {

bool BuildDictionary(const core::Column& column, std::vector<std::string>* values,
                     std::vector<uint32_t>* codes) {
  values->clear();
  codes->resize(column.size());
  absl::flat_hash_map<absl::string_view, uint32_t> index;
  size_t bytes = 0;
  for (size_t row = 0; row < column.size(); ++row) {
    const std::string_view value = column.StringAt(row);
    auto [it, inserted] =
        index.try_emplace(core::ToAbsl(value), static_cast<uint32_t>(values->size()));
    if (inserted) {
      bytes += value.size();
      if (values->size() >= kMaxDictionarySize || bytes > kMaxDictionaryBytes) return false;
      values->emplace_back(value);
    }
    (*codes)[row] = it->second;
  }
  return true;
}

size_t CodeWidth(size_t size) {
  if (size <= (size_t{1} << 8)) return 1;
  if (size <= (size_t{1} << 16)) return 2;
  return 4;
}

std::string_view EncodeDictionaryGranule(const std::vector<uint32_t>& codes, size_t width,
                                         const core::Column& column, size_t begin, size_t end,
                                         bool null_map, std::string* scratch) {
  const size_t rows = end - begin;
  scratch->resize(rows * width + (null_map ? rows : 0));
  char* out = scratch->data();
  for (size_t row = begin; row < end; ++row, out += width) {
    const uint32_t code = codes[row];
    std::memcpy(out, &code, width);  // little-endian: the low bytes
  }
  if (null_map) {
    const uint8_t* nulls = column.NullMap();
    if (nulls != nullptr) {
      std::memcpy(out, nulls + begin, rows);
    } else {
      std::memset(out, 0, rows);
    }
  }
  return *scratch;
}

namespace {

template <typename T>
bool AppendCodes(const char* raw, size_t rows, size_t size, uint32_t* out) {
  uint32_t max = 0;
  for (size_t i = 0; i < rows; ++i) {
    T code;
    std::memcpy(&code, raw + i * sizeof(T), sizeof(T));
    out[i] = code;
    max = std::max<uint32_t>(max, code);
  }
  return rows == 0 || max < size;
}

}  // namespace

bool DecodeDictionaryGranule(std::string_view raw, size_t rows, size_t size,
                             std::vector<uint32_t>* codes, std::vector<uint8_t>* nulls) {
  const size_t width = CodeWidth(size);
  if (raw.size() != rows * width + (nulls != nullptr ? rows : 0)) return false;
  const size_t old = codes->size();
  codes->resize(old + rows);
  uint32_t* out = codes->data() + old;
  bool ok = width == 1   ? AppendCodes<uint8_t>(raw.data(), rows, size, out)
            : width == 2 ? AppendCodes<uint16_t>(raw.data(), rows, size, out)
                         : AppendCodes<uint32_t>(raw.data(), rows, size, out);
  if (!ok) return false;
  if (nulls != nullptr) {
    const auto* map = reinterpret_cast<const uint8_t*>(raw.data()) + rows * width;
    nulls->insert(nulls->end(), map, map + rows);
  }
  return true;
}

core::ColumnPtr DictionaryColumn(core::TypeId type, const std::vector<std::string>& values) {
  auto column = std::make_shared<core::Column>(core::RemoveNullable(type));
  size_t bytes = 0;
  for (const std::string& value : values) bytes += value.size();
  column->MutableChars().reserve(bytes);
  column->MutableOffsets().reserve(values.size());
  for (const std::string& value : values) column->AppendString(value);
  return column;
}

namespace {

// Copies the values of `codes` to `dst` as `width` bytes each, the next value over the rest;
// `dst` has `width` bytes of room past the values. A value too near the end of `chars` to read
// `width` bytes from is copied at its length. `starts[c]` and `starts[c + 1]` bound value c.
// Returns the end of the bytes written.
template <size_t width>
size_t CopyValues(const uint64_t* starts, const char* chars, size_t chars_size,
                  const uint32_t* codes, size_t count, char* dst, uint64_t* out_ends, size_t at) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t begin = starts[codes[i]];
    const uint64_t length = starts[codes[i] + 1] - begin;
    if (width > 0 && begin + width <= chars_size) {
      std::memcpy(dst + at, chars + begin, width);  // a fixed size: two or four moves
    } else {
      std::memcpy(dst + at, chars + begin, length);
    }
    at += length;
    out_ends[i] = at;
  }
  return at;
}

}  // namespace

void AppendDictionaryValues(const core::Column& dictionary, const uint32_t* codes, size_t count,
                            core::Column* out) {
  // Each value's start, then the end: no branch on code 0 per row (a dictionary holds at most
  // kMaxDictionarySize values).
  const std::vector<uint64_t>& ends = dictionary.Offsets();
  std::vector<uint64_t> starts(ends.size() + 1);
  std::copy(ends.begin(), ends.end(), starts.begin() + 1);
  const char* chars = dictionary.Chars().data();
  size_t chars_size = dictionary.Chars().size();
  size_t bytes = 0;
  uint64_t longest = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t length = starts[codes[i] + 1] - starts[codes[i]];
    bytes += length;
    longest = std::max(longest, length);
  }
  // Short values (the usual LowCardinality column) are copied at a fixed width: a memcpy of its
  // length per row costs a call and a branch on the length (bench/storage/
  // dictionary_values_bench.cc, 3-4x faster for values up to 32 bytes).
  constexpr size_t kWide = 32;
  const size_t width = longest <= 16 ? 16 : longest <= kWide ? kWide : 0;
  std::string& out_chars = out->MutableChars();
  std::vector<uint64_t>& out_ends = out->MutableOffsets();
  size_t at = out_chars.size();
  const size_t first = out_ends.size();
  out_ends.resize(first + count);
  // A small dictionary's values are read from a copy with room past its end, so the last
  // values are copied wide too; a large one's last few take the plain copy.
  std::string padded;
  if (width > 0 && chars_size <= 4096) {
    padded.reserve(chars_size + kWide);
    padded.assign(chars, chars_size);
    padded.resize(chars_size + kWide);
    chars = padded.data();
    chars_size = padded.size();
  }
  out_chars.resize(at + bytes + width);
  char* dst = out_chars.data();
  uint64_t* dst_ends = out_ends.data() + first;
  switch (width) {
    case 16:
      at = CopyValues<16>(starts.data(), chars, chars_size, codes, count, dst, dst_ends, at);
      break;
    case kWide:
      at = CopyValues<kWide>(starts.data(), chars, chars_size, codes, count, dst, dst_ends, at);
      break;
    default:
      at = CopyValues<0>(starts.data(), chars, chars_size, codes, count, dst, dst_ends, at);
  }
  out_chars.resize(at);
}

}  // namespace granite::storage

#include "storage/sparse_serialization.h"

#include <cstring>

#include "storage/coding.h"

namespace granite::storage {
namespace {

using core::TypeId;

// Calls f(std::integral_constant<size_t, W>) for the value width of a fixed-width type.
template <typename F>
decltype(auto) WithWidth(size_t width, F&& f) {
  switch (width) {
    case 1: return f(std::integral_constant<size_t, 1>());
    case 2: return f(std::integral_constant<size_t, 2>());
    case 4: return f(std::integral_constant<size_t, 4>());
    case 8: return f(std::integral_constant<size_t, 8>());
    default: return f(std::integral_constant<size_t, 16>());
  }
}

template <size_t W>
bool ZeroAt(const char* p) {
  if constexpr (W == 16) {
    uint64_t v[2];
    std::memcpy(v, p, 16);
    return (v[0] | v[1]) == 0;
  } else {
    using U = std::conditional_t<W == 1, uint8_t,
              std::conditional_t<W == 2, uint16_t, std::conditional_t<W == 4, uint32_t, uint64_t>>>;
    U v;
    std::memcpy(&v, p, W);
    return v == 0;
  }
}

bool ZeroBytes(std::string_view s) {
  for (char c : s) {
    if (c != 0) return false;
  }
  return true;
}

// Calls f(row) for each non-default row of [begin, end) in order.
template <typename F>
void ForEachValueRow(const core::Column& column, size_t begin, size_t end, F&& f) {
  if (column.nullable()) {
    const uint8_t* nulls = column.NullMap();
    for (size_t row = begin; row < end; ++row) {
      if (nulls[row] == 0) f(row);
    }
  } else if (core::HasStringLayout(column.type())) {
    const std::vector<uint64_t>& offsets = column.Offsets();
    const bool fixed = core::FixedStringSizeOf(column.type()) != 0;
    for (size_t row = begin; row < end; ++row) {
      const uint64_t length = offsets[row] - (row == 0 ? 0 : offsets[row - 1]);
      if (length != 0 && (!fixed || !ZeroBytes(column.StringAt(row)))) f(row);
    }
  } else {
    WithWidth(core::ValueSize(column.type()), [&](auto w) {
      constexpr size_t W = decltype(w)::value;
      const char* data = column.RawData();
      for (size_t row = begin; row < end; ++row) {
        if (!ZeroAt<W>(data + row * W)) f(row);
      }
    });
  }
}

// Reads the gaps stream of a sparse granule: the rows of its values, in order.
class GapReader {
 public:
  GapReader(const char* begin, const char* end, size_t rows) : p_(begin), end_(end), rows_(rows) {}

  // Sets *row to the next value's row; false when the stream is malformed or the row is past
  // the granule.
  bool Next(size_t* row) {
    uint64_t gap = 0;
    for (int shift = 0;; shift += 7) {
      if (p_ == end_ || shift > 35) return false;
      const uint8_t byte = static_cast<uint8_t>(*p_++);
      gap |= uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) break;
    }
    const uint64_t next = next_ + gap;
    if (next >= rows_) return false;
    *row = next;
    next_ = next + 1;
    return true;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
  size_t rows_;
  uint64_t next_ = 0;  // the smallest row the next value may have
};

// The parts of a raw sparse granule.
struct SparseParts {
  uint32_t count = 0;
  const char* values = nullptr;
  uint64_t string_chars = 0;  // String-layout: total length of the values
  const char* gaps = nullptr;
  const char* gaps_end = nullptr;
};

bool Split(std::string_view raw, TypeId type, SparseParts* parts) {
  if (raw.size() < 4) return false;
  std::memcpy(&parts->count, raw.data() + raw.size() - 4, 4);
  const uint64_t body = raw.size() - 4;
  const uint64_t count = parts->count;
  uint64_t values_bytes = 0;
  if (core::HasStringLayout(type)) {
    if (count * 4 > body) return false;
    for (uint64_t k = 0; k < count; ++k) {
      uint32_t length;
      std::memcpy(&length, raw.data() + k * 4, 4);
      parts->string_chars += length;
    }
    values_bytes = count * 4 + parts->string_chars;
  } else {
    values_bytes = count * core::ValueSize(core::RemoveNullable(type));
  }
  // Each value has at least one gap byte.
  if (values_bytes > body || body - values_bytes < count) return false;
  parts->values = raw.data();
  parts->gaps = raw.data() + values_bytes;
  parts->gaps_end = raw.data() + body;
  return true;
}

bool DecodeStrings(const SparseParts& parts, size_t rows, TypeId type, core::Column* out,
                   uint8_t* nulls) {
  GapReader gaps(parts.gaps, parts.gaps_end, rows);
  std::vector<uint64_t>& offsets = out->MutableOffsets();
  std::string& chars = out->MutableChars();
  const size_t first = offsets.size();
  const uint64_t base = chars.size();
  offsets.resize(first + rows);
  uint64_t* out_offsets = offsets.data() + first;
  const char* lengths = parts.values;
  const char* value_chars = parts.values + uint64_t{parts.count} * 4;
  const uint32_t fixed = core::FixedStringSizeOf(type);
  if (fixed != 0) {
    // FixedString(N): defaults are N zero bytes, so every row takes N bytes.
    chars.resize(base + rows * fixed, '\0');
    for (size_t row = 0; row < rows; ++row) out_offsets[row] = base + (row + 1) * fixed;
    for (uint32_t k = 0; k < parts.count; ++k) {
      size_t row = 0;
      uint32_t length;
      std::memcpy(&length, lengths + size_t{k} * 4, 4);
      if (length != fixed || !gaps.Next(&row)) return false;
      std::memcpy(chars.data() + base + row * fixed, value_chars + size_t{k} * fixed, fixed);
      if (nulls != nullptr) nulls[row] = 0;
    }
    return gaps.done();
  }
  // String: defaults are empty, so the values' chars are the granule's chars as they are.
  uint64_t end = base;
  size_t filled = 0;
  for (uint32_t k = 0; k < parts.count; ++k) {
    size_t row = 0;
    if (!gaps.Next(&row)) return false;
    uint32_t length;
    std::memcpy(&length, lengths + size_t{k} * 4, 4);
    for (; filled < row; ++filled) out_offsets[filled] = end;
    end += length;
    out_offsets[filled++] = end;
    if (nulls != nullptr) nulls[row] = 0;
  }
  for (; filled < rows; ++filled) out_offsets[filled] = end;
  if (!gaps.done()) return false;
  chars.append(value_chars, parts.string_chars);
  return true;
}

}  // namespace

std::string_view SerializationName(ColumnSerialization serialization) {
  // A dictionary-encoded LowCardinality column is ClickHouse's "Default" kind too.
  return serialization == ColumnSerialization::kSparse ? "Sparse" : "Default";
}

size_t CountDefaultRows(const core::Column& column) {
  size_t values = 0;
  ForEachValueRow(column, 0, column.size(), [&](size_t) { ++values; });
  return column.size() - values;
}

ColumnSerialization ChooseSerialization(const core::Column& column, TypeId type, double ratio) {
  if (column.size() == 0 || column.nullable() != core::IsNullable(type) || core::IsArray(type)) {
    return ColumnSerialization::kDefault;
  }
  const double defaults = static_cast<double>(CountDefaultRows(column));
  return defaults / static_cast<double>(column.size()) > ratio ? ColumnSerialization::kSparse
                                                               : ColumnSerialization::kDefault;
}

std::string_view EncodeSparseGranule(const core::Column& column, size_t begin, size_t end,
                                     std::string* scratch) {
  scratch->clear();
  std::string gaps;
  uint32_t count = 0;
  size_t next = begin;  // the smallest row the next value may have
  auto add_gap = [&](size_t row) {
    char bytes[10];
    gaps.append(bytes, PutVarint(row - next, bytes));
    next = row + 1;
    ++count;
  };
  if (core::HasStringLayout(column.type())) {
    std::string chars;
    ForEachValueRow(column, begin, end, [&](size_t row) {
      std::string_view value = column.StringAt(row);
      // PartWriter keeps granules below 2 GiB, so every length fits in 32 bits.
      const uint32_t length = static_cast<uint32_t>(value.size());
      scratch->append(reinterpret_cast<const char*>(&length), 4);
      chars.append(value);
      add_gap(row);
    });
    scratch->append(chars);
  } else {
    const size_t width = core::ValueSize(column.type());
    const char* data = column.RawData();
    ForEachValueRow(column, begin, end, [&](size_t row) {
      scratch->append(data + row * width, width);
      add_gap(row);
    });
  }
  scratch->append(gaps);
  scratch->append(reinterpret_cast<const char*>(&count), 4);
  return *scratch;
}

bool DecodeSparseGranule(std::string_view raw, size_t rows, TypeId type, char* values,
                         core::Column* strings, std::vector<uint8_t>* nulls) {
  SparseParts parts;
  if (!Split(raw, type, &parts) || parts.count > rows) return false;
  uint8_t* null_map = nullptr;
  if (core::IsNullable(type)) {
    // Every row is NULL but the values' rows.
    const size_t first = nulls->size();
    nulls->resize(first + rows, 1);
    null_map = nulls->data() + first;
  }
  if (core::HasStringLayout(type)) {
    if (!DecodeStrings(parts, rows, type, strings, null_map)) return false;
    strings->SetSize(strings->size() + rows);
    return true;
  }
  return WithWidth(core::ValueSize(core::RemoveNullable(type)), [&](auto w) {
    constexpr size_t W = decltype(w)::value;
    if (rows > 0) std::memset(values, 0, rows * W);  // an empty granule may have no buffer
    GapReader gaps(parts.gaps, parts.gaps_end, rows);
    for (uint32_t k = 0; k < parts.count; ++k) {
      size_t row = 0;
      if (!gaps.Next(&row)) return false;
      std::memcpy(values + row * W, parts.values + size_t{k} * W, W);
      if (null_map != nullptr) null_map[row] = 0;
    }
    return gaps.done();
  });
}

int64_t SparseStringSizes(std::string_view raw, size_t rows, uint64_t* sizes) {
  SparseParts parts;
  if (!Split(raw, TypeId::kString, &parts) || parts.count > rows) return -1;
  if (rows > 0) std::memset(sizes, 0, rows * sizeof(uint64_t));
  GapReader gaps(parts.gaps, parts.gaps_end, rows);
  for (uint32_t k = 0; k < parts.count; ++k) {
    size_t row = 0;
    if (!gaps.Next(&row)) return -1;
    uint32_t length;
    std::memcpy(&length, parts.values + size_t{k} * 4, 4);
    sizes[row] = length;
  }
  if (!gaps.done()) return -1;
  return static_cast<int64_t>(parts.string_chars);
}

}  // namespace granite::storage

#include "storage/part_format.h"

#include <xxhash.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/block_codec.h"
#include "core/date_time.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/coding.h"
#include "storage/dictionary_serialization.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;
using core::TypeId;

constexpr char kMetaMagicV1[] = "GRPART01";  // 8 bytes
constexpr char kMetaMagicV2[] = "GRPART02";  // 8 bytes: v1 + partition + sort key
constexpr char kMetaMagicV3[] = "GRPART03";  // 8 bytes: v2 + per-column codecs
constexpr char kMetaMagicV4[] = "GRPART04";  // 8 bytes: v3 + per-column serializations
constexpr char kMetaMagicV5[] = "GRPART05";  // 8 bytes: v4 + per-column dictionaries
constexpr char kMetaMagic[] = "GRPART06";    // 8 bytes: v5 + part type (compact parts only)
constexpr char kIndexMagic[] = "GRIDX001";   // 8 bytes
constexpr char kMarksMagic[] = "GRMARK01";  // 8 bytes
constexpr char kCompactMarksMagic[] = "GRCMRK01";  // 8 bytes: data.mrk of a compact part

absl::Status Corrupt(std::string_view file, std::string_view what, std::string_view detail) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Cannot decode ", std::string(file), " of ", std::string(what), ": ",
                            std::string(detail)));
}

void PutStrings(ByteWriter& w, const std::vector<std::string>& strings) {
  w.PutU32(static_cast<uint32_t>(strings.size()));
  for (const std::string& s : strings) w.PutString(s);
}

bool GetStrings(ByteReader& r, std::vector<std::string>* strings) {
  uint32_t n = 0;
  if (!r.GetU32(&n) || n > r.remaining() / 4) return false;
  strings->resize(n);
  for (std::string& s : *strings) {
    if (!r.GetString(&s)) return false;
  }
  return true;
}

bool GetMagic(ByteReader& r, const char* magic) {
  char got[8];
  return r.GetRaw(got, 8) && std::string_view(got, 8) == std::string_view(magic, 8);
}

// Writes one bound in the form its type uses (see GranuleBounds).
void PutBound(ByteWriter& w, const core::Value& value, TypeId type) {
  if (core::HasStringLayout(type) || core::IsUuid(type)) {
    w.PutString(std::get<std::string>(value));
  } else if (core::IsFloat(type)) {
    w.PutRaw(&std::get<double>(value), 8);
  } else if (core::IsSignedInteger(type) || core::IsDecimal(type) || core::IsDateTime64(type)) {
    w.PutRaw(&std::get<int64_t>(value), 8);
  } else {
    w.PutRaw(&std::get<uint64_t>(value), 8);
  }
}

bool GetBound(ByteReader& r, TypeId type, core::Value* value) {
  if (core::HasStringLayout(type) || core::IsUuid(type)) {
    std::string s;
    if (!r.GetString(&s)) return false;
    *value = std::move(s);
    return true;
  }
  auto get = [&](auto zero) {
    decltype(zero) v = zero;
    if (!r.GetRaw(&v, 8)) return false;
    *value = v;
    return true;
  };
  if (core::IsFloat(type)) return get(0.0);
  if (core::IsSignedInteger(type) || core::IsDecimal(type) || core::IsDateTime64(type)) {
    return get(int64_t{0});
  }
  return get(uint64_t{0});
}

// Returns the widest physical form of a fixed-width value, as stored in a Value.
template <typename T>
core::Value Widen(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<int64_t>(v);
  } else {
    return static_cast<uint64_t>(v);
  }
}

// Returns one bit per byte of `word` (bit i for byte i): set where the byte ends a LEB128 varint.
inline uint64_t VarintStops(uint64_t word) {
  const uint64_t high_clear = ~word & 0x8080808080808080ull;
  return ((high_clear >> 7) * 0x0102040810204080ull) >> 56;
}

}  // namespace

std::string PartName::ToString() const {
  return absl::StrCat(partition_id, "_", min_block, "_", max_block, "_", level);
}

std::optional<PartName> PartName::Parse(std::string_view name) {
  std::vector<absl::string_view> pieces = absl::StrSplit(core::ToAbsl(name), '_');
  PartName out;
  if (pieces.size() != 4 || pieces[0].empty() || !absl::SimpleAtoi(pieces[1], &out.min_block) ||
      !absl::SimpleAtoi(pieces[2], &out.max_block) || !absl::SimpleAtoi(pieces[3], &out.level) ||
      out.min_block > out.max_block) {
    return std::nullopt;
  }
  for (char c : pieces[0]) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-';
    if (!ok) return std::nullopt;
  }
  out.partition_id = std::string(pieces[0]);
  if (out.ToString() != name) return std::nullopt;
  return out;
}

bool PartName::Covers(const PartName& other) const {
  return partition_id == other.partition_id && min_block <= other.min_block &&
         other.max_block <= max_block && !(*this == other);
}

std::string PartitionId(const PartitionValue& partition) {
  if (!partition.present) return "all";
  TypeId type = partition.type;
  if (type == TypeId::kDate) {
    int year = 0;
    unsigned month = 0, day = 0;
    core::CivilFromDays(static_cast<int64_t>(std::get<uint64_t>(partition.value)), &year, &month,
                        &day);
    return absl::StrCat(year * 10000 + month * 100 + day);
  }
  if (core::IsSignedInteger(type)) return absl::StrCat(std::get<int64_t>(partition.value));
  if (core::IsUnsignedInteger(type)) return absl::StrCat(std::get<uint64_t>(partition.value));
  ByteWriter w;
  PutBound(w, partition.value, type);
  return absl::StrCat(absl::Hex(XXH64(w.bytes().data(), w.bytes().size(), 0), absl::kZeroPad16));
}

std::string DataFileName(size_t column_index) { return absl::StrCat("c", column_index, ".bin"); }
std::string MarksFileName(size_t column_index) { return absl::StrCat("c", column_index, ".mrk"); }

const char* PartTypeName(PartType type) {
  return type == PartType::kCompact ? "Compact" : "Wide";
}

std::string EncodePrimaryIndex(const PrimaryIndex& index) {
  ByteWriter w;
  w.PutRaw(kIndexMagic, 8);
  w.PutU32(static_cast<uint32_t>(index.types.size()));
  w.PutU64(index.values.empty() ? 0 : index.values[0].size());
  for (size_t k = 0; k < index.types.size(); ++k) {
    w.PutType(index.types[k]);
    for (const core::Value& value : index.values[k]) PutBound(w, value, index.types[k]);
  }
  return Seal(std::move(w.bytes()));
}

absl::StatusOr<PrimaryIndex> DecodePrimaryIndex(std::string_view bytes, std::string_view what) {
  auto body = Unseal(bytes, absl::StrCat("primary index of ", std::string(what)));
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  uint32_t keys = 0;
  uint64_t entries = 0;
  if (!GetMagic(r, kIndexMagic) || !r.GetU32(&keys) || !r.GetU64(&entries) ||
      entries > r.remaining() || keys > 1024) {
    return Corrupt("primary.idx", what, "bad header");
  }
  PrimaryIndex index;
  for (uint32_t k = 0; k < keys; ++k) {
    TypeId type = TypeId::kUInt8;
    if (!r.GetType(&type)) return Corrupt("primary.idx", what, "bad type");
    index.types.push_back(type);
    std::vector<core::Value> values(entries);
    for (core::Value& value : values) {
      if (!GetBound(r, index.types.back(), &value)) {
        return Corrupt("primary.idx", what, "truncated");
      }
    }
    index.values.push_back(std::move(values));
  }
  if (!r.done()) return Corrupt("primary.idx", what, "trailing bytes");
  return index;
}

std::string EncodePartMeta(const PartMeta& meta) {
  ByteWriter w;
  // Wide parts without a dictionary stay v4, byte for byte what they were before dictionaries;
  // only compact parts are v6, so older binaries still read every wide part.
  const bool v6 = meta.type != PartType::kWide;
  const bool v5 = v6 || !meta.dictionaries.empty();
  w.PutRaw(v6 ? kMetaMagic : v5 ? kMetaMagicV5 : kMetaMagicV4, 8);
  w.PutU64(meta.rows);
  w.PutU32(static_cast<uint32_t>(meta.columns.size()));
  for (const ColumnSchema& column : meta.columns) {
    w.PutString(column.name);
    w.PutType(column.type);
  }
  w.PutU64(meta.granule_rows.size());
  for (uint32_t rows : meta.granule_rows) w.PutU32(rows);
  w.PutU8(meta.partition.present ? 1 : 0);
  if (meta.partition.present) {
    w.PutType(meta.partition.type);
    PutBound(w, meta.partition.value, meta.partition.type);
  }
  w.PutU32(static_cast<uint32_t>(meta.sort_key.size()));
  for (const std::string& key : meta.sort_key) w.PutString(key);
  w.PutU32(static_cast<uint32_t>(meta.codecs.size()));
  for (const std::string& codec : meta.codecs) w.PutString(codec);
  w.PutU32(static_cast<uint32_t>(meta.serializations.size()));
  for (ColumnSerialization serialization : meta.serializations) {
    w.PutU8(static_cast<uint8_t>(serialization));
  }
  if (v5) {
    w.PutU32(static_cast<uint32_t>(meta.dictionaries.size()));
    for (const std::vector<std::string>& values : meta.dictionaries) PutStrings(w, values);
  }
  if (v6) w.PutU8(static_cast<uint8_t>(meta.type));
  return Seal(std::move(w.bytes()));
}

absl::StatusOr<PartMeta> DecodePartMeta(std::string_view bytes, std::string_view what) {
  auto body = Unseal(bytes, absl::StrCat("meta of ", std::string(what)));
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  PartMeta meta;
  uint32_t column_count = 0;
  char magic[8];
  if (!r.GetRaw(magic, 8)) return Corrupt("meta", what, "bad header");
  bool v6 = std::string_view(magic, 8) == std::string_view(kMetaMagic, 8);
  bool v5 = v6 || std::string_view(magic, 8) == std::string_view(kMetaMagicV5, 8);
  bool v4 = v5 || std::string_view(magic, 8) == std::string_view(kMetaMagicV4, 8);
  bool v3 = v4 || std::string_view(magic, 8) == std::string_view(kMetaMagicV3, 8);
  bool v2 = v3 || std::string_view(magic, 8) == std::string_view(kMetaMagicV2, 8);
  bool v1 = std::string_view(magic, 8) == std::string_view(kMetaMagicV1, 8);
  if ((!v1 && !v2) || !r.GetU64(&meta.rows) || !r.GetU32(&column_count)) {
    return Corrupt("meta", what, "bad header");
  }
  for (uint32_t i = 0; i < column_count; ++i) {
    ColumnSchema column;
    if (!r.GetString(&column.name) || !r.GetType(&column.type)) {
      return Corrupt("meta", what, "bad column");
    }
    meta.columns.push_back(std::move(column));
  }
  uint64_t granules = 0;
  if (!r.GetU64(&granules) || granules > r.remaining() / 4) {
    return Corrupt("meta", what, "bad granule count");
  }
  uint64_t total = 0;
  meta.granule_rows.resize(granules);
  for (uint32_t& rows : meta.granule_rows) {
    if (!r.GetU32(&rows) || rows == 0) return Corrupt("meta", what, "bad granule");
    total += rows;
  }
  if (v2) {
    uint8_t present = 0;
    uint32_t keys = 0;
    if (!r.GetU8(&present)) return Corrupt("meta", what, "bad partition");
    meta.partition.present = present != 0;
    if (meta.partition.present) {
      if (!r.GetType(&meta.partition.type)) return Corrupt("meta", what, "bad partition");
      if (!GetBound(r, meta.partition.type, &meta.partition.value)) {
        return Corrupt("meta", what, "bad partition");
      }
    }
    if (!r.GetU32(&keys) || keys > r.remaining() / 4) return Corrupt("meta", what, "bad sort key");
    meta.sort_key.resize(keys);
    for (std::string& key : meta.sort_key) {
      if (!r.GetString(&key)) return Corrupt("meta", what, "bad sort key");
    }
  }
  if (v3) {
    uint32_t codecs = 0;
    if (!r.GetU32(&codecs) || (codecs != 0 && codecs != column_count)) {
      return Corrupt("meta", what, "bad codecs");
    }
    meta.codecs.resize(codecs);
    for (std::string& codec : meta.codecs) {
      if (!r.GetString(&codec)) return Corrupt("meta", what, "bad codecs");
    }
  }
  if (v4) {
    uint32_t count = 0;
    if (!r.GetU32(&count) || (count != 0 && count != column_count)) {
      return Corrupt("meta", what, "bad serializations");
    }
    meta.serializations.resize(count);
    for (ColumnSerialization& serialization : meta.serializations) {
      uint8_t kind = 0;
      if (!r.GetU8(&kind) || kind > static_cast<uint8_t>(ColumnSerialization::kDictionary) ||
          (!v5 && kind == static_cast<uint8_t>(ColumnSerialization::kDictionary))) {
        return Corrupt("meta", what, "bad serializations");
      }
      serialization = static_cast<ColumnSerialization>(kind);
    }
  }
  if (v5) {
    uint32_t count = 0;
    // A v6 part without a dictionary column lists none (count 0).
    if (!r.GetU32(&count) || (count != column_count && !(v6 && count == 0)) ||
        (count != 0 && meta.serializations.size() != count)) {
      return Corrupt("meta", what, "bad dictionaries");
    }
    meta.dictionaries.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      const bool dictionary = meta.serializations[i] == ColumnSerialization::kDictionary;
      if (!GetStrings(r, &meta.dictionaries[i]) || (!dictionary && !meta.dictionaries[i].empty()) ||
          (dictionary && !core::HasStringLayout(meta.columns[i].type)) ||
          meta.dictionaries[i].size() > kMaxDictionarySize) {
        return Corrupt("meta", what, "bad dictionaries");
      }
    }
  }
  if (v6) {
    uint8_t type = 0;
    if (!r.GetU8(&type) || type > static_cast<uint8_t>(PartType::kCompact)) {
      return Corrupt("meta", what, "bad part type");
    }
    meta.type = static_cast<PartType>(type);
  }
  if (meta.dictionaries.empty()) {
    for (ColumnSerialization serialization : meta.serializations) {
      if (serialization == ColumnSerialization::kDictionary) {
        return Corrupt("meta", what, "bad dictionaries");
      }
    }
  }
  meta.string_sizes = v4 ? StringSizes::kVarint : StringSizes::kU32;
  if (!r.done() || total != meta.rows) return Corrupt("meta", what, "row counts disagree");
  return meta;
}

namespace {

void PutColumnMarks(ByteWriter& w, const ColumnMarks& marks, TypeId type) {
  w.PutU64(marks.marks.size());
  for (size_t g = 0; g < marks.marks.size(); ++g) {
    const GranuleMark& mark = marks.marks[g];
    w.PutU64(mark.offset);
    w.PutU32(mark.compressed_size);
    w.PutU32(mark.raw_size);
    w.PutU64(mark.checksum);
    const GranuleBounds& bounds = marks.bounds[g];
    w.PutU8(bounds.present ? 1 : 0);
    if (bounds.present) {
      PutBound(w, bounds.min, type);
      PutBound(w, bounds.max, type);
    }
  }
}

absl::StatusOr<ColumnMarks> GetColumnMarks(ByteReader& r, TypeId type, std::string_view what) {
  uint64_t granules = 0;
  // Each granule takes at least 25 bytes, which bounds the count before allocating.
  if (!r.GetU64(&granules) || granules > r.remaining() / 25) {
    return Corrupt("marks", what, "bad header");
  }
  ColumnMarks out;
  out.marks.resize(granules);
  out.bounds.resize(granules);
  for (size_t g = 0; g < granules; ++g) {
    GranuleMark& mark = out.marks[g];
    uint8_t present = 0;
    if (!r.GetU64(&mark.offset) || !r.GetU32(&mark.compressed_size) ||
        !r.GetU32(&mark.raw_size) || !r.GetU64(&mark.checksum) || !r.GetU8(&present)) {
      return Corrupt("marks", what, "truncated");
    }
    GranuleBounds& bounds = out.bounds[g];
    bounds.present = present != 0;
    if (bounds.present && (!GetBound(r, type, &bounds.min) || !GetBound(r, type, &bounds.max))) {
      return Corrupt("marks", what, "truncated bounds");
    }
  }
  return out;
}

}  // namespace

std::string EncodeColumnMarks(const ColumnMarks& marks, TypeId type) {
  ByteWriter w;
  w.PutRaw(kMarksMagic, 8);
  PutColumnMarks(w, marks, type);
  return Seal(std::move(w.bytes()));
}

absl::StatusOr<ColumnMarks> DecodeColumnMarks(std::string_view bytes, TypeId type,
                                              std::string_view what) {
  auto body = Unseal(bytes, absl::StrCat("marks of ", std::string(what)));
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  if (!GetMagic(r, kMarksMagic)) return Corrupt("marks", what, "bad header");
  ASSIGN_OR_RETURN(ColumnMarks out, GetColumnMarks(r, type, what));
  if (!r.done()) return Corrupt("marks", what, "trailing bytes");
  return out;
}

std::string EncodeCompactMarks(const std::vector<ColumnMarks>& columns,
                               const std::vector<TypeId>& types) {
  ByteWriter w;
  w.PutRaw(kCompactMarksMagic, 8);
  w.PutU32(static_cast<uint32_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) PutColumnMarks(w, columns[i], types[i]);
  return Seal(std::move(w.bytes()));
}

absl::StatusOr<std::vector<ColumnMarks>> DecodeCompactMarks(std::string_view bytes,
                                                            const std::vector<TypeId>& types,
                                                            std::string_view what) {
  auto body = Unseal(bytes, absl::StrCat("marks of ", std::string(what)));
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  uint32_t count = 0;
  if (!GetMagic(r, kCompactMarksMagic) || !r.GetU32(&count) || count != types.size()) {
    return Corrupt("marks", what, "bad header");
  }
  std::vector<ColumnMarks> out;
  out.reserve(count);
  for (TypeId type : types) {
    ASSIGN_OR_RETURN(ColumnMarks marks, GetColumnMarks(r, type, what));
    out.push_back(std::move(marks));
  }
  if (!r.done()) return Corrupt("marks", what, "trailing bytes");
  return out;
}

std::string_view EncodeGranule(const core::Column& column, size_t begin, size_t end,
                               std::string* scratch, bool null_map, StringSizes sizes) {
  if (null_map) {
    std::string_view values = EncodeGranule(column, begin, end, scratch, false, sizes);
    if (values.data() != scratch->data()) scratch->assign(values.data(), values.size());
    if (const uint8_t* nulls = column.NullMap(); nulls != nullptr) {
      scratch->append(reinterpret_cast<const char*>(nulls) + begin, end - begin);
    } else {
      scratch->append(end - begin, '\0');
    }
    return *scratch;
  }
  if (core::IsArray(column.type())) {
    scratch->clear();
    core::EncodeColumnData(column.Slice(begin, end - begin), scratch);
    return *scratch;
  }
  if (!core::HasStringLayout(column.type())) {
    size_t width = core::ValueSize(column.type());
    return std::string_view(column.RawData() + begin * width, (end - begin) * width);
  }
  const std::vector<uint64_t>& offsets = column.Offsets();
  uint64_t chars_begin = begin == 0 ? 0 : offsets[begin - 1];
  uint64_t chars_end = end == 0 ? 0 : offsets[end - 1];
  // PartWriter keeps granules below 2 GiB, so every length fits in 32 bits (5 varint bytes; 5
  // more of slack for PutVarint's room).
  scratch->resize((end - begin) * (sizes == StringSizes::kU32 ? 4 : 5) + 10);
  char* lengths = scratch->data();
  char* p = lengths;
  uint64_t previous = chars_begin;
  for (size_t row = begin; row < end; ++row) {
    uint32_t length = static_cast<uint32_t>(offsets[row] - previous);
    if (sizes == StringSizes::kU32) {
      std::memcpy(p, &length, 4);
      p += 4;
    } else {
      p = PutVarint(length, p);
    }
    previous = offsets[row];
  }
  scratch->resize(p - lengths);
  scratch->append(column.Chars().data() + chars_begin, chars_end - chars_begin);
  return *scratch;
}

int64_t DecodeStringSizes(std::string_view raw, size_t rows, StringSizes sizes,
                          uint64_t* lengths) {
  if (sizes == StringSizes::kU32) {
    if (raw.size() < rows * 4) return -1;
    for (size_t row = 0; row < rows; ++row) {
      uint32_t length;
      std::memcpy(&length, raw.data() + row * 4, 4);
      lengths[row] = length;
    }
    return static_cast<int64_t>(rows * 4);
  }
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(raw.data());
  const uint8_t* p = begin;
  const uint8_t* end = p + raw.size();
  size_t row = 0;
  // 64 bytes at a time: first a mask of the bytes that end a varint (high bit clear), then one
  // load per row that depends on the mask only, not on the previous row's length (a byte-by-byte
  // loop mispredicts on every other row where lengths straddle 128, as URLs' do). 64 one-byte
  // lengths (short or empty strings) are a plain widening copy.
  while (row < rows && end - p >= 72) {
    uint64_t stops = 0;
    for (int w = 0; w < 8; ++w) {
      uint64_t word;
      std::memcpy(&word, p + 8 * w, 8);
      stops |= VarintStops(word) << (8 * w);
    }
    if (stops == ~uint64_t{0} && rows - row >= 64) {
      for (int i = 0; i < 64; ++i) lengths[row + i] = p[i];
      row += 64;
      p += 64;
      continue;
    }
    size_t start = 0;
    while (stops != 0 && row < rows) {
      const size_t last = static_cast<size_t>(__builtin_ctzll(stops));
      stops &= stops - 1;
      const size_t bytes = last - start + 1;
      if (bytes > 5) return -1;  // longer than 32 bits
      uint64_t x;
      std::memcpy(&x, p + start, 8);
      x &= ~uint64_t{0} >> (64 - 8 * bytes);
      lengths[row++] = (x & 0x7f) | ((x >> 1) & (0x7full << 7)) | ((x >> 2) & (0x7full << 14)) |
                       ((x >> 3) & (0x7full << 21)) | ((x >> 4) & (0x7full << 28));
      start = last + 1;
    }
    if (start == 0) return -1;  // 64 bytes without the end of a varint
    p += start;
  }
  for (; row < rows; ++row) {
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      if (p == end || shift > 28) return -1;
      const uint8_t byte = *p++;
      length |= uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) break;
    }
    lengths[row] = length;
  }
  return p - begin;
}

bool AppendStringGranule(std::string_view raw, size_t rows, core::Column* out,
                         StringSizes sizes) {
  std::vector<uint64_t>& offsets = out->MutableOffsets();
  std::string& out_chars = out->MutableChars();
  uint64_t base = out_chars.size();
  uint64_t end = 0;
  const size_t first = offsets.size();
  // One resize, then plain stores: push_back's capacity check per row cost as much as the sums.
  offsets.resize(first + rows);
  uint64_t* out_offsets = offsets.data() + first;
  // The lengths land in the offsets, which the sums then turn into ends in place.
  const int64_t prefix = DecodeStringSizes(raw, rows, sizes, out_offsets);
  if (prefix < 0) {
    offsets.resize(first);
    return false;
  }
  std::string_view chars = raw.substr(static_cast<size_t>(prefix));
  for (size_t row = 0; row < rows; ++row) {
    end += out_offsets[row];
    out_offsets[row] = base + end;
  }
  if (end != chars.size()) {
    offsets.resize(first);
    return false;
  }
  out_chars.append(chars.data(), chars.size());
  out->SetSize(out->size() + rows);
  return true;
}

bool AppendArrayGranule(std::string_view raw, size_t rows, core::Column* out) {
  core::Column granule(out->type());
  if (!core::DecodeColumnData(raw, rows, &granule).ok()) return false;
  out->AppendRange(granule, 0, rows);
  return true;
}

GranuleBounds ComputeBounds(const core::Column& column, size_t begin, size_t end) {
  GranuleBounds bounds;
  if (core::IsArray(column.type())) return bounds;  // arrays keep no bounds
  if (const uint8_t* nulls = column.NullMap(); nulls != nullptr) {
    // NULLs hold T's default, which is no value of the column: such a granule gets no bounds.
    for (size_t row = begin; row < end; ++row) {
      if (nulls[row] != 0) return bounds;
    }
  }
  if (core::HasStringLayout(column.type())) {
    std::string_view min = column.StringAt(begin);
    std::string_view max = min;
    for (size_t row = begin + 1; row < end; ++row) {
      std::string_view v = column.StringAt(row);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (min.size() > kMaxStringBoundBytes || max.size() > kMaxStringBoundBytes) return bounds;
    bounds = {true, std::string(min), std::string(max)};
    return bounds;
  }
  core::DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* values = column.Data<T>();
    T min = values[begin];
    T max = min;
    bool nan = false;
    for (size_t row = begin; row < end; ++row) {
      T v = values[row];
      if constexpr (std::is_floating_point_v<T>) nan |= std::isnan(v);
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
    if constexpr (std::is_same_v<T, core::UnsignedInt128>) {
      // UUIDs keep no bounds: a Value holds at most 64 bits.
    } else if constexpr (std::is_same_v<T, core::Int128>) {
      // Decimal128 bounds are kept (as scaled int64) only when they fit.
      constexpr core::Int128 kLow = std::numeric_limits<int64_t>::min();
      constexpr core::Int128 kHigh = std::numeric_limits<int64_t>::max();
      if (min >= kLow && max <= kHigh) {
        bounds = {true, core::Value(static_cast<int64_t>(min)), core::Value(static_cast<int64_t>(max))};
      }
    } else if (!nan) {
      bounds = {true, Widen(min), Widen(max)};
    }
  });
  return bounds;
}

}  // namespace granite::storage

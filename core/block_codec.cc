#include "core/block_codec.h"

#include <lz4.h>

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool U64(uint64_t& v) { return Raw(&v, 8); }
  bool Raw(void* dst, size_t n) {
    if (bytes_.size() - pos_ < n) return false;
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Type(TypeId* type) {
    std::string_view rest = bytes_.substr(pos_);
    const size_t before = rest.size();
    if (!ReadTypeBytes(&rest, type)) return false;
    pos_ += before - rest.size();
    return true;
  }
  bool done() const { return pos_ == bytes_.size(); }
  bool Skip(size_t n, const char** at) {
    if (bytes_.size() - pos_ < n) return false;
    *at = bytes_.data() + pos_;
    pos_ += n;
    return true;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

absl::Status Corrupt(std::string_view what) {
  return Error(ErrorCode::kCorruptedData, "Malformed block on the wire: " + std::string(what));
}

// Appends one column's data (no type): fixed values, or offsets + chars, or for Array(T) the
// offsets then the nested column's data (its row count is the last offset); then the null map.
void EncodeColumn(const Column& column, std::string& out) {
  if (IsArray(column.type())) {
    out.append(reinterpret_cast<const char*>(column.Offsets().data()), column.size() * 8);
    EncodeColumn(column.Nested(), out);
    return;
  }
  if (HasStringLayout(column.type())) {
    out.append(reinterpret_cast<const char*>(column.Offsets().data()), column.size() * 8);
    PutU64(out, column.Chars().size());
    out.append(column.Chars());
  } else {
    out.append(column.RawData(), column.RawSize());
  }
  if (column.nullable()) {
    out.append(reinterpret_cast<const char*>(column.NullMap()), column.size());
  }
}

// Reads `rows` end offsets into `offsets`; they must rise. Returns the last (0 for no rows).
bool ReadOffsets(Reader& reader, size_t total_bytes, uint64_t rows, std::vector<uint64_t>* offsets,
                 uint64_t* last) {
  const char* at = nullptr;
  if (rows > total_bytes / 8 || !reader.Skip(rows * 8, &at)) return false;
  offsets->resize(rows);
  if (rows > 0) std::memcpy(offsets->data(), at, rows * 8);
  uint64_t previous = 0;
  for (uint64_t offset : *offsets) {
    if (offset < previous) return false;
    previous = offset;
  }
  *last = previous;
  return true;
}

// Parses what EncodeColumn wrote into `column` (of the type read before it), `rows` rows.
absl::Status DecodeColumn(Reader& reader, size_t total_bytes, uint64_t rows, Column* column) {
  if (IsArray(column->type())) {
    uint64_t elements = 0;
    if (!ReadOffsets(reader, total_bytes, rows, &column->MutableOffsets(), &elements)) {
      return Corrupt("array offsets");
    }
    RETURN_IF_ERROR(DecodeColumn(reader, total_bytes, elements, &column->MutableNested()));
    column->SetSize(rows);
    return absl::OkStatus();
  }
  if (HasStringLayout(column->type())) {
    uint64_t end = 0;
    if (!ReadOffsets(reader, total_bytes, rows, &column->MutableOffsets(), &end)) {
      return Corrupt("string offsets");
    }
    uint64_t chars = 0;
    const char* at = nullptr;
    if (!reader.U64(chars) || !reader.Skip(chars, &at)) return Corrupt("chars");
    // Offsets rise and end at the chars' size, so every value lies within the chars.
    if (end != chars) return Corrupt("string offsets");
    column->MutableChars().assign(at, chars);
    column->SetSize(rows);
  } else {
    size_t n = rows * ValueSize(column->type());
    const char* at = nullptr;
    if (rows > total_bytes || !reader.Skip(n, &at)) return Corrupt("values");
    column->ResizeUninitialized(rows);  // every byte is copied next: no zero-fill pass
    if (n > 0) std::memcpy(column->RawData(), at, n);
  }
  if (column->nullable()) {
    const char* at = nullptr;
    if (!reader.Skip(rows, &at)) return Corrupt("null map");
    if (rows > 0) std::memcpy(column->MutableNullMap(), at, rows);
  }
  return absl::OkStatus();
}

}  // namespace

std::string EncodeBlock(const Block& block) {
  std::string out;
  // One allocation: the encoding is about the columns' own bytes (string offsets become
  // shorter varints), so growing by doubling would copy and fault in every page several times.
  size_t estimate = 32;
  for (const ColumnPtr& column : block.columns) estimate += column->ByteSize() + 32;
  out.reserve(estimate);
  PutU64(out, block.columns.size());
  PutU64(out, block.rows());
  for (const ColumnPtr& column : block.columns) {
    AppendTypeBytes(column->logical_type(), &out);
    EncodeColumn(*column, out);
  }
  return out;
}

void EncodeColumnData(const Column& column, std::string* out) { EncodeColumn(column, *out); }

absl::Status DecodeColumnData(std::string_view bytes, size_t rows, Column* column) {
  Reader reader(bytes);
  RETURN_IF_ERROR(DecodeColumn(reader, bytes.size(), rows, column));
  if (!reader.done()) return Corrupt("trailing bytes");
  return absl::OkStatus();
}

absl::StatusOr<Block> DecodeBlock(std::string_view bytes) {
  Reader reader(bytes);
  uint64_t columns = 0, rows = 0;
  if (!reader.U64(columns) || !reader.U64(rows)) return Corrupt("header");
  if (columns > 100000) return Corrupt("column count");
  Block block;
  block.rows_without_columns = rows;
  for (uint64_t c = 0; c < columns; ++c) {
    TypeId type = TypeId::kUInt8;
    if (!reader.Type(&type)) return Corrupt("type");
    auto column = std::make_shared<Column>(type);
    RETURN_IF_ERROR(DecodeColumn(reader, bytes.size(), rows, column.get()));
    block.columns.push_back(std::move(column));
  }
  return block;
}

// The output goes to a buffer that is not zero-filled first (std::string's resize would write
// every byte of the bound once more), then only the compressed bytes are copied to the result,
// which holds no more than them.
std::string CompressLz4(std::string_view raw) {
  const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
  std::unique_ptr<char[]> buffer(new char[bound > 0 ? bound : 1]);
  int n = LZ4_compress_default(raw.data(), buffer.get(), static_cast<int>(raw.size()), bound);
  return std::string(buffer.get(), n > 0 ? n : 0);
}

absl::StatusOr<std::string> DecompressLz4(std::string_view compressed, size_t raw_size) {
  std::string out;
  out.resize(raw_size);
  int n = LZ4_decompress_safe(compressed.data(), out.data(), static_cast<int>(compressed.size()),
                              static_cast<int>(raw_size));
  if (n < 0 || static_cast<size_t>(n) != raw_size) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot decompress LZ4 data: expected ", raw_size, " bytes"));
  }
  return out;
}

absl::StatusOr<WireCompression> ParseWireCompression(std::string_view name) {
  std::string lower = absl::AsciiStrToLower(std::string(name));
  if (lower == "lz4") return WireCompression::kLz4;
  if (lower == "none") return WireCompression::kNone;
  return Error(ErrorCode::kBadArguments,
               absl::StrCat("Unknown network_compression_method \"", std::string(name),
                            "\": expected 'lz4' or 'none'"));
}

std::string CompressForWire(std::string raw, WireCompression method) {
  if (method == WireCompression::kNone || raw.empty()) return raw;
  std::string compressed = CompressLz4(raw);
  // Data of the raw size means "raw": LZ4 output must be strictly shorter to be used.
  if (compressed.empty() || compressed.size() >= raw.size()) return raw;
  return compressed;
}

absl::StatusOr<Block> DecodeWireBlock(std::string_view data, size_t raw_size) {
  if (data.size() == raw_size) return DecodeBlock(data);
  // Anything else is LZ4 (longer data too: CompressLz4 alone may grow incompressible data),
  // decompressed into a buffer that is not zero-filled first and parsed from there.
  if (raw_size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot decompress LZ4 data: expected ", raw_size, " bytes"));
  }
  std::unique_ptr<char[]> raw(new char[raw_size > 0 ? raw_size : 1]);
  int n = LZ4_decompress_safe(data.data(), raw.get(), static_cast<int>(data.size()),
                              static_cast<int>(raw_size));
  if (n < 0 || static_cast<size_t>(n) != raw_size) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot decompress LZ4 data: expected ", raw_size, " bytes"));
  }
  return DecodeBlock(std::string_view(raw.get(), raw_size));
}

}  // namespace granite::core

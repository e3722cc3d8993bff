#include "core/block_codec.h"

#include <lz4.h>

#include <cstring>

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

}  // namespace

std::string EncodeBlock(const Block& block) {
  std::string out;
  PutU64(out, block.columns.size());
  PutU64(out, block.rows());
  for (const ColumnPtr& column : block.columns) {
    AppendTypeBytes(column->logical_type(), &out);
    if (HasStringLayout(column->type())) {
      out.append(reinterpret_cast<const char*>(column->Offsets().data()), column->size() * 8);
      PutU64(out, column->Chars().size());
      out.append(column->Chars());
    } else {
      out.append(column->RawData(), column->RawSize());
    }
    if (column->nullable()) {
      out.append(reinterpret_cast<const char*>(column->NullMap()), column->size());
    }
  }
  return out;
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
    if (HasStringLayout(column->type())) {
      auto& offsets = column->MutableOffsets();
      const char* at = nullptr;
      if (rows > bytes.size() / 8 || !reader.Skip(rows * 8, &at)) return Corrupt("offsets");
      offsets.resize(rows);
      if (rows > 0) std::memcpy(offsets.data(), at, rows * 8);
      uint64_t chars = 0;
      if (!reader.U64(chars) || !reader.Skip(chars, &at)) return Corrupt("chars");
      // Offsets rise and end at the chars' size, so every value lies within the chars.
      uint64_t previous = 0;
      for (uint64_t offset : offsets) {
        if (offset < previous) return Corrupt("string offsets");
        previous = offset;
      }
      if (previous != chars) return Corrupt("string offsets");
      column->MutableChars().assign(at, chars);
      column->SetSize(rows);
    } else {
      size_t n = rows * ValueSize(column->type());
      const char* at = nullptr;
      if (rows > bytes.size() || !reader.Skip(n, &at)) return Corrupt("values");
      column->ResizeUninitialized(rows);  // every byte is copied next: no zero-fill pass
      if (n > 0) std::memcpy(column->RawData(), at, n);
    }
    if (column->nullable()) {
      const char* at = nullptr;
      if (!reader.Skip(rows, &at)) return Corrupt("null map");
      if (rows > 0) std::memcpy(column->MutableNullMap(), at, rows);
    }
    block.columns.push_back(std::move(column));
  }
  return block;
}

std::string CompressLz4(std::string_view raw) {
  std::string out;
  out.resize(LZ4_compressBound(static_cast<int>(raw.size())));
  int n = LZ4_compress_default(raw.data(), out.data(), static_cast<int>(raw.size()),
                               static_cast<int>(out.size()));
  out.resize(n > 0 ? n : 0);
  return out;
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
  // Anything else is LZ4 (longer data too: CompressLz4 alone may grow incompressible data).
  ASSIGN_OR_RETURN(std::string raw, DecompressLz4(data, raw_size));
  return DecodeBlock(raw);
}

}  // namespace granite::core

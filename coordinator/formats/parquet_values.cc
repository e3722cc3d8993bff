#include "coordinator/formats/parquet_values.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

absl::Status Corrupt(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Parquet data: ", std::string(why)));
}

absl::StatusOr<uint64_t> ReadVarInt(std::string_view data, size_t* pos) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return Corrupt("a varint runs past its page");
    const uint8_t byte = static_cast<uint8_t>(data[(*pos)++]);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Corrupt("a varint is longer than 10 bytes");
}

// Returns the `width` (<= 64) bits at bit offset `bit` of data, LSB first.
// REQUIRES: bit + width <= data.size() * 8.
uint64_t ExtractBits(std::string_view data, size_t bit, int width) {
  if (width == 0) return 0;
  const size_t byte = bit >> 3;
  const int shift = static_cast<int>(bit & 7);
  uint64_t low = 0;
  std::memcpy(&low, data.data() + byte, std::min<size_t>(8, data.size() - byte));
  uint64_t value = low >> shift;
  if (shift + width > 64) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(data[byte + 8])) << (64 - shift);
  }
  return width == 64 ? value : value & ((uint64_t{1} << width) - 1);
}

template <typename T>
T Load(const char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// IEEE half precision to single.
float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half >> 15) << 31;
  const int exponent = (half >> 10) & 0x1F;
  uint32_t mantissa = half & 0x3FF;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | (static_cast<uint32_t>(exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    int e = 113;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (static_cast<uint32_t>(e) << 23) | ((mantissa & 0x3FF) << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

// Appends an integer (or a decimal's unscaled value) to a column of integer or decimal type.
void AppendInteger(core::Int128 value, core::Column* column) {
  switch (core::BaseOf(column->type())) {
    case core::TypeId::kInt8: column->Append<int8_t>(static_cast<int8_t>(value)); break;
    case core::TypeId::kInt16: column->Append<int16_t>(static_cast<int16_t>(value)); break;
    case core::TypeId::kInt32:
    case core::TypeId::kDecimal32: column->Append<int32_t>(static_cast<int32_t>(value)); break;
    case core::TypeId::kUInt8: column->Append<uint8_t>(static_cast<uint8_t>(value)); break;
    case core::TypeId::kUInt16: column->Append<uint16_t>(static_cast<uint16_t>(value)); break;
    case core::TypeId::kUInt32: column->Append<uint32_t>(static_cast<uint32_t>(value)); break;
    case core::TypeId::kUInt64: column->Append<uint64_t>(static_cast<uint64_t>(value)); break;
    case core::TypeId::kDecimal128: column->Append<core::Int128>(value); break;
    default: column->Append<int64_t>(static_cast<int64_t>(value)); break;
  }
}

}  // namespace

int BitWidthOf(uint32_t max_value) {
  return max_value == 0 ? 0 : 32 - __builtin_clz(max_value);
}

absl::Status ParquetRleDecoder::NextRun() {
  ASSIGN_OR_RETURN(uint64_t header, ReadVarInt(data_, &pos_));
  if ((header & 1) != 0) {
    const uint64_t groups = header >> 1;
    if (groups > data_.size() * 8 + 1) return Corrupt("a bit-packed run is longer than its page");
    packed_left_ = groups * 8;
    const uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    // The last run of a page may be cut short of its padding; the values read must fit.
    const size_t available = static_cast<size_t>(std::min<uint64_t>(bytes, data_.size() - pos_));
    packed_bit_ = pos_ * 8;
    packed_end_bit_ = (pos_ + available) * 8;
    pos_ += available;
    return absl::OkStatus();
  }
  repeat_left_ = header >> 1;
  const size_t bytes = static_cast<size_t>((bit_width_ + 7) / 8);
  if (data_.size() - pos_ < bytes) return Corrupt("an RLE run's value runs past its page");
  repeat_value_ = 0;
  std::memcpy(&repeat_value_, data_.data() + pos_, bytes);
  pos_ += bytes;
  return absl::OkStatus();
}

absl::Status ParquetRleDecoder::Decode(size_t count, uint32_t* out) {
  size_t done = 0;
  // Zero-length runs consume a header byte each, so this loop ends with the data.
  while (done < count) {
    if (repeat_left_ == 0 && packed_left_ == 0) {
      if (pos_ >= data_.size()) {
        return Corrupt(absl::StrCat("RLE data ends after ", done, " of ", count, " values"));
      }
      RETURN_IF_ERROR(NextRun());
      continue;
    }
    if (repeat_left_ > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(repeat_left_, count - done));
      std::fill(out + done, out + done + n, repeat_value_);
      repeat_left_ -= n;
      done += n;
      continue;
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(packed_left_, count - done));
    if (packed_bit_ + n * static_cast<size_t>(bit_width_) > packed_end_bit_) {
      return Corrupt("a bit-packed run is cut short");
    }
    for (size_t i = 0; i < n; ++i) {
      out[done + i] = static_cast<uint32_t>(ExtractBits(data_, packed_bit_, bit_width_));
      packed_bit_ += static_cast<size_t>(bit_width_);
    }
    packed_left_ -= n;
    done += n;
  }
  return absl::OkStatus();
}

absl::Status DecodeDeltaBinaryPacked(std::string_view data, size_t* pos, size_t max_values,
                                     std::vector<int64_t>* out) {
  ASSIGN_OR_RETURN(uint64_t block_size, ReadVarInt(data, pos));
  ASSIGN_OR_RETURN(uint64_t miniblocks, ReadVarInt(data, pos));
  ASSIGN_OR_RETURN(uint64_t total, ReadVarInt(data, pos));
  ASSIGN_OR_RETURN(uint64_t first_raw, ReadVarInt(data, pos));
  if (block_size == 0 || miniblocks == 0 || block_size % miniblocks != 0 ||
      (block_size / miniblocks) % 8 != 0 || block_size > (1u << 20)) {
    return Corrupt("a DELTA_BINARY_PACKED header is malformed");
  }
  if (total > max_values) {
    return Corrupt(absl::StrCat("DELTA_BINARY_PACKED holds ", total, " values, its page ",
                                max_values));
  }
  if (total == 0) return absl::OkStatus();
  const uint64_t per_miniblock = block_size / miniblocks;
  uint64_t value = (first_raw >> 1) ^ -(first_raw & 1);
  out->push_back(static_cast<int64_t>(value));
  uint64_t remaining = total - 1;
  while (remaining > 0) {
    ASSIGN_OR_RETURN(uint64_t min_raw, ReadVarInt(data, pos));
    const uint64_t min_delta = (min_raw >> 1) ^ -(min_raw & 1);
    if (data.size() - *pos < miniblocks) return Corrupt("DELTA_BINARY_PACKED bit widths are cut");
    std::string_view widths = data.substr(*pos, miniblocks);
    *pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && remaining > 0; ++m) {
      const int width = static_cast<uint8_t>(widths[m]);
      if (width > 64) return Corrupt("a DELTA_BINARY_PACKED bit width is over 64");
      const uint64_t bytes = per_miniblock * static_cast<uint64_t>(width) / 8;
      if (data.size() - *pos < bytes) return Corrupt("a DELTA_BINARY_PACKED miniblock is cut");
      std::string_view block = data.substr(*pos, bytes);
      const uint64_t n = std::min(per_miniblock, remaining);
      for (uint64_t i = 0; i < n; ++i) {
        value += min_delta + ExtractBits(block, i * static_cast<uint64_t>(width), width);
        out->push_back(static_cast<int64_t>(value));
      }
      *pos += bytes;
      remaining -= n;
    }
  }
  return absl::OkStatus();
}

absl::Status ParquetValueSink::AppendOne(const char* bytes) {
  switch (conversion_) {
    case ParquetConversion::kCopy:
      if (width_ == 8) {
        AppendInteger(Load<int64_t>(bytes), column_);
      } else {
        AppendInteger(Load<int32_t>(bytes), column_);
      }
      return absl::OkStatus();
    case ParquetConversion::kInt32To:
      AppendInteger(Load<int32_t>(bytes), column_);
      return absl::OkStatus();
    case ParquetConversion::kInt64To:
      AppendInteger(Load<int64_t>(bytes), column_);
      return absl::OkStatus();
    case ParquetConversion::kDate:
      column_->Append<uint16_t>(
          static_cast<uint16_t>(std::clamp<int32_t>(Load<int32_t>(bytes), 0, 0xFFFF)));
      return absl::OkStatus();
    case ParquetConversion::kInt96: {
      constexpr int64_t kUnixEpochJulianDay = 2440588;
      constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;
      const int64_t day = static_cast<int64_t>(Load<uint32_t>(bytes + 8)) - kUnixEpochJulianDay;
      column_->Append<int64_t>(static_cast<int64_t>(static_cast<uint64_t>(day) * kNanosPerDay +
                                                    Load<uint64_t>(bytes)));
      return absl::OkStatus();
    }
    case ParquetConversion::kUuid: {
      const uint64_t low = __builtin_bswap64(Load<uint64_t>(bytes));
      const uint64_t high = __builtin_bswap64(Load<uint64_t>(bytes + 8));
      column_->Append<core::UnsignedInt128>((core::UnsignedInt128{high} << 64) | low);
      return absl::OkStatus();
    }
    case ParquetConversion::kFloat16:
      column_->Append<float>(HalfToFloat(Load<uint16_t>(bytes)));
      return absl::OkStatus();
    case ParquetConversion::kString:
    case ParquetConversion::kBigEndianDecimal:
      return AppendBinary(std::string_view(bytes, static_cast<size_t>(width_)));
    case ParquetConversion::kBool:
      break;
  }
  return Corrupt("a value of an unexpected physical type");
}

absl::Status ParquetValueSink::AppendFixed(std::string_view bytes, size_t count) {
  if (count == 0) return absl::OkStatus();  // an all-NULL page: no buffer to copy from
  if (conversion_ == ParquetConversion::kCopy &&
      core::ValueSize(column_->type()) == static_cast<size_t>(width_)) {
    const size_t old = column_->size();
    column_->ResizeUninitialized(old + count);
    std::memcpy(column_->RawData() + old * width_, bytes.data(), count * width_);
    return absl::OkStatus();
  }
  if (conversion_ == ParquetConversion::kString) {
    for (size_t i = 0; i < count; ++i) column_->AppendString(bytes.substr(i * width_, width_));
    return absl::OkStatus();
  }
  for (size_t i = 0; i < count; ++i) RETURN_IF_ERROR(AppendOne(bytes.data() + i * width_));
  return absl::OkStatus();
}

absl::Status ParquetValueSink::AppendBinary(std::string_view value) {
  if (conversion_ == ParquetConversion::kString) {
    column_->AppendString(value);
    return absl::OkStatus();
  }
  if (conversion_ != ParquetConversion::kBigEndianDecimal) {
    return Corrupt("a byte array where a number was expected");
  }
  // Big-endian two's complement; bytes beyond 16 must only extend the sign.
  core::Int128 unscaled = 0;
  if (!value.empty() && (static_cast<uint8_t>(value[0]) & 0x80) != 0) unscaled = -1;
  for (size_t i = 0; i < value.size(); ++i) {
    if (i + 16 < value.size()) {
      const uint8_t extension = unscaled < 0 ? 0xFF : 0x00;
      if (static_cast<uint8_t>(value[i]) != extension) {
        return Corrupt("a decimal does not fit 128 bits");
      }
      continue;
    }
    unscaled = static_cast<core::Int128>(static_cast<core::UnsignedInt128>(unscaled) << 8) |
               static_cast<uint8_t>(value[i]);
  }
  AppendInteger(unscaled, column_);
  return absl::OkStatus();
}

absl::Status ParquetValueSink::AppendPlainBinary(std::string_view data, size_t* pos,
                                                 size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (data.size() - *pos < 4) return Corrupt("a BYTE_ARRAY length runs past its page");
    const uint32_t size = Load<uint32_t>(data.data() + *pos);
    *pos += 4;
    if (data.size() - *pos < size) return Corrupt("a BYTE_ARRAY value runs past its page");
    RETURN_IF_ERROR(AppendBinary(data.substr(*pos, size)));
    *pos += size;
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator

// BitWriter / BitReader: little-endian bit packing for the codecs that write values in fewer bits
// than their width (storage/codec_transforms.h: Gorilla, T64). Bits fill each byte from its least
// significant bit; Flush() pads the last byte with zeros.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace granite::storage {

// Appends bit fields to a string.
class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}

  // Appends the low `bits` bits of `value`. REQUIRES: bits <= 64.
  void Write(uint64_t value, int bits) {
    if (bits > 32) {
      Write(value & 0xffffffffu, 32);
      Write(value >> 32, bits - 32);
      return;
    }
    if (bits == 0) return;
    value &= bits == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
    acc_ |= value << used_;
    used_ += bits;
    while (used_ >= 8) {
      out_->push_back(static_cast<char>(acc_ & 0xff));
      acc_ >>= 8;
      used_ -= 8;
    }
  }
  // Writes the pending partial byte, zero-padded.
  void Flush() {
    if (used_ > 0) out_->push_back(static_cast<char>(acc_ & 0xff));
    acc_ = 0;
    used_ = 0;
  }

 private:
  std::string* out_;
  uint64_t acc_ = 0;
  int used_ = 0;  // < 8 between calls
};

// Reads bit fields written by BitWriter from [data, data + size).
class BitReader {
 public:
  BitReader(const char* data, size_t size) : data_(data), size_(size) {}

  // Returns the next `bits` bits (REQUIRES: bits <= 64); sets overrun() past the end.
  uint64_t Read(int bits) {
    if (bits > 32) {
      uint64_t low = Read(32);
      return low | (Read(bits - 32) << 32);
    }
    while (used_ < bits) {
      uint64_t byte = 0;
      if (pos_ < size_) {
        byte = static_cast<unsigned char>(data_[pos_]);
      } else {
        overrun_ = true;
      }
      ++pos_;
      acc_ |= byte << used_;
      used_ += 8;
    }
    uint64_t value = bits == 0 ? 0 : acc_ & ((uint64_t{1} << bits) - 1);
    acc_ = bits == 0 ? acc_ : acc_ >> bits;
    used_ -= bits;
    return value;
  }
  // Drops the rest of the current byte (the padding Flush wrote).
  void AlignToByte() {
    acc_ = 0;
    used_ = 0;
  }
  bool overrun() const { return overrun_; }
  // Returns the bytes consumed so far (including a partially read one).
  size_t position() const { return pos_; }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t acc_ = 0;
  int used_ = 0;
  bool overrun_ = false;
};

}  // namespace granite::storage

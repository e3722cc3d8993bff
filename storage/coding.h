// Little-endian encoding of the small metadata files of storage (schema, part meta, marks):
// ByteWriter appends fixed-width integers and length-prefixed strings, ByteReader parses them
// with bounds checks, and every such file ends with an XXH64 of its contents (Seal / Unseal) so
// that a torn or flipped metadata file is detected on load.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <xxhash.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::storage {

static_assert(std::endian::native == std::endian::little, "storage files are little-endian");

// Writes `v` as a LEB128 varint (7 bits a byte, low first, high bit = more) at `out`, which has
// room for 10 bytes, and returns the byte after it. Sparse granules' gaps and String lengths
// (storage/part_format.h) use it.
inline char* PutVarint(uint64_t v, char* out) {
  while (v >= 0x80) {
    *out++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<char>(v);
  return out;
}

// Appends values to a byte string.
class ByteWriter {
 public:
  void PutU8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void PutU32(uint32_t v) { PutRaw(&v, sizeof(v)); }
  void PutU64(uint64_t v) { PutRaw(&v, sizeof(v)); }
  // Writes a u32 length and the bytes. REQUIRES: s.size() < 4 GiB.
  void PutString(std::string_view s) {
    PutU32(static_cast<uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  void PutRaw(const void* data, size_t n) { out_.append(static_cast<const char*>(data), n); }
  // Writes a type in core::AppendTypeBytes form (one byte, three for a decimal).
  void PutType(core::TypeId type) { core::AppendTypeBytes(type, &out_); }

  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Parses values written by ByteWriter. Every getter returns false (and reads nothing) when the
// input is too short, so callers turn any short read into one CORRUPTED_DATA error.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool GetU8(uint8_t* v) { return GetRaw(v, sizeof(*v)); }
  bool GetU32(uint32_t* v) { return GetRaw(v, sizeof(*v)); }
  bool GetU64(uint64_t* v) { return GetRaw(v, sizeof(*v)); }
  bool GetString(std::string* s) {
    uint32_t n = 0;
    if (!GetU32(&n) || in_.size() < n) return false;
    s->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool GetRaw(void* out, size_t n) {
    if (in_.size() < n) return false;
    std::memcpy(out, in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool GetType(core::TypeId* type) { return core::ReadTypeBytes(&in_, type); }
  bool done() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

 private:
  std::string_view in_;
};

// Appends the XXH64 of `bytes` to it.
inline std::string Seal(std::string bytes) {
  uint64_t checksum = XXH64(bytes.data(), bytes.size(), 0);
  bytes.append(reinterpret_cast<const char*>(&checksum), sizeof(checksum));
  return bytes;
}

// Verifies the trailing XXH64 written by Seal and returns the contents before it. `what` names the
// file in the CORRUPTED_DATA error.
inline absl::StatusOr<std::string_view> Unseal(std::string_view bytes, std::string_view what) {
  uint64_t stored = 0;
  if (bytes.size() >= sizeof(stored)) {
    std::string_view body = bytes.substr(0, bytes.size() - sizeof(stored));
    std::memcpy(&stored, bytes.data() + body.size(), sizeof(stored));
    if (XXH64(body.data(), body.size(), 0) == stored) return body;
  }
  return core::Error(core::ErrorCode::kCorruptedData,
                     absl::StrCat("Checksum mismatch in ", std::string(what), " (", bytes.size(),
                                  " bytes)"));
}

}  // namespace granite::storage

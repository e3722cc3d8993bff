#include "storage/codec_transforms.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "storage/bit_stream.h"

namespace granite::storage {
namespace {

using core::CodecKind;
using core::CodecStep;

template <typename U>
U Load(const char* p) {
  U v;
  std::memcpy(&v, p, sizeof(U));
  return v;
}

template <typename U>
void Store(char* p, U v) {
  std::memcpy(p, &v, sizeof(U));
}

template <typename U>
void Append(std::string* out, U v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(U));
}

// Bits to hold a count in [0, width bits): 3 for bytes ... 6 for 64-bit values.
template <typename U>
constexpr int CountBits() {
  return sizeof(U) == 1 ? 3 : sizeof(U) == 2 ? 4 : sizeof(U) == 4 ? 5 : 6;
}

template <typename U>
int LeadingZeros(U x) {
  return __builtin_clzll(static_cast<uint64_t>(x)) - (64 - 8 * static_cast<int>(sizeof(U)));
}

// Writes the header shared by the size-changing transforms: input size, then the tail bytes.
void PutHeader(const char* in, size_t size, size_t width, std::string* out) {
  Append<uint32_t>(out, static_cast<uint32_t>(size));
  size_t tail = size % width;
  out->append(in + size - tail, tail);
}

// Reads that header: copies the tail to its place in `out`; returns the body's offset or 0.
size_t GetHeader(const char* in, size_t size, size_t width, char* out) {
  if (size < 4) return 0;
  uint32_t decoded = Load<uint32_t>(in);
  size_t tail = decoded % width;
  if (size < 4 + tail) return 0;
  if (tail > 0) std::memcpy(out + decoded - tail, in + 4, tail);
  return 4 + tail;
}

template <typename U>
void DeltaEncode(const char* in, size_t size, std::string* out) {
  size_t n = size / sizeof(U);
  size_t at = out->size();
  out->resize(at + size);
  char* dst = out->data() + at;
  U previous = 0;
  for (size_t i = 0; i < n; ++i) {
    U v = Load<U>(in + i * sizeof(U));
    Store<U>(dst + i * sizeof(U), static_cast<U>(v - previous));
    previous = v;
  }
  const size_t tail = size - n * sizeof(U);
  if (tail > 0) std::memcpy(dst + n * sizeof(U), in + n * sizeof(U), tail);
}

template <typename U>
void DeltaDecode(const char* in, size_t size, char* out) {
  size_t n = size / sizeof(U);
  U value = 0;
  for (size_t i = 0; i < n; ++i) {
    value = static_cast<U>(value + Load<U>(in + i * sizeof(U)));
    Store<U>(out + i * sizeof(U), value);
  }
  const size_t tail = size - n * sizeof(U);
  if (tail > 0) std::memcpy(out + n * sizeof(U), in + n * sizeof(U), tail);
}

template <typename U>
void DoubleDeltaEncode(const char* in, size_t size, std::string* out) {
  using S = std::make_signed_t<U>;
  constexpr int kBits = 8 * sizeof(U);
  PutHeader(in, size, sizeof(U), out);
  size_t n = size / sizeof(U);
  if (n == 0) return;
  U previous = Load<U>(in);
  Append<U>(out, previous);
  if (n == 1) return;
  U delta = static_cast<U>(Load<U>(in + sizeof(U)) - previous);
  Append<U>(out, delta);
  previous = Load<U>(in + sizeof(U));
  char varint[10];
  for (size_t i = 2; i < n; ++i) {
    U v = Load<U>(in + i * sizeof(U));
    U d = static_cast<U>(v - previous);
    U dd = static_cast<U>(d - delta);
    uint64_t z = static_cast<U>(static_cast<U>(dd << 1) ^
                                static_cast<U>(static_cast<S>(dd) >> (kBits - 1)));
    int len = 0;
    while (z >= 0x80) {
      varint[len++] = static_cast<char>((z & 0x7f) | 0x80);
      z >>= 7;
    }
    varint[len++] = static_cast<char>(z);
    out->append(varint, len);
    delta = d;
    previous = v;
  }
}

template <typename U>
bool DoubleDeltaDecode(const char* in, size_t size, char* out) {
  size_t pos = GetHeader(in, size, sizeof(U), out);
  if (pos == 0) return false;
  size_t n = Load<uint32_t>(in) / sizeof(U);
  if (n == 0) return pos == size;
  if (pos + sizeof(U) > size) return false;
  U value = Load<U>(in + pos);
  pos += sizeof(U);
  Store<U>(out, value);
  if (n == 1) return pos == size;
  if (pos + sizeof(U) > size) return false;
  U delta = Load<U>(in + pos);
  pos += sizeof(U);
  value = static_cast<U>(value + delta);
  Store<U>(out + sizeof(U), value);
  const unsigned char* p = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = 2; i < n; ++i) {
    uint64_t z = 0;
    int shift = 0;
    while (true) {
      if (pos >= size || shift > 63) return false;
      unsigned char byte = p[pos++];
      z |= uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) break;
      shift += 7;
    }
    U zu = static_cast<U>(z);
    U dd = static_cast<U>((zu >> 1) ^ static_cast<U>(U{0} - static_cast<U>(zu & 1)));
    delta = static_cast<U>(delta + dd);
    value = static_cast<U>(value + delta);
    Store<U>(out + i * sizeof(U), value);
  }
  return pos == size;
}

template <typename U>
void GorillaEncode(const char* in, size_t size, std::string* out) {
  constexpr int kBits = 8 * sizeof(U);
  constexpr int kCountBits = CountBits<U>();
  PutHeader(in, size, sizeof(U), out);
  size_t n = size / sizeof(U);
  if (n == 0) return;
  BitWriter bits(out);
  U previous = Load<U>(in);
  bits.Write(previous, kBits);
  for (size_t i = 1; i < n; ++i) {
    U v = Load<U>(in + i * sizeof(U));
    U x = static_cast<U>(v ^ previous);
    previous = v;
    if (x == 0) {
      bits.Write(0, 1);
      continue;
    }
    int lead = LeadingZeros<U>(x);
    int trail = __builtin_ctzll(static_cast<uint64_t>(x));
    int meaningful = kBits - lead - trail;
    bits.Write(1, 1);
    bits.Write(static_cast<uint64_t>(lead), kCountBits);
    bits.Write(static_cast<uint64_t>(meaningful - 1), kCountBits);
    bits.Write(static_cast<uint64_t>(x >> trail), meaningful);
  }
  bits.Flush();
}

template <typename U>
bool GorillaDecode(const char* in, size_t size, char* out) {
  constexpr int kBits = 8 * sizeof(U);
  constexpr int kCountBits = CountBits<U>();
  size_t pos = GetHeader(in, size, sizeof(U), out);
  if (pos == 0) return false;
  size_t n = Load<uint32_t>(in) / sizeof(U);
  if (n == 0) return pos == size;
  BitReader bits(in + pos, size - pos);
  U value = static_cast<U>(bits.Read(kBits));
  Store<U>(out, value);
  for (size_t i = 1; i < n; ++i) {
    if (bits.Read(1) != 0) {
      int lead = static_cast<int>(bits.Read(kCountBits));
      int meaningful = static_cast<int>(bits.Read(kCountBits)) + 1;
      if (lead + meaningful > kBits) return false;
      U x = static_cast<U>(bits.Read(meaningful));
      value = static_cast<U>(value ^ static_cast<U>(x << (kBits - lead - meaningful)));
    }
    Store<U>(out + i * sizeof(U), value);
    if (bits.overrun()) return false;
  }
  return !bits.overrun() && pos + bits.position() == size;
}

constexpr size_t kT64Block = 64;

template <typename U>
void T64Encode(const char* in, size_t size, bool is_signed, std::string* out) {
  const U flip = is_signed ? static_cast<U>(U{1} << (8 * sizeof(U) - 1)) : U{0};
  PutHeader(in, size, sizeof(U), out);
  size_t n = size / sizeof(U);
  U values[kT64Block];
  for (size_t begin = 0; begin < n; begin += kT64Block) {
    size_t count = std::min(kT64Block, n - begin);
    U min = static_cast<U>(Load<U>(in + begin * sizeof(U)) ^ flip);
    U max = min;
    for (size_t i = 0; i < count; ++i) {
      U v = static_cast<U>(Load<U>(in + (begin + i) * sizeof(U)) ^ flip);
      values[i] = v;
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
    U range = static_cast<U>(max - min);
    int width = range == 0 ? 0 : 64 - __builtin_clzll(static_cast<uint64_t>(range));
    Append<U>(out, min);
    out->push_back(static_cast<char>(width));
    BitWriter bits(out);
    for (size_t i = 0; i < count; ++i) bits.Write(static_cast<U>(values[i] - min), width);
    bits.Flush();
  }
}

template <typename U>
bool T64Decode(const char* in, size_t size, bool is_signed, char* out) {
  const U flip = is_signed ? static_cast<U>(U{1} << (8 * sizeof(U) - 1)) : U{0};
  size_t pos = GetHeader(in, size, sizeof(U), out);
  if (pos == 0) return false;
  size_t n = Load<uint32_t>(in) / sizeof(U);
  for (size_t begin = 0; begin < n; begin += kT64Block) {
    size_t count = std::min(kT64Block, n - begin);
    if (pos + sizeof(U) + 1 > size) return false;
    U min = Load<U>(in + pos);
    int width = static_cast<unsigned char>(in[pos + sizeof(U)]);
    pos += sizeof(U) + 1;
    if (width > static_cast<int>(8 * sizeof(U))) return false;
    size_t bytes = (count * static_cast<size_t>(width) + 7) / 8;
    if (pos + bytes > size) return false;
    BitReader bits(in + pos, bytes);
    for (size_t i = 0; i < count; ++i) {
      U v = static_cast<U>(static_cast<U>(bits.Read(width)) + min);
      Store<U>(out + (begin + i) * sizeof(U), static_cast<U>(v ^ flip));
    }
    pos += bytes;
  }
  return pos == size;
}

// Calls fn(U{}) with the unsigned integer type of `width` bytes.
template <typename Fn>
auto WithWidth(int width, Fn&& fn) {
  switch (width) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    default: return fn(uint64_t{});
  }
}

}  // namespace

void EncodeTransform(const CodecStep& step, const char* in, size_t size, std::string* out) {
  WithWidth(step.param, [&](auto zero) {
    using U = decltype(zero);
    switch (step.kind) {
      case CodecKind::kDelta: DeltaEncode<U>(in, size, out); break;
      case CodecKind::kDoubleDelta: DoubleDeltaEncode<U>(in, size, out); break;
      case CodecKind::kGorilla: GorillaEncode<U>(in, size, out); break;
      case CodecKind::kT64: T64Encode<U>(in, size, step.is_signed, out); break;
      default: break;
    }
  });
}

int64_t DecodedTransformSize(const CodecStep& step, const char* in, size_t size) {
  if (step.kind == CodecKind::kDelta) return static_cast<int64_t>(size);
  if (size < 4) return -1;
  return Load<uint32_t>(in);
}

bool DecodeTransform(const CodecStep& step, const char* in, size_t size, char* out) {
  return WithWidth(step.param, [&](auto zero) {
    using U = decltype(zero);
    switch (step.kind) {
      case CodecKind::kDelta: DeltaDecode<U>(in, size, out); return true;
      case CodecKind::kDoubleDelta: return DoubleDeltaDecode<U>(in, size, out);
      case CodecKind::kGorilla: return GorillaDecode<U>(in, size, out);
      case CodecKind::kT64: return T64Decode<U>(in, size, step.is_signed, out);
      default: return false;
    }
  });
}

}  // namespace granite::storage

#include "core/functions/hash_algorithms.h"

#include <cstring>
#include <utility>

namespace granite::core {
namespace {

constexpr uint64_t k0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t k1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t k2 = 0x9ae16a3b2f90404fULL;
constexpr uint64_t k3 = 0xc949d7c7509e6557ULL;

uint64_t Fetch64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Fetch32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Rotate(uint64_t v, int shift) { return shift == 0 ? v : (v >> shift) | (v << (64 - shift)); }
uint64_t RotateAtLeast1(uint64_t v, int shift) { return (v >> shift) | (v << (64 - shift)); }
uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }
uint64_t HashLen16(uint64_t u, uint64_t v) { return CityHash128To64(u, v); }

uint64_t HashLen0to16(const char* s, size_t len) {
  if (len > 8) {
    const uint64_t a = Fetch64(s);
    const uint64_t b = Fetch64(s + len - 8);
    return HashLen16(a, RotateAtLeast1(b + len, static_cast<int>(len))) ^ b;
  }
  if (len >= 4) {
    const uint64_t a = Fetch32(s);
    return HashLen16(len + (a << 3), Fetch32(s + len - 4));
  }
  if (len > 0) {
    const uint8_t a = s[0], b = s[len >> 1], c = s[len - 1];
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * k2 ^ z * k3) * k2;
  }
  return k2;
}

uint64_t HashLen17to32(const char* s, size_t len) {
  const uint64_t a = Fetch64(s) * k1;
  const uint64_t b = Fetch64(s + 8);
  const uint64_t c = Fetch64(s + len - 8) * k2;
  const uint64_t d = Fetch64(s + len - 16) * k0;
  return HashLen16(Rotate(a - b, 43) + Rotate(c, 30) + d, a + Rotate(b ^ k3, 20) - c + len);
}

std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(uint64_t w, uint64_t x, uint64_t y,
                                                     uint64_t z, uint64_t a, uint64_t b) {
  a += w;
  b = Rotate(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += Rotate(a, 44);
  return {a + z, b + c};
}

std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(const char* s, uint64_t a, uint64_t b) {
  return WeakHashLen32WithSeeds(Fetch64(s), Fetch64(s + 8), Fetch64(s + 16), Fetch64(s + 24), a,
                                b);
}

uint64_t HashLen33to64(const char* s, size_t len) {
  uint64_t z = Fetch64(s + 24);
  uint64_t a = Fetch64(s) + (len + Fetch64(s + len - 16)) * k0;
  uint64_t b = Rotate(a + z, 52);
  uint64_t c = Rotate(a, 37);
  a += Fetch64(s + 8);
  c += Rotate(a, 7);
  a += Fetch64(s + 16);
  const uint64_t vf = a + z;
  const uint64_t vs = b + Rotate(a, 31) + c;
  a = Fetch64(s + 16) + Fetch64(s + len - 32);
  z = Fetch64(s + len - 8);
  b = Rotate(a + z, 52);
  c = Rotate(a, 37);
  a += Fetch64(s + len - 24);
  c += Rotate(a, 7);
  a += Fetch64(s + len - 16);
  const uint64_t wf = a + z;
  const uint64_t ws = b + Rotate(a, 31) + c;
  const uint64_t r = ShiftMix((vf + ws) * k2 + (wf + vs) * k0);
  return ShiftMix(r * k0 + vs) * k2;
}

}  // namespace

uint64_t CityHash128To64(uint64_t low, uint64_t high) {
  constexpr uint64_t kMul = 0x9ddfea08eb382d69ULL;
  uint64_t a = (low ^ high) * kMul;
  a ^= (a >> 47);
  uint64_t b = (high ^ a) * kMul;
  b ^= (b >> 47);
  b *= kMul;
  return b;
}

uint64_t CityHash64V102(const char* s, size_t len) {
  if (len <= 32) return len <= 16 ? HashLen0to16(s, len) : HashLen17to32(s, len);
  if (len <= 64) return HashLen33to64(s, len);
  uint64_t x = Fetch64(s);
  uint64_t y = Fetch64(s + len - 16) ^ k1;
  uint64_t z = Fetch64(s + len - 56) ^ k0;
  std::pair<uint64_t, uint64_t> v = WeakHashLen32WithSeeds(s + len - 64, len, y);
  std::pair<uint64_t, uint64_t> w = WeakHashLen32WithSeeds(s + len - 32, len * k1, k0);
  z += ShiftMix(v.second) * k1;
  x = Rotate(z + x, 39) * k1;
  y = Rotate(y, 33) * k1;
  len = (len - 1) & ~static_cast<size_t>(63);
  do {
    x = Rotate(x + y + v.first + Fetch64(s + 16), 37) * k1;
    y = Rotate(y + v.second + Fetch64(s + 48), 42) * k1;
    x ^= w.second;
    y ^= v.first;
    z = Rotate(z ^ w.first, 33);
    v = WeakHashLen32WithSeeds(s, v.second * k1, x + w.first);
    w = WeakHashLen32WithSeeds(s + 32, z + w.second, y);
    std::swap(z, x);
    s += 64;
    len -= 64;
  } while (len != 0);
  return HashLen16(HashLen16(v.first, w.first) + ShiftMix(y) * k1 + z,
                   HashLen16(v.second, w.second) + x);
}

uint64_t SipHash64(const char* s, size_t len) {
  uint64_t v0 = 0x736f6d6570736575ULL, v1 = 0x646f72616e646f6dULL;
  uint64_t v2 = 0x6c7967656e657261ULL, v3 = 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = Rotate(v1, 64 - 13);
    v1 ^= v0;
    v0 = Rotate(v0, 64 - 32);
    v2 += v3;
    v3 = Rotate(v3, 64 - 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotate(v3, 64 - 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotate(v1, 64 - 17);
    v1 ^= v2;
    v2 = Rotate(v2, 64 - 32);
  };
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t m = Fetch64(s + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t k = 0; i + k < len; ++k) last |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + k])) << (8 * k);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t MurmurHash2_32(const char* s, size_t len, uint32_t seed) {
  constexpr uint32_t m = 0x5bd1e995;
  uint32_t h = seed ^ static_cast<uint32_t>(len);
  while (len >= 4) {
    uint32_t k = Fetch32(s);
    k *= m;
    k ^= k >> 24;
    k *= m;
    h *= m;
    h ^= k;
    s += 4;
    len -= 4;
  }
  switch (len) {
    case 3: h ^= static_cast<uint32_t>(static_cast<uint8_t>(s[2])) << 16; [[fallthrough]];
    case 2: h ^= static_cast<uint32_t>(static_cast<uint8_t>(s[1])) << 8; [[fallthrough]];
    case 1: h ^= static_cast<uint8_t>(s[0]); h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

uint64_t MurmurHash2_64(const char* s, size_t len, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  uint64_t h = seed ^ (len * m);
  const size_t blocks = len / 8;
  for (size_t b = 0; b < blocks; ++b) {
    uint64_t k = Fetch64(s + 8 * b);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const char* tail = s + 8 * blocks;
  switch (len & 7) {
    case 7: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[6])) << 48; [[fallthrough]];
    case 6: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[5])) << 40; [[fallthrough]];
    case 5: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[4])) << 32; [[fallthrough]];
    case 4: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[3])) << 24; [[fallthrough]];
    case 3: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[2])) << 16; [[fallthrough]];
    case 2: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[1])) << 8; [[fallthrough]];
    case 1: h ^= static_cast<uint64_t>(static_cast<uint8_t>(tail[0])); h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

namespace {
uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
uint32_t Fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}
uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}
}  // namespace

uint32_t MurmurHash3_32(const char* s, size_t len, uint32_t seed) {
  constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h = seed;
  const size_t blocks = len / 4;
  for (size_t b = 0; b < blocks; ++b) {
    uint32_t k = Fetch32(s + 4 * b);
    k *= c1;
    k = Rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl32(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const auto* tail = reinterpret_cast<const uint8_t*>(s + 4 * blocks);
  uint32_t k = 0;
  switch (len & 3) {
    case 3: k ^= static_cast<uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= c1;
      k = Rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(len);
  return Fmix32(h);
}

void MurmurHash3_128(const char* s, size_t len, uint32_t seed, uint64_t out[2]) {
  constexpr uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  uint64_t h1 = seed, h2 = seed;
  const size_t blocks = len / 16;
  for (size_t b = 0; b < blocks; ++b) {
    uint64_t k1 = Fetch64(s + 16 * b), k2 = Fetch64(s + 16 * b + 8);
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = Rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const auto* tail = reinterpret_cast<const uint8_t*>(s + 16 * blocks);
  uint64_t k1 = 0, k2 = 0;
  switch (len & 15) {
    case 15: k2 ^= static_cast<uint64_t>(tail[14]) << 48; [[fallthrough]];
    case 14: k2 ^= static_cast<uint64_t>(tail[13]) << 40; [[fallthrough]];
    case 13: k2 ^= static_cast<uint64_t>(tail[12]) << 32; [[fallthrough]];
    case 12: k2 ^= static_cast<uint64_t>(tail[11]) << 24; [[fallthrough]];
    case 11: k2 ^= static_cast<uint64_t>(tail[10]) << 16; [[fallthrough]];
    case 10: k2 ^= static_cast<uint64_t>(tail[9]) << 8; [[fallthrough]];
    case 9:
      k2 ^= static_cast<uint64_t>(tail[8]);
      k2 *= c2;
      k2 = Rotl64(k2, 33);
      k2 *= c1;
      h2 ^= k2;
      [[fallthrough]];
    case 8: k1 ^= static_cast<uint64_t>(tail[7]) << 56; [[fallthrough]];
    case 7: k1 ^= static_cast<uint64_t>(tail[6]) << 48; [[fallthrough]];
    case 6: k1 ^= static_cast<uint64_t>(tail[5]) << 40; [[fallthrough]];
    case 5: k1 ^= static_cast<uint64_t>(tail[4]) << 32; [[fallthrough]];
    case 4: k1 ^= static_cast<uint64_t>(tail[3]) << 24; [[fallthrough]];
    case 3: k1 ^= static_cast<uint64_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k1 ^= static_cast<uint64_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k1 ^= static_cast<uint64_t>(tail[0]);
      k1 *= c1;
      k1 = Rotl64(k1, 31);
      k1 *= c2;
      h1 ^= k1;
  }
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = Fmix64(h1);
  h2 = Fmix64(h2);
  h1 += h2;
  h2 += h1;
  out[0] = h1;
  out[1] = h2;
}

uint64_t IntHash64(uint64_t x) { return Fmix64(x ^ 0x4CF2D2BAAE6DA887ULL); }

uint64_t IntHash32(uint64_t key) {
  key ^= 0x75D9543DE018BF45ULL;
  key = (~key) + (key << 18);
  key = key ^ ((key >> 31) | (key << 33));
  key = key * 21;
  key = key ^ ((key >> 11) | (key << 53));
  key = key + (key << 6);
  key = key ^ ((key >> 22) | (key << 42));
  return static_cast<uint32_t>(key);
}

}  // namespace granite::core

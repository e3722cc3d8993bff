// Hash functions with ClickHouse's values:
//   cityHash64, sipHash64, xxHash64, murmurHash2_64, murmurHash3_64 -> UInt64;
//   xxHash32, murmurHash2_32, murmurHash3_32 -> UInt32; halfMD5 -> UInt64 (the first 8 bytes of
//   MD5, big-endian) (any number of arguments of any type; none gives
//   ClickHouse's fixed value for the empty list);
//   intHash32 -> UInt32, intHash64 -> UInt64 (an integer); javaHash, hiveHash -> Int32 (String);
//   MD5, SHA1, SHA224, SHA256, SHA384, SHA512 -> String (the digest bytes; ClickHouse types them
//   FixedString(N)); CRC32 -> UInt32.
// As in ClickHouse, a String argument is hashed by its bytes and a number by its bytes in memory
// (cityHash64: by intHash64 of the value's bits, a Decimal by its bytes); several arguments
// combine left to right.
#include <openssl/evp.h>
#include <xxhash.h>
#include <zlib.h>

#include <cstring>
#include <string>

#include "core/functions/function_errors.h"
#include "core/functions/hash_algorithms.h"
#include "core/functions/simple_function.h"
#include "core/functions/vector_loops.h"

namespace granite::core {
namespace {

struct Hasher {
  std::string_view name;
  bool wide;               // UInt64 result, else UInt32
  bool int_hash_numbers;   // numbers hash as intHash64 of their bits (cityHash64)
  uint64_t (*bytes)(const char*, size_t);
  uint64_t (*combine)(uint64_t, uint64_t);
};

uint64_t City(const char* s, size_t n) { return CityHash64V102(s, n); }
uint64_t Sip(const char* s, size_t n) { return SipHash64(s, n); }
uint64_t Xx64(const char* s, size_t n) { return XXH64(s, n, 0); }
uint64_t Xx32(const char* s, size_t n) { return XXH32(s, n, 0); }
uint64_t Murmur2_64(const char* s, size_t n) { return MurmurHash2_64(s, n, 0); }
uint64_t Murmur2_32(const char* s, size_t n) { return MurmurHash2_32(s, n, 0); }
uint64_t Murmur3_32(const char* s, size_t n) { return MurmurHash3_32(s, n, 0); }
uint64_t Murmur3_64(const char* s, size_t n) {
  uint64_t out[2];
  MurmurHash3_128(s, n, 0, out);
  return out[0] ^ out[1];
}

// The first 8 bytes of the MD5 digest, read big-endian.
uint64_t HalfMd5Bytes(const char* s, size_t n) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(s, n, digest, &size, EVP_md5(), nullptr);
  uint64_t h = 0;
  for (int k = 0; k < 8; ++k) h = (h << 8) | digest[k];
  return h;
}

uint64_t CombineCity(uint64_t a, uint64_t b) { return CityHash128To64(a, b); }
template <uint64_t (*H)(const char*, size_t)>
uint64_t CombineBytes(uint64_t a, uint64_t b) {
  const uint64_t both[2] = {a, b};
  return H(reinterpret_cast<const char*>(both), 16);
}
uint64_t CombineInt64(uint64_t a, uint64_t b) { return IntHash64(a) ^ b; }
uint64_t CombineInt32(uint64_t a, uint64_t b) { return static_cast<uint32_t>(IntHash32(a) ^ b); }

constexpr Hasher kHashers[] = {
    {"cityHash64", true, true, City, CombineCity},
    {"sipHash64", true, false, Sip, CombineBytes<Sip>},
    {"xxHash64", true, false, Xx64, CombineCity},
    {"murmurHash2_64", true, false, Murmur2_64, CombineInt64},
    {"murmurHash3_64", true, false, Murmur3_64, CombineInt64},
    {"xxHash32", false, false, Xx32, CombineInt32},
    {"murmurHash2_32", false, false, Murmur2_32, CombineInt32},
    {"murmurHash3_32", false, false, Murmur3_32, CombineInt32},
    {"halfMD5", true, false, HalfMd5Bytes, CombineBytes<HalfMd5Bytes>},
};

const Hasher* FindHasher(std::string_view name) {
  for (const Hasher& h : kHashers) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

absl::StatusOr<TypeId> ResolveHash(std::string_view name, const std::vector<ArgumentInfo>&) {
  return FindHasher(name)->wide ? TypeId::kUInt64 : TypeId::kUInt32;
}

constexpr uint64_t kEmptyListHash = 0xe28dbde7fe22e41cULL;

class HashKernel : public ScalarKernel {
 public:
  explicit HashKernel(const Hasher& hasher) : hasher_(hasher) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    // No arguments: ClickHouse's fixed value for the empty list (truncated to 32 bits).
    std::vector<uint64_t> hashes(rows, args.empty() ? kEmptyListHash : 0);
    for (size_t a = 0; a < args.size(); ++a) {
      const Column& column = *args[a].column;
      const bool constant = args[a].is_constant;
      for (size_t i = 0; i < rows; ++i) {
        const size_t row = constant ? 0 : i;
        uint64_t h;
        if (column.type() == TypeId::kString) {
          std::string_view s = column.StringAt(row);
          h = hasher_.bytes(s.data(), s.size());
        } else {
          const size_t width = ValueSize(column.type());
          const char* p = column.RawData() + row * width;
          // A Decimal hashes by its bytes in every function, as in ClickHouse.
          if (hasher_.int_hash_numbers && !IsDecimal(column.type())) {
            uint64_t bits = 0;
            std::memcpy(&bits, p, width);
            h = IntHash64(bits);
          } else {
            h = hasher_.bytes(p, width);
          }
        }
        hashes[i] = a == 0 ? h : hasher_.combine(hashes[i], h);
      }
    }
    auto out = NewColumn(hasher_.wide ? TypeId::kUInt64 : TypeId::kUInt32, rows);
    if (hasher_.wide) {
      std::memcpy(out->Data<uint64_t>(), hashes.data(), rows * 8);
    } else {
      uint32_t* r = out->Data<uint32_t>();
      for (size_t i = 0; i < rows; ++i) r[i] = static_cast<uint32_t>(hashes[i]);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const Hasher& hasher_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileHash(std::string_view name,
                                                          const std::vector<ArgumentInfo>&,
                                                          TypeId) {
  return std::make_unique<HashKernel>(*FindHasher(name));
}

void IntHash64Row(const Operand* ops, size_t i, Column* out) {
  out->Append<uint64_t>(IntHash64(U64(ops[0], i)));
}
void IntHash32Row(const Operand* ops, size_t i, Column* out) {
  out->Append<uint32_t>(static_cast<uint32_t>(IntHash32(U64(ops[0], i))));
}

void JavaHash(const Operand* ops, size_t i, Column* out) {
  uint32_t h = 0;
  for (char c : Str(ops[0], i)) h = 31 * h + static_cast<uint32_t>(static_cast<int8_t>(c));
  out->Append<int32_t>(static_cast<int32_t>(h));
}

void HiveHash(const Operand* ops, size_t i, Column* out) {
  uint32_t h = 0;
  for (char c : Str(ops[0], i)) h = 31 * h + static_cast<uint32_t>(static_cast<int8_t>(c));
  out->Append<int32_t>(static_cast<int32_t>(h & 0x7fffffffu));
}

std::string Digest(const EVP_MD* md, std::string_view s) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(s.data(), s.size(), digest, &size, md, nullptr);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

template <const EVP_MD* (*Md)()>
void DigestRow(const Operand* ops, size_t i, Column* out) {
  out->AppendString(Digest(Md(), Str(ops[0], i)));
}

void Crc32(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  out->Append<uint32_t>(static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()))));
}

using A = Arg;
constexpr TypeId kStr = TypeId::kString;

}  // namespace

void RegisterHashFunctions(FunctionTable& table) {
  // Every combination of argument types is checked against ClickHouse by
  // tests/tools/function_coverage.py.
  for (const Hasher& h : kHashers) {
    table.Add({h.name, 0, kVariadic, false, ResolveHash, CompileHash});
  }
  AddSimpleFunctions(table, {
      {"intHash64", {A::kUInt}, 1, 1, false, TypeId::kUInt64, MakeRowKernel<IntHash64Row>},
      {"intHash32", {A::kUInt}, 1, 1, false, TypeId::kUInt32, MakeRowKernel<IntHash32Row>},
      {"javaHash", {A::kString}, 1, 1, false, TypeId::kInt32, MakeRowKernel<JavaHash>},
      {"hiveHash", {A::kString}, 1, 1, false, TypeId::kInt32, MakeRowKernel<HiveHash>},
      {"MD5", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_md5>>},
      {"SHA1", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_sha1>>},
      {"SHA224", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_sha224>>},
      {"SHA256", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_sha256>>},
      {"SHA384", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_sha384>>},
      {"SHA512", {A::kString}, 1, 1, false, kStr, MakeRowKernel<DigestRow<EVP_sha512>>},
      {"CRC32", {A::kString}, 1, 1, true, TypeId::kUInt32, MakeRowKernel<Crc32>},
  });
}

}  // namespace granite::core

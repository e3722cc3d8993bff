#include "coordinator/access/password.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cstring>

#include "absl/strings/ascii.h"

namespace granite::coordinator::access {

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * SHA256_DIGEST_LENGTH, '0');
  for (int i = 0; i < SHA256_DIGEST_LENGTH; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool PasswordMatches(PasswordKind kind, std::string_view stored, std::string_view password) {
  switch (kind) {
    case PasswordKind::kNone:
      return password.empty();
    case PasswordKind::kSha256:
      return ConstantTimeEquals(Sha256Hex(password),
                                absl::AsciiStrToLower(std::string(stored)));
    case PasswordKind::kBcrypt: {
      // crypt_rn stops at a NUL: a password holding one cannot match (bcrypt hashes C strings).
      if (password.find('\0') != std::string_view::npos) return false;
      crypt_data data;
      std::memset(&data, 0, sizeof(data));
      const char* hashed =
          crypt_rn(std::string(password).c_str(), std::string(stored).c_str(), &data,
                   sizeof(data));
      return hashed != nullptr && hashed[0] != '*' && ConstantTimeEquals(hashed, stored);
    }
  }
  return false;
}

}  // namespace granite::coordinator::access

// Password checks of the users file: a password is stored as its SHA-256 (hex) or as a bcrypt
// hash ($2a$/$2b$/$2y$, checked with libcrypt), never in plain text. Comparisons take the same time
// whatever the bytes, so timing does not reveal how much of a guess was right.
#pragma once

#include <string>
#include <string_view>

namespace granite::coordinator::access {

enum class PasswordKind { kNone, kSha256, kBcrypt };

// Returns the lower-case hex SHA-256 of `text` (what `password_sha256_hex` holds).
std::string Sha256Hex(std::string_view text);

// True if `a` and `b` are equal, in time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// True if `password` matches `stored` of `kind`: kNone matches only the empty password; kSha256
// compares Sha256Hex(password) with the stored hex (case-insensitive); kBcrypt recomputes the
// hash with the stored salt and cost.
bool PasswordMatches(PasswordKind kind, std::string_view stored, std::string_view password);

}  // namespace granite::coordinator::access

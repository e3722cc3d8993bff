// Utf8Check: finds the first byte of text that is not well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF). The coordinator checks a request's query text
// with it, which its protobuf code takes as bytes (proto/CMakeLists.txt) so that invalid text
// reaches the service and is answered with a ClickHouse exception rather than a gRPC error.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace granite::coordinator {

// Returns the offset of the first byte of the first ill-formed sequence of `text` (a lead byte
// that cannot start one, or the start of a truncated or overlong one), or nullopt when all of
// `text` is well-formed UTF-8.
std::optional<size_t> FirstInvalidUtf8Byte(std::string_view text);

}  // namespace granite::coordinator

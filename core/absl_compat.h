// Bridges std::string_view and Debian's abseil, which is built with its own absl::string_view.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace granite::core {

inline absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view FromAbsl(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace granite::core

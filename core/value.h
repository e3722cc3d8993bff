// Value: one scalar (a literal in a plan, a min/max bound, a row of a VALUES list).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace granite::core {

// Holds a scalar in its widest physical form. The logical type travels beside it.
using Value = std::variant<int64_t, uint64_t, double, std::string>;

}  // namespace granite::core

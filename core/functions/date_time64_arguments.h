// DateTime64 arguments of the DateTime functions: toYear, toHour, toStartOfHour, dateDiff, ...
// take a DateTime64 as the DateTime of its whole seconds, as ClickHouse does for the functions
// whose result does not depend on the fraction (their result types are the DateTime ones). The
// binder wraps such an argument in toDateTime(x) before resolving the call.
#pragma once

#include <cstddef>
#include <string_view>

namespace granite::core {

// Returns whether argument `index` of function `name` reads a DateTime64 as its whole seconds.
bool TakesDateTime64AsDateTime(std::string_view name, size_t index);

}  // namespace granite::core

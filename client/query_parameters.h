// Query parameters of the command-line client (`--param_x=5` with `{x:UInt64}` in the query), as
// clickhouse-client takes them: each placeholder {name:Type} outside quotes and comments becomes
// CAST('<value>' AS Type), the value quoted as a SQL string, so the server parses it as that type
// and the value never changes the query's structure.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace granite::client {

// Returns `query` with its placeholders replaced by the values of `params`; BAD_ARGUMENTS (36)
// naming a placeholder that has no value ("Substitution `x` is not set").
absl::StatusOr<std::string> SubstituteParameters(std::string_view query,
                                                 const std::map<std::string, std::string>& params);

}  // namespace granite::client

// Query parameters and the current database, bound before a statement runs.
//
// A query parameter is written {name:Type} in the query text (expression_parser.h) and gets its
// value from the setting param_<name>, as ClickHouse's clients send it: in QueryInfo.settings,
// as an HTTP URL argument param_<name>=..., or with SET param_<name> = '...' in a session. The
// value text is parsed as Type the way TabSeparated input parses a field (escapes decoded, \N is
// NULL for a Nullable type), and the parameter becomes CAST('<value>', 'Type').
// currentDatabase() (alias DATABASE()) becomes the current database's name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

inline constexpr std::string_view kQueryParameterPrefix = "param_";

// Returns the param_<name> entries of `settings` by <name>, and the other entries.
template <typename Map>
std::map<std::string, std::string> QueryParametersOf(const Map& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : settings) {
    std::string_view view(name);
    if (view.substr(0, kQueryParameterPrefix.size()) == kQueryParameterPrefix) {
      out[std::string(view.substr(kQueryParameterPrefix.size()))] = value;
    }
  }
  return out;
}
template <typename Map>
std::map<std::string, std::string> WithoutQueryParameters(const Map& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : settings) {
    if (std::string_view(name).substr(0, kQueryParameterPrefix.size()) != kQueryParameterPrefix) {
      out[name] = value;
    }
  }
  return out;
}

// Returns `statement` with its query parameters and currentDatabase() calls replaced, or nullopt
// when it has none. Errors: UNKNOWN_QUERY_PARAMETER (456) naming a parameter without a value;
// BAD_QUERY_PARAMETER (457) naming the parameter, its value and type when the value does not
// parse; UNKNOWN_TYPE for a type granite does not have.
absl::StatusOr<std::optional<sql::Statement>> BindQueryConstants(
    const sql::Statement& statement, const std::string& database,
    const std::map<std::string, std::string>& parameters);

}  // namespace granite::coordinator

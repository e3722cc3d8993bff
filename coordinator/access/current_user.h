// currentUser() (and its alias user()): the name of the authenticated user, which only the
// coordinator knows. Before a statement runs, its calls are replaced by the name as a string
// literal, so every later stage (binder, workers) sees a constant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "coordinator/sql/ast.h"

namespace granite::coordinator::access {

// Returns `statement` with every currentUser() / user() call (any case, no arguments) replaced
// by the string literal `user`; a select item keeps the call's column name ("currentUser()").
// Returns nullopt, copying nothing, when `query` (the statement's text) cannot contain such a
// call, and when the statement has none.
std::optional<sql::Statement> BindCurrentUser(const sql::Statement& statement,
                                              std::string_view query, const std::string& user);

}  // namespace granite::coordinator::access

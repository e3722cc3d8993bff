// The access-control statements (ast.h AccessStatement), parsed beside parser.cc's: GRANT and
// REVOKE of privileges or of roles, SHOW GRANTS, CREATE / DROP QUOTA, CREATE / DROP ROLE.
// parser.cc hands a statement here when IsAccessStatement says it is one.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "coordinator/sql/token_stream.h"

namespace granite::coordinator::sql {

// Returns whether the statement starting at `tokens`' next token is one of this file's.
bool IsAccessStatement(TokenStream& tokens);

// Parses one such statement to the end of the query (an optional ';' included). Refuses what
// granite does not implement with NOT_IMPLEMENTED: WITH GRANT OPTION, column lists, roles.
// REQUIRES: IsAccessStatement(*tokens).
absl::StatusOr<Statement> ParseAccessStatement(TokenStream* tokens);

}  // namespace granite::coordinator::sql

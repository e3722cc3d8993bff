// The statements about databases and tables as a whole, parsed beside parser.cc's: USE,
// CREATE / DROP DATABASE, SHOW (TABLES, DATABASES, CREATE TABLE, PROCESSLIST), EXISTS, TRUNCATE,
// RENAME TABLE. parser.cc hands a statement here when IsCatalogStatement says it is one.
#pragma once

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "coordinator/sql/token_stream.h"

namespace granite::coordinator::sql {

// Returns whether the statement starting at `tokens`' next token is one of this file's.
bool IsCatalogStatement(TokenStream& tokens);

// Parses one such statement to the end of the query (an optional ';' included). Table names are
// kept as written: "t" or "db.t" (also "default.t"); the executor resolves them against the
// current database (coordinator/exec/database_resolver.h).
// REQUIRES: IsCatalogStatement(*tokens).
absl::StatusOr<Statement> ParseCatalogStatement(TokenStream* tokens);

}  // namespace granite::coordinator::sql

// The SQL parser: turns one ClickHouse-dialect statement into the syntax tree of ast.h, which the
// binder resolves against the catalog. Statements: SELECT, CREATE TABLE, DROP TABLE, SHOW TABLES,
// DESCRIBE, INSERT (VALUES / FORMAT with inline data / SELECT), OPTIMIZE TABLE, KILL QUERY, and
// the database and table statements of catalog_statement_parser.h.
//
// Parts: lexer.h (tokens), token_stream.h (lookahead and error messages), expression_parser.h
// (expressions and types), parser.cc (statements), column_name.cc (ColumnName).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator::sql {

// Parses exactly one statement, optionally followed by ';'. Whitespace and comments may appear
// anywhere, also after the ';'. Every failure is a SYNTAX_ERROR whose message names the 1-based
// byte position, line and column, the offending token and what was expected:
//   Syntax error: failed at position 10 (line 1, col 10) ('FORM'): FORM numbers(10). Expected ...
// Expr::position and the other `position` fields in the tree are 0-based byte offsets.
// Table names of DDL and INSERT are kept as written ("t" or "db.t"); SELECT keeps the database in
// TableRef::database. The executor resolves both against the current database.
// Thread-safety: reentrant. The result does not point into `sql`.
absl::StatusOr<Statement> ParseStatement(std::string_view sql);

// Returns the name ClickHouse gives the column computed by `expr` when it has no alias:
// identifiers as written without their qualifier ("number"), literals as ClickHouse prints them
// (1, -1, 1.5, 'it\'s', NULL), functions as name(args) joined by ", " ("plus(number, 1)"),
// count(*) as "count()" and f(DISTINCT x) as "fDistinct(x)" ("countDistinct(x)"). Ignores
// expr.alias.
std::string ColumnName(const Expr& expr);

}  // namespace granite::coordinator::sql

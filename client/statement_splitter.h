// Splits SQL scripts into statements for the command-line client (client.h): batch mode splits all
// of stdin at once, the interactive loop splits its growing line buffer after every line.
//
// A statement ends at a ';' that is outside quotes and comments. The lexer knows exactly what
// ClickHouse's does about where a ';' can hide:
//   'string' and "identifier" and `identifier`, each with backslash escapes and doubled quotes;
//   -- line comments (to the end of the line) and /* block comments */ (nested, as in ClickHouse).
// It does not parse SQL: statements keep their comments and are only trimmed of whitespace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace granite::client {

// The statements of a script and what follows the last ';'.
struct SplitResult {
  // Complete statements in order, trimmed of surrounding whitespace, without their ';'.
  // Statements that hold only whitespace and comments are dropped.
  std::vector<std::string> statements;
  // Everything after the last terminating ';', untouched (not trimmed): an unfinished statement,
  // or text that IsBlank() says holds nothing.
  std::string remainder;
};

// Splits `script` on every ';' that is outside quotes and comments.
SplitResult SplitStatements(std::string_view script);

// Returns true if `text` holds only whitespace and comments (an unterminated block comment counts
// as a comment).
bool IsBlank(std::string_view text);

// Returns the first word of `statement` in upper case, skipping leading whitespace, comments and
// '(' (so "(SELECT 1)" gives "SELECT"); returns "" if there is none. A word is a run of letters,
// digits and '_'.
std::string FirstKeyword(std::string_view statement);

}  // namespace granite::client

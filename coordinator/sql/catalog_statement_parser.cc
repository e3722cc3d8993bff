#include "coordinator/sql/catalog_statement_parser.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/status_macros.h"
#include "coordinator/sql/lexer.h"

namespace granite::coordinator::sql {
namespace {

// Parses the statements of this file; the helpers mirror parser.cc's.
class CatalogStatementParser {
 public:
  explicit CatalogStatementParser(TokenStream* tokens) : tokens_(*tokens) {}

  absl::StatusOr<Statement> Parse() {
    if (tokens_.TakeKeyword("USE")) {
      UseStatement use;
      ASSIGN_OR_RETURN(use.database, ParseName("database name"));
      RETURN_IF_ERROR(ExpectEnd("Expected one of: ';', end of query"));
      return Statement(std::move(use));
    }
    if (tokens_.Peek().Is("CREATE") || tokens_.Peek().Is("DROP")) return ParseDatabase();
    if (tokens_.TakeKeyword("SHOW")) return ParseShow();
    if (tokens_.TakeKeyword("EXISTS")) {
      ShowStatement exists;
      exists.kind = ShowStatement::Kind::kExists;
      if (!tokens_.TakeKeyword("TABLE")) tokens_.TakeKeyword("TEMPORARY");
      ASSIGN_OR_RETURN(exists.table, ParseTableName());
      RETURN_IF_ERROR(ParseFormatAndEnd(&exists.format));
      return Statement(std::move(exists));
    }
    if (tokens_.TakeKeyword("TRUNCATE")) {
      TruncateStatement truncate;
      tokens_.TakeKeyword("TABLE");
      if (tokens_.TakeKeyword("IF")) {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
        truncate.if_exists = true;
      }
      ASSIGN_OR_RETURN(truncate.table, ParseTableName());
      tokens_.TakeKeyword("SYNC");
      RETURN_IF_ERROR(ExpectEnd("Expected one of: SYNC, ';', end of query"));
      return Statement(std::move(truncate));
    }
    tokens_.Take();  // RENAME
    RETURN_IF_ERROR(tokens_.ExpectKeyword("TABLE"));
    RenameStatement rename;
    do {
      ASSIGN_OR_RETURN(std::string from, ParseTableName());
      RETURN_IF_ERROR(tokens_.ExpectKeyword("TO"));
      ASSIGN_OR_RETURN(std::string to, ParseTableName());
      rename.renames.emplace_back(std::move(from), std::move(to));
    } while (tokens_.TakeSymbol(","));
    RETURN_IF_ERROR(ExpectEnd("Expected one of: ',', ';', end of query"));
    return Statement(std::move(rename));
  }

 private:
  absl::StatusOr<Statement> ParseDatabase() {
    DatabaseStatement database;
    database.drop = tokens_.Take().Is("DROP");
    RETURN_IF_ERROR(tokens_.ExpectKeyword("DATABASE"));
    if (tokens_.TakeKeyword("IF")) {
      if (!database.drop) RETURN_IF_ERROR(tokens_.ExpectKeyword("NOT"));
      RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
      (database.drop ? database.if_exists : database.if_not_exists) = true;
    }
    ASSIGN_OR_RETURN(database.name, ParseName("database name"));
    if (database.drop) {
      tokens_.TakeKeyword("SYNC");
      RETURN_IF_ERROR(ExpectEnd("Expected one of: SYNC, ';', end of query"));
      return Statement(std::move(database));
    }
    if (tokens_.TakeKeyword("ENGINE")) {
      // ENGINE = Atomic / Ordinary / Memory: accepted; granite's databases are all alike.
      tokens_.TakeSymbol("=");
      RETURN_IF_ERROR(ParseName("engine name").status());
      if (tokens_.TakeSymbol("(")) RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
    }
    if (tokens_.Peek().Is("COMMENT") && tokens_.Peek(1).kind == TokenKind::kString) {
      tokens_.Take();
      tokens_.Take();
    }
    RETURN_IF_ERROR(ExpectEnd("Expected one of: ENGINE, COMMENT, ';', end of query"));
    return Statement(std::move(database));
  }

  absl::StatusOr<Statement> ParseShow() {
    if (tokens_.TakeKeyword("TABLES")) {
      ShowTablesStatement show;
      if (tokens_.TakeKeyword("FROM") || tokens_.TakeKeyword("IN")) {
        ASSIGN_OR_RETURN(show.database, ParseName("database name"));
      }
      RETURN_IF_ERROR(ParseLike(&show.has_like, &show.not_like, &show.ilike, &show.like));
      RETURN_IF_ERROR(ParseFormatAndEnd(&show.format));
      return Statement(std::move(show));
    }
    ShowStatement show;
    if (tokens_.TakeKeyword("DATABASES")) {
      show.kind = ShowStatement::Kind::kDatabases;
      bool ilike = false;
      RETURN_IF_ERROR(ParseLike(&show.has_like, &show.not_like, &ilike, &show.like));
      if (ilike) return tokens_.Error("Expected LIKE");  // ClickHouse has no SHOW DATABASES ILIKE
    } else if (tokens_.TakeKeyword("CREATE")) {
      show.kind = ShowStatement::Kind::kCreateTable;
      tokens_.TakeKeyword("TABLE");
      ASSIGN_OR_RETURN(show.table, ParseTableName());
    } else if (tokens_.Peek().Is("PROCESSLIST") ||
               (tokens_.Peek().Is("FULL") && tokens_.Peek(1).Is("PROCESSLIST"))) {
      show.kind = ShowStatement::Kind::kProcesslist;
      tokens_.TakeKeyword("FULL");
      tokens_.Take();
    } else {
      return tokens_.Error("Expected one of: TABLES, DATABASES, CREATE, PROCESSLIST");
    }
    RETURN_IF_ERROR(ParseFormatAndEnd(&show.format));
    return Statement(std::move(show));
  }

  // Parses an optional [NOT] LIKE 'p' / [NOT] ILIKE 'p'.
  absl::Status ParseLike(bool* has_like, bool* not_like, bool* ilike, std::string* pattern) {
    size_t ahead = tokens_.Peek().Is("NOT") ? 1 : 0;
    if (!tokens_.Peek(ahead).Is("LIKE") && !tokens_.Peek(ahead).Is("ILIKE")) {
      return absl::OkStatus();
    }
    *not_like = tokens_.TakeKeyword("NOT");
    *ilike = tokens_.Take().Is("ILIKE");
    if (tokens_.Peek().kind != TokenKind::kString) return tokens_.Error("Expected string literal");
    *pattern = Unquote(tokens_.Take().text);
    *has_like = true;
    return absl::OkStatus();
  }

  absl::Status ParseFormatAndEnd(std::string* format) {
    if (tokens_.TakeKeyword("FORMAT")) {
      ASSIGN_OR_RETURN(*format, ParseName("format name"));
    }
    return ExpectEnd("Expected one of: FORMAT, ';', end of query");
  }

  absl::StatusOr<std::string> ParseName(std::string_view what) {
    const Token token = tokens_.Peek();
    if (token.kind == TokenKind::kBareWord) return std::string(tokens_.Take().text);
    if (token.kind == TokenKind::kQuotedIdentifier) return Unquote(tokens_.Take().text);
    return tokens_.Error(absl::StrCat("Expected ", core::ToAbsl(what)));
  }

  absl::StatusOr<std::string> ParseTableName() {
    ASSIGN_OR_RETURN(std::string name, ParseName("table name"));
    if (!tokens_.TakeSymbol(".")) return name;
    ASSIGN_OR_RETURN(std::string table, ParseName("table name"));
    return absl::StrCat(name, ".", table);
  }

  absl::Status ExpectEnd(std::string_view expected) {
    const bool semicolon = tokens_.TakeSymbol(";");
    if (tokens_.Peek().kind == TokenKind::kEnd) return absl::OkStatus();
    if (semicolon) return tokens_.Error("Expected end of query (multi-statements are not allowed)");
    return tokens_.Error(expected);
  }

  TokenStream& tokens_;
};

}  // namespace

bool IsCatalogStatement(TokenStream& tokens) {
  const Token first = tokens.Peek();
  if (first.Is("USE") || first.Is("SHOW") || first.Is("EXISTS") || first.Is("TRUNCATE") ||
      first.Is("RENAME")) {
    return true;
  }
  return (first.Is("CREATE") || first.Is("DROP")) && tokens.Peek(1).Is("DATABASE");
}

absl::StatusOr<Statement> ParseCatalogStatement(TokenStream* tokens) {
  return CatalogStatementParser(tokens).Parse();
}

}  // namespace granite::coordinator::sql

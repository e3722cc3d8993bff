#include "coordinator/sql/access_statement_parser.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "coordinator/sql/expression_parser.h"
#include "coordinator/sql/lexer.h"

namespace granite::coordinator::sql {
namespace {

constexpr const char* kQuotaResources[] = {"queries", "query_selects", "query_inserts", "errors",
                                           "result_rows", "result_bytes", "read_rows",
                                           "read_bytes", "execution_time"};

// Seconds per interval unit, singular and plural as ClickHouse accepts them.
uint64_t UnitSeconds(std::string_view word) {
  std::string unit = absl::AsciiStrToUpper(core::ToAbsl(word));
  if (unit.size() > 1 && unit.back() == 'S') unit.pop_back();
  if (unit == "SECOND") return 1;
  if (unit == "MINUTE") return 60;
  if (unit == "HOUR") return 3600;
  if (unit == "DAY") return 86400;
  if (unit == "WEEK") return 7 * 86400;
  if (unit == "MONTH") return 30 * 86400;
  if (unit == "QUARTER") return 91 * 86400;
  if (unit == "YEAR") return 365 * 86400;
  return 0;
}

// Parses the statements of this file; the helpers mirror catalog_statement_parser.cc's.
class AccessStatementParser {
 public:
  explicit AccessStatementParser(TokenStream* tokens) : tokens_(*tokens) {}

  absl::StatusOr<Statement> Parse() {
    AccessStatement access;
    if (tokens_.TakeKeyword("SET")) return ParseSetRole();
    if (tokens_.TakeKeyword("GRANT")) {
      if (NamesRoles("TO")) return ParseRoleGrant(AccessStatement::Kind::kGrantRole, "TO");
      access.kind = AccessStatement::Kind::kGrant;
      RETURN_IF_ERROR(ParsePrivilegesAndObject(&access));
      RETURN_IF_ERROR(tokens_.ExpectKeyword("TO"));
      RETURN_IF_ERROR(ParseUsers(&access.users));
      if (tokens_.Peek().Is("WITH")) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "GRANT ... WITH GRANT OPTION is not supported: users with "
                           "access_management = 1 in the users file grant and revoke");
      }
    } else if (tokens_.TakeKeyword("REVOKE")) {
      access.kind = AccessStatement::Kind::kRevoke;
      if (tokens_.Peek().Is("GRANT") && tokens_.Peek(1).Is("OPTION")) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "REVOKE GRANT OPTION FOR is not supported (granite has no grant option)");
      }
      if (NamesRoles("FROM")) return ParseRoleGrant(AccessStatement::Kind::kRevokeRole, "FROM");
      RETURN_IF_ERROR(ParsePrivilegesAndObject(&access));
      RETURN_IF_ERROR(tokens_.ExpectKeyword("FROM"));
      RETURN_IF_ERROR(ParseUsers(&access.users));
    } else if (tokens_.TakeKeyword("SHOW")) {
      if (!tokens_.Peek().Is("GRANTS")) return ParseShowPolicies();
      tokens_.Take();  // GRANTS
      access.kind = AccessStatement::Kind::kShowGrants;
      if (tokens_.TakeKeyword("FOR")) RETURN_IF_ERROR(ParseUsers(&access.users));
      if (tokens_.TakeKeyword("FORMAT")) {
        ASSIGN_OR_RETURN(access.format, ParseName("format name"));
      }
      return End(std::move(access), "Expected one of: FOR, FORMAT, ';', end of query");
    } else if (tokens_.TakeKeyword("DROP")) {
      if (TakePolicyKeyword()) return ParseDropPolicy();
      const bool role = tokens_.Take().Is("ROLE");  // QUOTA or ROLE
      access.kind = role ? AccessStatement::Kind::kDropRole : AccessStatement::Kind::kDropQuota;
      if (tokens_.TakeKeyword("IF")) {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
        access.if_exists = true;
      }
      do {
        ASSIGN_OR_RETURN(std::string name, ParseName(role ? "role name" : "quota name"));
        access.names.push_back(std::move(name));
      } while (tokens_.TakeSymbol(","));
      return End(std::move(access), "Expected one of: ',', ';', end of query");
    } else {
      tokens_.Take();  // CREATE
      access.kind = AccessStatement::Kind::kCreateQuota;
      if (tokens_.TakeKeyword("OR")) {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("REPLACE"));
        access.or_replace = true;
      }
      if (tokens_.TakeKeyword("ROLE")) return ParseCreateRole(std::move(access));
      if (TakePolicyKeyword()) return ParseCreatePolicy(std::move(access));
      RETURN_IF_ERROR(tokens_.ExpectKeyword("QUOTA"));
      RETURN_IF_ERROR(TakeIfNotExists(&access));
      ASSIGN_OR_RETURN(std::string name, ParseName("quota name"));
      access.names.push_back(std::move(name));
      RETURN_IF_ERROR(ParseQuotaBody(&access));
    }
    return End(std::move(access), "Expected one of: ';', end of query");
  }

 private:
  // Whether the GRANT / REVOKE being parsed names roles: its list reaches `to` (TO or FROM)
  // without an ON.
  bool NamesRoles(std::string_view to) {
    for (size_t i = 0;; ++i) {
      const Token token = tokens_.Peek(i);
      if (token.kind == TokenKind::kEnd || token.Is("ON")) return false;
      if (token.Is(to)) return i > 0;
    }
  }

  // role[, ...] TO|FROM grantee[, ...]
  absl::StatusOr<Statement> ParseRoleGrant(AccessStatement::Kind kind, std::string_view to) {
    AccessStatement access;
    access.kind = kind;
    RETURN_IF_ERROR(ParseUsers(&access.names));
    RETURN_IF_ERROR(tokens_.ExpectKeyword(to));
    RETURN_IF_ERROR(ParseUsers(&access.users));
    if (tokens_.Peek().Is("WITH")) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "GRANT role ... WITH ADMIN OPTION is not supported: users with "
                         "access_management = 1 in the users file grant and revoke roles");
    }
    return End(std::move(access), "Expected one of: ',', ';', end of query");
  }

  // After CREATE [OR REPLACE] ROLE: [IF NOT EXISTS] name[, ...]
  absl::StatusOr<Statement> ParseCreateRole(AccessStatement access) {
    access.kind = AccessStatement::Kind::kCreateRole;
    RETURN_IF_ERROR(TakeIfNotExists(&access));
    do {
      ASSIGN_OR_RETURN(std::string name, ParseName("role name"));
      access.names.push_back(std::move(name));
    } while (tokens_.TakeSymbol(","));
    if (tokens_.Peek().Is("SETTINGS")) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "CREATE ROLE ... SETTINGS is not supported: settings profiles live in "
                         "the users file");
    }
    return End(std::move(access), "Expected one of: ',', ';', end of query");
  }

  // After SET: ROLE {DEFAULT | set} or DEFAULT ROLE set TO {user | CURRENT_USER}[, ...], where
  // set is NONE, ALL [EXCEPT r[, ...]] or r[, ...].
  absl::StatusOr<Statement> ParseSetRole() {
    AccessStatement access;
    access.kind = tokens_.TakeKeyword("DEFAULT") ? AccessStatement::Kind::kSetDefaultRole
                                                 : AccessStatement::Kind::kSetRole;
    RETURN_IF_ERROR(tokens_.ExpectKeyword("ROLE"));
    if (access.kind == AccessStatement::Kind::kSetRole && tokens_.TakeKeyword("DEFAULT")) {
      access.role_default = true;
    } else if (tokens_.TakeKeyword("ALL")) {
      access.to_all = true;
      if (tokens_.TakeKeyword("EXCEPT")) RETURN_IF_ERROR(ParseUsers(&access.except));
    } else if (!tokens_.TakeKeyword("NONE")) {
      RETURN_IF_ERROR(ParseUsers(&access.names));
    }
    if (access.kind == AccessStatement::Kind::kSetDefaultRole) {
      RETURN_IF_ERROR(tokens_.ExpectKeyword("TO"));
      RETURN_IF_ERROR(ParseUsers(&access.users));
    }
    return End(std::move(access), "Expected one of: ',', ';', end of query");
  }

  // Takes an optional `IF NOT EXISTS`.
  absl::Status TakeIfNotExists(AccessStatement* access) {
    if (!tokens_.TakeKeyword("IF")) return absl::OkStatus();
    RETURN_IF_ERROR(tokens_.ExpectKeyword("NOT"));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
    access->if_not_exists = true;
    return absl::OkStatus();
  }

  // Takes `ROW POLICY` or `POLICY`.
  bool TakePolicyKeyword() {
    if (tokens_.Peek().Is("ROW") && tokens_.Peek(1).Is("POLICY")) {
      tokens_.Take();
      tokens_.Take();
      return true;
    }
    return tokens_.TakeKeyword("POLICY");
  }

  // [db.]table
  absl::Status ParseTable(AccessStatement* access) {
    ASSIGN_OR_RETURN(std::string first, ParseName("table name"));
    if (!tokens_.TakeSymbol(".")) {
      access->table = std::move(first);
      return absl::OkStatus();
    }
    access->database = std::move(first);
    ASSIGN_OR_RETURN(access->table, ParseName("table name"));
    return absl::OkStatus();
  }

  // name ON [db.]table
  absl::Status ParsePolicyObject(AccessStatement* access) {
    ASSIGN_OR_RETURN(std::string name, ParseName("row policy name"));
    access->names.push_back(std::move(name));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("ON"));
    RETURN_IF_ERROR(ParseTable(access));
    if (tokens_.Peek().IsSymbol(",")) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "A row policy statement names one policy on one table here");
    }
    return absl::OkStatus();
  }

  // After CREATE [OR REPLACE] [ROW] POLICY: [IF NOT EXISTS] name ON [db.]table
  // [AS PERMISSIVE|RESTRICTIVE] [FOR SELECT] USING condition [TO ...]
  absl::StatusOr<Statement> ParseCreatePolicy(AccessStatement access) {
    access.kind = AccessStatement::Kind::kCreatePolicy;
    RETURN_IF_ERROR(TakeIfNotExists(&access));
    RETURN_IF_ERROR(ParsePolicyObject(&access));
    if (tokens_.TakeKeyword("AS")) {
      if (tokens_.TakeKeyword("RESTRICTIVE")) {
        access.restrictive = true;
      } else if (!tokens_.TakeKeyword("PERMISSIVE")) {
        return tokens_.Error("Expected one of: PERMISSIVE, RESTRICTIVE");
      }
    }
    if (tokens_.TakeKeyword("FOR")) RETURN_IF_ERROR(tokens_.ExpectKeyword("SELECT"));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("USING"));
    ASSIGN_OR_RETURN(access.condition, ParseConditionText());
    if (tokens_.TakeKeyword("TO")) {
      if (tokens_.TakeKeyword("ALL")) {
        access.to_all = true;
        if (tokens_.TakeKeyword("EXCEPT")) RETURN_IF_ERROR(ParseUsers(&access.except));
      } else {
        RETURN_IF_ERROR(ParseUsers(&access.users));
      }
    }
    return End(std::move(access), "Expected one of: TO, ';', end of query");
  }

  // A row policy's condition: parsed as an expression (so errors point into it), returned as
  // its text with every run of whitespace and comments between tokens made one space (the
  // stored form is one line per statement).
  absl::StatusOr<std::string> ParseConditionText() {
    const size_t begin = tokens_.Peek().position;
    ExpressionParser expressions(&tokens_);
    expressions.set_subquery_parser([]() -> absl::StatusOr<SelectPtr> {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "Subqueries in a row policy's condition are not supported");
    });
    RETURN_IF_ERROR(expressions.Parse().status());
    const Token next = tokens_.Peek();
    const std::string_view query = tokens_.query();
    const size_t end = next.kind == TokenKind::kEnd ? query.size() : next.position;
    // Re-lex the condition's bytes to fold the space between its tokens.
    const std::string_view source = query.substr(begin, end - begin);
    Lexer lexer(source);
    std::string text;
    size_t previous_end = 0;
    for (Token token = lexer.Next(); token.kind != TokenKind::kEnd; token = lexer.Next()) {
      if (token.kind == TokenKind::kError) return tokens_.Error(lexer.error());
      if (token.text.find_first_of("\r\n") != std::string_view::npos) {
        return core::Error(core::ErrorCode::kSyntaxError,
                           "A literal in a row policy's condition holds a line break: write it "
                           "as \\n");
      }
      if (!text.empty() && token.position > previous_end) text += ' ';
      text.append(token.text);
      previous_end = token.end();
    }
    return text;
  }

  // After DROP [ROW] POLICY: [IF EXISTS] name ON [db.]table
  absl::StatusOr<Statement> ParseDropPolicy() {
    AccessStatement access;
    access.kind = AccessStatement::Kind::kDropPolicy;
    if (tokens_.TakeKeyword("IF")) {
      RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
      access.if_exists = true;
    }
    RETURN_IF_ERROR(ParsePolicyObject(&access));
    return End(std::move(access), "Expected one of: ';', end of query");
  }

  // After SHOW: [ROW] POLICIES [ON [db.]table] or CREATE [ROW] POLICY name ON [db.]table.
  absl::StatusOr<Statement> ParseShowPolicies() {
    AccessStatement access;
    if (tokens_.TakeKeyword("CREATE")) {
      TakePolicyKeyword();
      access.kind = AccessStatement::Kind::kShowCreatePolicy;
      RETURN_IF_ERROR(ParsePolicyObject(&access));
    } else {
      tokens_.TakeKeyword("ROW");
      tokens_.Take();  // POLICIES
      access.kind = AccessStatement::Kind::kShowPolicies;
      if (tokens_.TakeKeyword("ON")) RETURN_IF_ERROR(ParseTable(&access));
    }
    if (tokens_.TakeKeyword("FORMAT")) {
      ASSIGN_OR_RETURN(access.format, ParseName("format name"));
    }
    return End(std::move(access), "Expected one of: ON, FORMAT, ';', end of query");
  }

  // priv[, ...] ON object
  absl::Status ParsePrivilegesAndObject(AccessStatement* access) {
    do {
      std::string privilege;
      while (tokens_.Peek().kind == TokenKind::kBareWord && !tokens_.Peek().Is("ON")) {
        if (!privilege.empty()) privilege += ' ';
        privilege += absl::AsciiStrToUpper(core::ToAbsl(tokens_.Take().text));
      }
      if (privilege.empty()) return tokens_.Error("Expected access type");
      if (tokens_.Peek().IsSymbol("(")) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "Column lists in GRANT / REVOKE are not supported: grant on the table");
      }
      access->privileges.push_back(std::move(privilege));
    } while (tokens_.TakeSymbol(","));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("ON"));
    // *.*, *, db.*, db.t, t
    if (tokens_.TakeSymbol("*")) {
      if (tokens_.TakeSymbol(".")) {
        RETURN_IF_ERROR(tokens_.ExpectSymbol("*"));
        access->database = "*";
      }
      access->table = "*";
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(std::string first, ParseName("database or table name"));
    if (!tokens_.TakeSymbol(".")) {
      access->table = std::move(first);
      return absl::OkStatus();
    }
    access->database = std::move(first);
    if (tokens_.TakeSymbol("*")) {
      access->table = "*";
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(access->table, ParseName("table name or *"));
    return absl::OkStatus();
  }

  absl::Status ParseUsers(std::vector<std::string>* users) {
    do {
      ASSIGN_OR_RETURN(std::string name, ParseName("user name"));
      users->push_back(std::move(name));
    } while (tokens_.TakeSymbol(","));
    return absl::OkStatus();
  }

  // [KEYED BY user_name] FOR [RANDOMIZED] INTERVAL n unit limits [, FOR ...] [TO users]
  absl::Status ParseQuotaBody(AccessStatement* access) {
    if (tokens_.TakeKeyword("KEYED")) {
      RETURN_IF_ERROR(tokens_.ExpectKeyword("BY"));
      if (!tokens_.Peek().Is("USER_NAME")) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "Quotas are kept per user: only KEYED BY user_name is supported");
      }
      tokens_.Take();
    } else if (tokens_.Peek().Is("NOT") && tokens_.Peek(1).Is("KEYED")) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "Quotas are kept per user: NOT KEYED is not supported");
    }
    while (tokens_.TakeKeyword("FOR")) {
      if (tokens_.TakeKeyword("RANDOMIZED")) {
        return core::Error(core::ErrorCode::kNotImplemented,
                           "RANDOMIZED quota intervals are not supported");
      }
      RETURN_IF_ERROR(tokens_.ExpectKeyword("INTERVAL"));
      AccessStatement::Interval interval;
      ASSIGN_OR_RETURN(uint64_t count, ParseNumber("interval length"));
      const Token unit = tokens_.Peek();
      const uint64_t seconds = unit.kind == TokenKind::kBareWord ? UnitSeconds(unit.text) : 0;
      if (seconds == 0) {
        return tokens_.Error("Expected one of: SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR");
      }
      tokens_.Take();
      if (count == 0) return tokens_.ErrorAt(unit, "Expected an interval longer than 0");
      interval.seconds = count * seconds;
      bool more_fors = false;
      if (tokens_.TakeKeyword("NO")) {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("LIMITS"));
        more_fors = tokens_.TakeSymbol(",");
      } else if (tokens_.TakeKeyword("TRACKING")) {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("ONLY"));
        more_fors = tokens_.TakeSymbol(",");
      } else {
        RETURN_IF_ERROR(tokens_.ExpectKeyword("MAX"));
        do {
          if (tokens_.Peek().Is("FOR")) {
            more_fors = true;
            break;
          }
          ASSIGN_OR_RETURN(std::string resource, ParseName("quota resource"));
          resource = absl::AsciiStrToLower(resource);
          bool known = false;
          for (const char* name : kQuotaResources) known = known || resource == name;
          if (!known) {
            return core::Error(
                core::ErrorCode::kSyntaxError,
                absl::StrCat("Unknown quota resource '", resource,
                             "': expected one of queries, query_selects, query_inserts, errors, "
                             "result_rows, result_bytes, read_rows, read_bytes, execution_time"));
          }
          RETURN_IF_ERROR(tokens_.ExpectSymbol("="));
          ASSIGN_OR_RETURN(interval.max[resource], ParseNumber("a limit"));
        } while (tokens_.TakeSymbol(","));
      }
      access->intervals.push_back(std::move(interval));
      if (!more_fors) break;
      if (!tokens_.Peek().Is("FOR")) return tokens_.Error("Expected FOR");
    }
    if (access->intervals.empty()) return tokens_.Error("Expected FOR INTERVAL");
    if (tokens_.TakeKeyword("TO")) RETURN_IF_ERROR(ParseUsers(&access->users));
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> ParseNumber(std::string_view what) {
    const Token token = tokens_.Peek();
    uint64_t value = 0;
    if (token.kind != TokenKind::kNumber || !absl::SimpleAtoi(core::ToAbsl(token.text), &value)) {
      return tokens_.Error(absl::StrCat("Expected ", core::ToAbsl(what),
                                        " (a non-negative integer)"));
    }
    tokens_.Take();
    return value;
  }

  absl::StatusOr<std::string> ParseName(std::string_view what) {
    const Token token = tokens_.Peek();
    if (token.kind == TokenKind::kBareWord) return std::string(tokens_.Take().text);
    if (token.kind == TokenKind::kQuotedIdentifier || token.kind == TokenKind::kString) {
      return Unquote(tokens_.Take().text);
    }
    return tokens_.Error(absl::StrCat("Expected ", core::ToAbsl(what)));
  }

  absl::StatusOr<Statement> End(AccessStatement access, std::string_view expected) {
    const bool semicolon = tokens_.TakeSymbol(";");
    if (tokens_.Peek().kind != TokenKind::kEnd) {
      if (semicolon) return tokens_.Error("Expected end of query (multi-statements are not allowed)");
      return tokens_.Error(expected);
    }
    return Statement(std::move(access));
  }

  TokenStream& tokens_;
};

}  // namespace

namespace {

// Whether the tokens from `k` on say `ROW POLICY` or `POLICY` (`plural`: POLICIES).
bool NamesPolicy(TokenStream& tokens, size_t k, bool plural = false) {
  const std::string_view word = plural ? "POLICIES" : "POLICY";
  return tokens.Peek(k).Is(word) || (tokens.Peek(k).Is("ROW") && tokens.Peek(k + 1).Is(word));
}

}  // namespace

bool IsAccessStatement(TokenStream& tokens) {
  const Token first = tokens.Peek();
  if (first.Is("GRANT") || first.Is("REVOKE")) return true;
  if (first.Is("SET")) {
    return tokens.Peek(1).Is("ROLE") || (tokens.Peek(1).Is("DEFAULT") && tokens.Peek(2).Is("ROLE"));
  }
  if (first.Is("SHOW")) {
    return tokens.Peek(1).Is("GRANTS") || NamesPolicy(tokens, 1, /*plural=*/true) ||
           (tokens.Peek(1).Is("CREATE") && NamesPolicy(tokens, 2));
  }
  if (first.Is("DROP")) {
    return tokens.Peek(1).Is("QUOTA") || tokens.Peek(1).Is("ROLE") || NamesPolicy(tokens, 1);
  }
  if (!first.Is("CREATE")) return false;
  const size_t kind = tokens.Peek(1).Is("OR") && tokens.Peek(2).Is("REPLACE") ? 3 : 1;
  return tokens.Peek(kind).Is("QUOTA") || tokens.Peek(kind).Is("ROLE") ||
         NamesPolicy(tokens, kind);
}

absl::StatusOr<Statement> ParseAccessStatement(TokenStream* tokens) {
  return AccessStatementParser(tokens).Parse();
}

}  // namespace granite::coordinator::sql

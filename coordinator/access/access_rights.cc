#include "coordinator/access/access_rights.h"

#include <utility>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "coordinator/sql/parser.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

struct PrivilegeName {
  const char* name;
  uint32_t bits;
};

// The display order of PrivilegeNames first, then accepted aliases.
constexpr PrivilegeName kPrivilegeNames[] = {
    {"SELECT", kSelect},
    {"INSERT", kInsert},
    {"ALTER", kAlter},
    {"CREATE", kCreate},
    {"DROP", kDrop},
    {"TRUNCATE", kTruncate},
    {"SHOW PROCESSLIST", kShowProcesslist},
    {"KILL QUERY", kKillQuery},
    {"ALL", kAllPrivileges},
    {"ALL PRIVILEGES", kAllPrivileges},
    {"CREATE TABLE", kCreate},
    {"CREATE VIEW", kCreate},
    {"CREATE DATABASE", kCreate},
    {"DROP TABLE", kDrop},
    {"DROP VIEW", kDrop},
    {"DROP DATABASE", kDrop},
    {"ALTER TABLE", kAlter},
    {"OPTIMIZE", kAlter},
};
constexpr size_t kDisplayed = 8;

bool PlainName(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

std::string Quoted(std::string_view name) {
  if (name == "*" || PlainName(name)) return std::string(name);
  return absl::StrCat("`", core::ToAbsl(name), "`");
}

// Whether scope (d, t) contains every table of scope (database, table).
bool Contains(std::string_view d, std::string_view t, std::string_view database,
              std::string_view table) {
  if (d != "*" && d != database) return false;
  return t == "*" || t == table;
}

// Whether the two scopes share a table.
bool Intersect(std::string_view d, std::string_view t, std::string_view database,
               std::string_view table) {
  if (d != "*" && database != "*" && d != database) return false;
  return t == "*" || table == "*" || t == table;
}

}  // namespace

absl::StatusOr<uint32_t> ParsePrivilege(std::string_view name) {
  for (const PrivilegeName& known : kPrivilegeNames) {
    if (name == known.name) return known.bits;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < kDisplayed + 1; ++i) names.push_back(kPrivilegeNames[i].name);
  return core::Error(core::ErrorCode::kSyntaxError,
                     absl::StrCat("Unknown access type '", core::ToAbsl(name),
                                  "'; granite knows: ", absl::StrJoin(names, ", ")));
}

std::string PrivilegeNames(uint32_t privileges) {
  if ((privileges & kAllPrivileges) == kAllPrivileges) return "ALL";
  std::vector<std::string> names;
  for (size_t i = 0; i < kDisplayed; ++i) {
    if (privileges & kPrivilegeNames[i].bits) names.push_back(kPrivilegeNames[i].name);
  }
  return absl::StrJoin(names, ", ");
}

std::string AccessRule::ObjectText() const {
  return absl::StrCat(Quoted(database), ".", Quoted(table));
}

std::string AccessRule::Text(std::string_view user) const {
  return absl::StrCat(grant ? "GRANT " : "REVOKE ", PrivilegeNames(privileges), " ON ",
                      ObjectText(), grant ? " TO " : " FROM ", Quoted(user));
}

void AccessRights::Apply(const AccessRule& rule) {
  if (rule.privileges == 0) return;
  std::vector<AccessRule> kept;
  kept.reserve(rules_.size() + 1);
  for (AccessRule& earlier : rules_) {
    if (Contains(rule.database, rule.table, earlier.database, earlier.table)) {
      earlier.privileges &= ~rule.privileges;
    }
    if (earlier.privileges != 0) kept.push_back(std::move(earlier));
  }
  // A revoke is kept even with nothing granted before it here: the rules it follows may be
  // elsewhere (the users file's, before the stored ones).
  kept.push_back(rule);
  rules_ = std::move(kept);
}

void AccessRights::ApplyAll(const AccessRights& other) {
  for (const AccessRule& rule : other.rules_) Apply(rule);
}

bool AccessRights::Allows(uint32_t privileges, std::string_view database,
                          std::string_view table) const {
  for (uint32_t bit = 1; bit <= privileges && bit != 0; bit <<= 1) {
    if (!(privileges & bit) || OwnAllows(bit, database, table)) continue;
    bool by_role = false;
    for (const AccessRights& role : roles_) by_role = by_role || role.Allows(bit, database, table);
    if (!by_role) return false;
  }
  return true;
}

bool AccessRights::AllowsAny(std::string_view database, std::string_view table) const {
  if (OwnAllowsAny(database, table)) return true;
  for (const AccessRights& role : roles_) {
    if (role.AllowsAny(database, table)) return true;
  }
  return false;
}

bool AccessRights::OwnAllows(uint32_t privileges, std::string_view database,
                             std::string_view table) const {
  for (uint32_t bit = 1; bit <= privileges && bit != 0; bit <<= 1) {
    if (!(privileges & bit)) continue;
    bool allowed = false;
    for (const AccessRule& rule : rules_) {
      if (!(rule.privileges & bit)) continue;
      if (Contains(rule.database, rule.table, database, table)) {
        allowed = rule.grant;
      } else if (!rule.grant && Intersect(rule.database, rule.table, database, table)) {
        allowed = false;  // a partial revoke
      }
    }
    if (!allowed) return false;
  }
  return true;
}

bool AccessRights::OwnAllowsAny(std::string_view database, std::string_view table) const {
  for (uint32_t bit = 1; bit & kAllPrivileges; bit <<= 1) {
    if (OwnAllows(bit, database, table)) return true;
    // A grant on one table of the database lets the database be seen.
    for (const AccessRule& rule : rules_) {
      if (rule.grant && (rule.privileges & bit) &&
          Intersect(rule.database, rule.table, database, table) &&
          OwnAllows(bit, rule.database, rule.table)) {
        return true;
      }
    }
  }
  return false;
}

absl::StatusOr<std::vector<AccessRule>> ParseGrantList(std::string_view text) {
  std::vector<AccessRule> rules;
  for (absl::string_view part : absl::StrSplit(core::ToAbsl(text), ';', absl::SkipWhitespace())) {
    std::string piece(absl::StripAsciiWhitespace(part));
    const bool revoke = absl::StartsWithIgnoreCase(piece, "REVOKE ");
    std::string sql = revoke ? absl::StrCat(piece, " FROM grants_file_user")
                             : absl::StrCat("GRANT ", piece, " TO grants_file_user");
    absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(sql);
    const auto* access = parsed.ok() ? std::get_if<sql::AccessStatement>(&*parsed) : nullptr;
    if (access == nullptr || access->database.empty()) {
      return core::Error(core::ErrorCode::kBadArguments,
                         absl::StrCat("grants: cannot read '", piece,
                                      "' (expected e.g. 'SELECT, INSERT ON db.*; ALL ON db2.t'",
                                      parsed.ok() ? ", with a database" :
                                      absl::StrCat(": ", parsed.status().message()), ")"));
    }
    AccessRule rule;
    rule.grant = !revoke;
    for (const std::string& name : access->privileges) {
      absl::StatusOr<uint32_t> bits = ParsePrivilege(name);
      if (!bits.ok()) {
        return core::Error(core::ErrorCode::kBadArguments,
                           absl::StrCat("grants: ", bits.status().message()));
      }
      rule.privileges |= *bits;
    }
    rule.database = access->database;
    rule.table = access->table;
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace granite::coordinator::access

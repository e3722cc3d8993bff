#include "coordinator/access/users_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/error.h"

namespace granite::coordinator::access {

namespace {

// A profile as written: values and constraints, validated against the settings list.
struct Profile {
  std::map<std::string, std::string> values;
  std::map<std::string, SettingConstraint> constraints;
};

// A user as written, before its profile is resolved.
struct UserEntry {
  User user;
  int line = 0;
  int passwords = 0;
  std::optional<std::string> readonly;
  std::string quota;
};

absl::Status LineError(int line, const std::string& what) {
  return core::Error(core::ErrorCode::kBadArguments,
                     absl::StrCat("Users file, line ", line, ": ", what));
}

bool IsUInt64Setting(std::string_view name) {
  for (const core::SettingInfo& info : core::Settings::Infos()) {
    if (info.name == name) return info.type == core::SettingType::kUInt64;
  }
  return false;
}

absl::Status ParseProfileLine(int line, const std::string& key, const std::string& value,
                              Profile* profile) {
  size_t dot = key.rfind('.');
  std::string name = dot == std::string::npos ? key : key.substr(0, dot);
  core::Settings probe;
  if (dot == std::string::npos) {
    absl::Status valid = probe.Set(name, value);
    if (!valid.ok()) return LineError(line, std::string(valid.message()));
    profile->values[name] = value;
    return absl::OkStatus();
  }
  std::string what = key.substr(dot + 1);
  bool declared = false;
  for (const core::SettingInfo& info : core::Settings::Infos()) declared |= info.name == name;
  if (!declared) return LineError(line, absl::StrCat("unknown setting \"", name, "\""));
  SettingConstraint& constraint = profile->constraints[name];
  if (what == "readonly" || what == "const") {
    constraint.is_const = value == "1" || absl::AsciiStrToLower(value) == "true";
    return absl::OkStatus();
  }
  if (what != "min" && what != "max") {
    return LineError(line, absl::StrCat("unknown constraint \"", what, "\" of setting \"", name,
                                        "\"; expected min, max or readonly"));
  }
  uint64_t bound = 0;
  if (!IsUInt64Setting(name) || !absl::SimpleAtoi(value, &bound)) {
    return LineError(line, absl::StrCat("constraint ", key, " needs a UInt64 setting and an "
                                        "unsigned integer, not \"", value, "\""));
  }
  (what == "min" ? constraint.min : constraint.max) = bound;
  return absl::OkStatus();
}

// Reads one line of a [quota NAME] section: `duration = seconds` starts an interval, a
// resource line bounds the current one.
absl::Status ParseQuotaLine(int line, const std::string& key, const std::string& value,
                            QuotaSpec* quota) {
  uint64_t number = 0;
  if (!absl::SimpleAtoi(value, &number)) {
    return LineError(line, absl::StrCat(key, " takes an unsigned integer, not \"", value, "\""));
  }
  if (key == "duration") {
    if (number == 0) return LineError(line, "duration must be at least 1 second");
    quota->intervals.push_back(QuotaInterval{number, {}});
    return absl::OkStatus();
  }
  static constexpr const char* kResources[] = {
      "queries", "query_selects", "query_inserts", "errors", "result_rows", "result_bytes",
      "read_rows", "read_bytes", "execution_time"};
  bool known = false;
  for (const char* resource : kResources) known = known || key == resource;
  if (!known) {
    return LineError(line, absl::StrCat("unknown key \"", key, "\" in [quota ", quota->name,
                                        "]; expected duration, queries, query_selects, "
                                        "query_inserts, errors, result_rows, result_bytes, "
                                        "read_rows, read_bytes or execution_time"));
  }
  if (quota->intervals.empty()) {
    return LineError(line, absl::StrCat("[quota ", quota->name, "]: a `duration = seconds` line "
                                        "comes before its limits"));
  }
  if (number != 0) quota->intervals.back().max[key] = number;  // 0: unbounded, as ClickHouse
  return absl::OkStatus();
}

absl::Status ParseUserLine(int line, const std::string& key, const std::string& value,
                           UserEntry* entry) {
  User& user = entry->user;
  if (key == "password_sha256_hex") {
    bool hex = value.size() == 64;
    for (char c : value) hex &= absl::ascii_isxdigit(c);
    if (!hex) return LineError(line, "password_sha256_hex must be 64 hex digits");
    user.password_kind = PasswordKind::kSha256;
    user.password_hash = absl::AsciiStrToLower(value);
    ++entry->passwords;
  } else if (key == "password_bcrypt_hash") {
    if (value.size() != 60 || value[0] != '$' || value[1] != '2') {
      return LineError(line, "password_bcrypt_hash must be a 60-character $2a$/$2b$/$2y$ hash");
    }
    user.password_kind = PasswordKind::kBcrypt;
    user.password_hash = value;
    ++entry->passwords;
  } else if (key == "no_password") {
    if (value != "1" && absl::AsciiStrToLower(value) != "true") {
      return LineError(line, "no_password takes 1 (or leave the line out and give a password)");
    }
    user.password_kind = PasswordKind::kNone;
    ++entry->passwords;
  } else if (key == "networks") {
    user.networks.clear();
    absl::Status parsed = ParseNetworks(value, &user.networks);
    if (!parsed.ok()) return LineError(line, std::string(parsed.message()));
  } else if (key == "profile") {
    user.profile = value;
  } else if (key == "readonly") {
    if (value != "0" && value != "1" && value != "2") {
      return LineError(line, absl::StrCat("readonly must be 0, 1 or 2, not \"", value, "\""));
    }
    entry->readonly = value;
  } else if (key == "access_management") {
    if (value != "0" && value != "1") {
      return LineError(line, absl::StrCat("access_management must be 0 or 1, not \"", value,
                                          "\""));
    }
    user.access_management = value == "1";
  } else if (key == "grants") {
    absl::StatusOr<std::vector<AccessRule>> rules = ParseGrantList(value);
    if (!rules.ok()) return LineError(line, std::string(rules.status().message()));
    user.grants = AccessRights();
    for (const AccessRule& rule : *rules) user.grants.Apply(rule);
  } else if (key == "quota") {
    entry->quota = value;
  } else {
    return LineError(line, absl::StrCat("unknown key \"", key, "\" in [user ", user.name,
                                        "]; expected password_sha256_hex, password_bcrypt_hash, "
                                        "no_password, networks, profile, readonly, "
                                        "access_management, grants or quota"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::map<std::string, User>> ParseUsersFile(std::string_view text) {
  std::map<std::string, Profile> profiles;
  std::map<std::string, UserEntry> entries;
  std::map<std::string, QuotaSpec> quotas;
  Profile* profile = nullptr;
  UserEntry* entry = nullptr;
  QuotaSpec* quota = nullptr;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    std::string line(absl::StripAsciiWhitespace(raw));
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return LineError(line_number, "a section header ends with ']'");
      std::vector<std::string> words = absl::StrSplit(line.substr(1, line.size() - 2), ' ',
                                                      absl::SkipWhitespace());
      if (words.size() != 2 ||
          (words[0] != "user" && words[0] != "profile" && words[0] != "quota")) {
        return LineError(line_number, "expected [user NAME], [profile NAME] or [quota NAME]");
      }
      profile = nullptr;
      entry = nullptr;
      quota = nullptr;
      if (words[0] == "quota") {
        if (quotas.count(words[1])) {
          return LineError(line_number, absl::StrCat("quota ", words[1], " is defined twice"));
        }
        quota = &quotas[words[1]];
        quota->name = words[1];
        quota->from_file = true;
      } else if (words[0] == "profile") {
        if (profiles.count(words[1])) {
          return LineError(line_number, absl::StrCat("profile ", words[1], " is defined twice"));
        }
        profile = &profiles[words[1]];
      } else {
        if (entries.count(words[1])) {
          return LineError(line_number, absl::StrCat("user ", words[1], " is defined twice"));
        }
        entry = &entries[words[1]];
        entry->user.name = words[1];
        entry->line = line_number;
      }
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string::npos) return LineError(line_number, "expected key = value");
    std::string key(absl::StripAsciiWhitespace(line.substr(0, equals)));
    std::string value(absl::StripAsciiWhitespace(line.substr(equals + 1)));
    if (profile != nullptr) {
      absl::Status status = ParseProfileLine(line_number, key, value, profile);
      if (!status.ok()) return status;
    } else if (entry != nullptr) {
      absl::Status status = ParseUserLine(line_number, key, value, entry);
      if (!status.ok()) return status;
    } else if (quota != nullptr) {
      absl::Status status = ParseQuotaLine(line_number, key, value, quota);
      if (!status.ok()) return status;
    } else {
      return LineError(line_number, "a setting before any [user ...] or [profile ...] section");
    }
  }
  std::map<std::string, User> users;
  for (auto& [name, written] : entries) {
    User user = std::move(written.user);
    if (written.passwords != 1) {
      return LineError(written.line,
                       absl::StrCat("user ", name, " needs exactly one of password_sha256_hex, "
                                    "password_bcrypt_hash and no_password = 1"));
    }
    if (user.networks.empty()) (void)ParseNetworks("loopback", &user.networks);
    if (user.profile.empty() && profiles.count("default")) user.profile = "default";
    if (!user.profile.empty()) {
      auto found = profiles.find(user.profile);
      if (found == profiles.end()) {
        return LineError(written.line, absl::StrCat("user ", name, " names profile ",
                                                    user.profile, ", which is not defined"));
      }
      (void)user.settings.Apply(found->second.values);
      user.constraints = found->second.constraints;
    }
    if (written.readonly) (void)user.settings.Set("readonly", *written.readonly);
    if (!written.quota.empty()) {
      auto found = quotas.find(written.quota);
      if (found == quotas.end()) {
        return LineError(written.line, absl::StrCat("user ", name, " names quota ", written.quota,
                                                    ", which is not defined"));
      }
      user.quota = found->second;
    }
    users.emplace(name, std::move(user));
  }
  return users;
}

absl::StatusOr<std::map<std::string, User>> LoadUsersFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return core::Error(core::ErrorCode::kCannotReadFromFile,
                       absl::StrCat("Cannot read the users file ", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::map<std::string, User>> users = ParseUsersFile(text.str());
  if (!users.ok()) {
    return core::Error(core::CodeOf(users.status()),
                       absl::StrCat(path, ": ", std::string(users.status().message())));
  }
  return users;
}

}  // namespace granite::coordinator::access

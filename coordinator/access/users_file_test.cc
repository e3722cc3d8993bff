#include "coordinator/access/users_file.h"

#include <gtest/gtest.h>

#include "coordinator/access/access_control.h"
#include "coordinator/access/statement_access.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

const std::string kFile = R"(
# comment
[profile default]
max_execution_time = 30
max_execution_time.max = 60

[profile reading]
readonly = 1

[profile bounded]
max_result_rows.min = 10
max_result_rows.max = 100
use_pruning.readonly = 1

[user alice]
password_sha256_hex = )" + Sha256Hex("secret") + R"(
networks = 10.0.0.0/8, ::1

[user reader]
no_password = 1
profile = reading

[user bounded]
no_password = 1
profile = bounded
readonly = 2
)";

TEST(UsersFileTest, ParsesUsersProfilesAndConstraints) {
  auto users = ParseUsersFile(kFile);
  ASSERT_TRUE(users.ok()) << users.status();
  ASSERT_EQ(users->size(), 3u);
  const User& alice = users->at("alice");
  EXPECT_EQ(alice.password_kind, PasswordKind::kSha256);
  EXPECT_EQ(alice.profile, "default");  // the profile named default, when none is given
  EXPECT_EQ(alice.settings.max_execution_time, 30u);
  EXPECT_EQ(alice.constraints.at("max_execution_time").max, 60u);
  ASSERT_EQ(alice.networks.size(), 2u);
  EXPECT_EQ(alice.networks[0].ToString(), "10.0.0.0/8");
  EXPECT_EQ(alice.networks[1].ToString(), "::1/128");
  EXPECT_EQ(users->at("reader").settings.readonly, 1u);
  EXPECT_EQ(users->at("reader").networks[0].ToString(), "127.0.0.0/8");  // default: loopback
  EXPECT_EQ(users->at("bounded").settings.readonly, 2u);
  EXPECT_TRUE(users->at("bounded").constraints.at("use_pruning").is_const);
}

TEST(UsersFileTest, ErrorsNameTheLine) {
  auto Error = [](const std::string& text) {
    auto users = ParseUsersFile(text);
    EXPECT_FALSE(users.ok()) << text;
    return users.ok() ? std::string() : std::string(users.status().message());
  };
  EXPECT_NE(Error("[user a]\npasword = x\n").find("line 2"), std::string::npos);
  EXPECT_NE(Error("[user a]\nnetworks = 10.0.0.0/33\nno_password = 1\n").find("10.0.0.0/33"),
            std::string::npos);
  EXPECT_NE(Error("[user a]\n").find("exactly one"), std::string::npos);
  EXPECT_NE(Error("[user a]\nno_password = 1\npassword_sha256_hex = " + Sha256Hex("x") + "\n")
                .find("exactly one"),
            std::string::npos);
  EXPECT_NE(Error("[profile p]\nno_such_setting = 1\n").find("line 2"), std::string::npos);
  EXPECT_NE(Error("[user a]\nno_password = 1\nprofile = missing\n").find("missing"),
            std::string::npos);
  EXPECT_NE(Error("[user a]\npassword_sha256_hex = abc\n").find("64 hex"), std::string::npos);
  EXPECT_NE(Error("x = 1\n").find("before any"), std::string::npos);
}

TEST(UsersFileTest, AuthenticatesWithoutRevealingUsers) {
  auto users = ParseUsersFile(kFile);
  ASSERT_TRUE(users.ok());
  AccessControl access(*std::move(users));
  EXPECT_TRUE(access.Authenticate("alice", "secret", "ipv4:10.1.2.3:5000").ok());
  EXPECT_TRUE(access.Authenticate("alice", "secret", "ipv6:[::1]:5000").ok());
  auto wrong = access.Authenticate("alice", "Secret", "ipv4:10.1.2.3:5000");
  auto unknown = access.Authenticate("mallory", "secret", "ipv4:10.1.2.3:5000");
  auto network = access.Authenticate("alice", "secret", "ipv4:192.168.0.1:5000");
  auto empty = access.Authenticate("alice", "", "ipv4:10.1.2.3:5000");
  for (const auto* failed : {&wrong, &unknown, &network, &empty}) {
    ASSERT_FALSE(failed->ok());
    EXPECT_EQ(core::CodeOf(failed->status()), core::ErrorCode::kAuthenticationFailed);
  }
  EXPECT_EQ(wrong.status().message(), network.status().message());
  // The message names the user asked for, the same way whether it exists or not.
  std::string unknown_text(unknown.status().message());
  std::string wrong_text(wrong.status().message());
  EXPECT_EQ(unknown_text.substr(unknown_text.find(':')), wrong_text.substr(wrong_text.find(':')));
}

TEST(UsersFileTest, DefaultAccessIsPasswordlessLoopbackOnly) {
  AccessControl access;
  EXPECT_TRUE(access.Authenticate("default", "", "ipv4:127.0.0.1:1").ok());
  EXPECT_TRUE(access.Authenticate("", "", "ipv6:[::1]:1").ok());
  EXPECT_TRUE(access.Authenticate("default", "", "ipv6:[::ffff:127.0.0.1]:1").ok());
  EXPECT_FALSE(access.Authenticate("default", "", "ipv4:10.0.0.1:1").ok());
  EXPECT_FALSE(access.Authenticate("default", "x", "ipv4:127.0.0.1:1").ok());
  EXPECT_FALSE(access.Authenticate("admin", "", "ipv4:127.0.0.1:1").ok());
}

TEST(UsersFileTest, BcryptPasswords) {
  // bcrypt of "granite", cost 4.
  const std::string hash = "$2b$04$abcdefghijklmnopqrstuumeKc6LjL7XzbeWktT7x0EX325o7kgTm";
  EXPECT_TRUE(PasswordMatches(PasswordKind::kBcrypt, hash, "granite"));
  EXPECT_FALSE(PasswordMatches(PasswordKind::kBcrypt, hash, "wrong"));
  EXPECT_FALSE(PasswordMatches(PasswordKind::kBcrypt, hash, ""));
  EXPECT_FALSE(PasswordMatches(PasswordKind::kBcrypt, "$2b$04$short", "granite"));
}

TEST(UsersFileTest, BcryptUserAuthenticatesRepeatedly) {
  auto users = ParseUsersFile(
      "[user b]\npassword_bcrypt_hash = "
      "$2b$04$abcdefghijklmnopqrstuumeKc6LjL7XzbeWktT7x0EX325o7kgTm\nnetworks = any\n");
  ASSERT_TRUE(users.ok()) << users.status();
  AccessControl access(*std::move(users));
  for (int i = 0; i < 3; ++i) {  // the first checks bcrypt, the others the remembered hash
    EXPECT_TRUE(access.Authenticate("b", "granite", "ipv4:10.0.0.1:1").ok());
    EXPECT_FALSE(access.Authenticate("b", "granite2", "ipv4:10.0.0.1:1").ok());
    EXPECT_FALSE(access.Authenticate("c", "granite", "ipv4:10.0.0.1:1").ok());
  }
}

TEST(StatementAccessTest, ReadonlyAndConstraints) {
  auto users = ParseUsersFile(kFile);
  ASSERT_TRUE(users.ok());
  const User& reader = users->at("reader");
  const User& bounded = users->at("bounded");
  auto Check = [](const User& user, const std::string& sql) {
    auto statement = sql::ParseStatement(sql);
    EXPECT_TRUE(statement.ok()) << sql;
    return core::CodeOf(CheckStatementAccess(user, user.settings, *statement));
  };
  using core::ErrorCode;
  EXPECT_EQ(Check(reader, "SELECT 1"), ErrorCode::kOk);
  EXPECT_EQ(Check(reader, "SHOW TABLES"), ErrorCode::kOk);
  EXPECT_EQ(Check(reader, "INSERT INTO t VALUES (1)"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(reader, "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x"),
            ErrorCode::kReadonly);
  EXPECT_EQ(Check(reader, "DROP TABLE t"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(reader, "OPTIMIZE TABLE t"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(reader, "SET use_pruning = 0"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(reader, "SELECT 1 SETTINGS use_pruning = 0"), ErrorCode::kReadonly);
  // readonly = 2: settings may change, within the constraints.
  EXPECT_EQ(Check(bounded, "SET max_result_rows = 50"), ErrorCode::kOk);
  EXPECT_EQ(Check(bounded, "INSERT INTO t VALUES (1)"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(bounded, "SELECT 1 SETTINGS max_result_rows = 5"),
            ErrorCode::kSettingConstraintViolation);
  EXPECT_EQ(Check(bounded, "SELECT 1 SETTINGS max_result_rows = 500"),
            ErrorCode::kSettingConstraintViolation);
  EXPECT_EQ(Check(bounded, "SELECT 1 SETTINGS use_pruning = 0"),
            ErrorCode::kSettingConstraintViolation);
  EXPECT_EQ(Check(bounded, "SELECT 1 SETTINGS use_pruning = 1"), ErrorCode::kOk);
  EXPECT_EQ(Check(bounded, "SET readonly = 0"), ErrorCode::kReadonly);
  EXPECT_EQ(Check(bounded, "SET readonly = 1"), ErrorCode::kOk);
}

TEST(UsersFileTest, GrantsAccessManagementAndQuotas) {
  auto users = ParseUsersFile(R"(
[quota hourly]
duration = 3600
queries = 10
errors = 0
duration = 60
result_rows = 1000

[user admin]
no_password = 1
access_management = 1

[user bob]
no_password = 1
grants = SELECT ON db.*; REVOKE SELECT ON db.secret
quota = hourly
)");
  ASSERT_TRUE(users.ok()) << users.status();
  const User& admin = users->at("admin");
  EXPECT_TRUE(admin.access_management);
  EXPECT_TRUE(admin.grants.Allows(kAllPrivileges, "*", "*"));  // no `grants`: ALL ON *.*
  EXPECT_FALSE(admin.quota.has_value());
  const User& bob = users->at("bob");
  EXPECT_FALSE(bob.access_management);
  EXPECT_TRUE(bob.grants.Allows(kSelect, "db", "t"));
  EXPECT_FALSE(bob.grants.Allows(kSelect, "db", "secret"));
  EXPECT_FALSE(bob.grants.Allows(kInsert, "db", "t"));
  ASSERT_TRUE(bob.quota.has_value());
  ASSERT_EQ(bob.quota->intervals.size(), 2u);
  EXPECT_EQ(bob.quota->intervals[0].max, (std::map<std::string, uint64_t>{{"queries", 10}}));
  EXPECT_EQ(bob.quota->intervals[1].seconds, 60u);
  for (const char* bad : {"[user u]\nno_password = 1\nquota = missing\n",
                          "[user u]\nno_password = 1\ngrants = FLY ON db.t\n",
                          "[user u]\nno_password = 1\naccess_management = 2\n",
                          "[quota q]\nqueries = 1\n", "[quota q]\nduration = 60\nwishes = 1\n"}) {
    auto parsed = ParseUsersFile(bad);
    EXPECT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kBadArguments) << bad;
    EXPECT_NE(parsed.status().message().find("line"), std::string::npos) << parsed.status();
  }
}

}  // namespace
}  // namespace granite::coordinator::access

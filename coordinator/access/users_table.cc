#include "coordinator/access/users_table.h"

#include <memory>

#include "absl/strings/str_join.h"

namespace granite::coordinator::access {

namespace {

const char* AuthType(PasswordKind kind) {
  switch (kind) {
    case PasswordKind::kNone: return "no_password";
    case PasswordKind::kSha256: return "sha256_password";
    case PasswordKind::kBcrypt: return "bcrypt_password";
  }
  return "unknown";
}

}  // namespace

LocalTable UsersTable(const AccessControl& access) {
  using core::TypeId;
  LocalTable table;
  table.names = {"name", "auth_type", "host_ip", "profile", "readonly"};
  table.types = {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                 TypeId::kUInt64};
  std::vector<core::MutableColumnPtr> columns;
  for (TypeId type : table.types) columns.push_back(std::make_shared<core::Column>(type));
  for (const auto& user : access.Users()) {
    std::vector<std::string> networks;
    for (const IpNetwork& network : user->networks) networks.push_back(network.ToString());
    columns[0]->AppendString(user->name);
    columns[1]->AppendString(AuthType(user->password_kind));
    columns[2]->AppendString(absl::StrJoin(networks, ", "));
    columns[3]->AppendString(user->profile);
    columns[4]->Append<uint64_t>(user->settings.readonly);
  }
  table.block.rows_without_columns = columns[0]->size();
  for (auto& column : columns) table.block.columns.push_back(std::move(column));
  return table;
}

}  // namespace granite::coordinator::access

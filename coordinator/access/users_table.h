// system.users: the users of the coordinator's AccessControl, one row each, without their
// password hashes: name, auth_type (no_password, sha256_password, bcrypt_password, as ClickHouse
// names them), host_ip (the allowed networks), profile and readonly.
#pragma once

#include "coordinator/access/access_control.h"
#include "coordinator/planner/binder.h"

namespace granite::coordinator::access {

LocalTable UsersTable(const AccessControl& access);

}  // namespace granite::coordinator::access

// AccessControl: the coordinator's users (users_file.h) and the check every client query passes
// before anything else runs: user name, password and client network. Without a users file only
// the user `default`, without a password, from loopback is accepted.
//
// A failure is AUTHENTICATION_FAILED (516) with the same message whether the user does not exist,
// the password is wrong or the network is not allowed, after the same work (an unknown name is
// checked against a stand-in hash of the file's slowest kind); each failure is logged on stderr
// (user name and peer, never the password) and counted (granite_authentication_failures_total).
//
// The process's AccessControl is installed by CoordinatorServer (Current / SetCurrent), which is
// also where system.users reads it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/access/users_file.h"
#include "core/mutex.h"

namespace granite::coordinator::access {

// Thread-safety: Authenticate and the slot calls from any thread; users are immutable.
class AccessControl {
 public:
  // The access of a coordinator without a users file: `default`, no password, loopback only.
  AccessControl();
  // The users of a users file.
  explicit AccessControl(std::map<std::string, User> users);

  // Returns the user `user_name` (empty: "default") if `password` is its password and `peer`
  // (gRPC's ServerContext::peer()) one of its networks; else AUTHENTICATION_FAILED.
  absl::StatusOr<std::shared_ptr<const User>> Authenticate(std::string_view user_name,
                                                           std::string_view password,
                                                           std::string_view peer) const;

  // A running query counted against its user's max_concurrent_queries_for_user.
  class QuerySlot {
   public:
    QuerySlot() = default;
    QuerySlot(QuerySlot&& other) noexcept { *this = std::move(other); }
    QuerySlot& operator=(QuerySlot&& other) noexcept;
    ~QuerySlot();

   private:
    friend class AccessControl;
    AccessControl* owner_ = nullptr;
    std::string user_;
  };
  // Counts one more running query of `user`; TOO_MANY_SIMULTANEOUS_QUERIES naming the user and
  // `limit` if it already runs `limit` (0 = no limit, nothing counted).
  absl::StatusOr<QuerySlot> AcquireQuerySlot(const std::string& user, uint64_t limit)
      EXCLUDES(mu_);

  bool from_file() const { return from_file_; }
  // Every user, by name.
  std::vector<std::shared_ptr<const User>> Users() const;

  // The process's access control (a default one until SetCurrent); never null. Read with one
  // atomic load, no lock: every query asks.
  static AccessControl* Current();
  // Installs `access` for the process; it is kept alive until the process exits (an earlier one
  // may still serve a query in flight).
  static void SetCurrent(std::shared_ptr<AccessControl> access);

 private:
  void Release(const std::string& user) EXCLUDES(mu_);

  // Constant after construction.
  std::map<std::string, std::shared_ptr<const User>> users_;
  bool from_file_ = false;
  User stand_in_;  // checked for unknown names: the slowest password kind of the file

  core::Mutex mu_{"access_control"};
  std::map<std::string, uint64_t> running_ GUARDED_BY(mu_);
  // bcrypt costs tens of milliseconds by design, and every gRPC query authenticates: the SHA-256
  // of the password last accepted for a bcrypt user lets the next query of that user pass with
  // one hash. Only a correct password is ever fast, so timing still tells nothing else.
  mutable core::Mutex verified_mu_{"access_control_bcrypt"};
  mutable std::map<std::string, std::string> bcrypt_verified_ GUARDED_BY(verified_mu_);
};

}  // namespace granite::coordinator::access

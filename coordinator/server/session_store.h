// SessionStore: the state of gRPC sessions (QueryInfo.session_id). A `SET x = y` run within a
// session applies to that session's later queries, as in ClickHouse; a query's own
// QueryInfo.settings and SETTINGS clause apply to that query only. A session ends after
// `session_timeout` seconds (QueryInfo.session_timeout; 0 means ClickHouse's default, 60) without
// a query.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "coordinator/access/role_set.h"
#include "core/mutex.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

// Holds every live session's settings, current database and query parameters.
// Thread-safety: all methods are safe to call concurrently.
class SessionStore {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kDefaultTimeoutSeconds = 60;

  // Returns the settings of session `id` as of now and keeps it alive for `timeout_seconds`
  // more (0: the default). A session that does not exist is created, unless `check` is set:
  // then SESSION_NOT_FOUND (372), as ClickHouse's session_check does.
  absl::StatusOr<core::Settings> Begin(const std::string& id, bool check, uint32_t timeout_seconds,
                                       Clock::time_point now = Clock::now()) EXCLUDES(mu_);

  // Applies the (name, value) pairs of a SET to session `id`, creating it if it expired.
  // REQUIRES: every pair was already validated (Settings::Set succeeded for it).
  void Apply(const std::string& id, const std::map<std::string, std::string>& changes,
             Clock::time_point now = Clock::now()) EXCLUDES(mu_);

  // What a session holds besides settings: its current database (USE; empty: none chosen) and
  // its query parameters (SET param_<name> = value, by name without the prefix).
  struct Context {
    std::string database;
    std::map<std::string, std::string> parameters;
    std::optional<access::RoleSet> roles;  // SET ROLE; nullopt: the user's default roles
  };
  // Returns session `id`'s context (empty if there is no such session).
  Context ContextOf(const std::string& id) EXCLUDES(mu_);
  // Records a SET ROLE for session `id` (nullopt: SET ROLE DEFAULT).
  void ApplyRoles(const std::string& id, std::optional<access::RoleSet> roles,
                  Clock::time_point now = Clock::now()) EXCLUDES(mu_);
  // Records a USE (`database` non-empty) and SET param_* values for session `id`.
  void ApplyContext(const std::string& id, const std::string& database,
                    const std::map<std::string, std::string>& parameters,
                    Clock::time_point now = Clock::now()) EXCLUDES(mu_);

  // Returns the number of live sessions (expired ones are dropped first).
  size_t size(Clock::time_point now = Clock::now()) EXCLUDES(mu_);

 private:
  struct Session {
    core::Settings settings;
    Context context;
    Clock::time_point expires;
    std::chrono::seconds timeout{kDefaultTimeoutSeconds};
  };
  void ExpireLocked(Clock::time_point now) REQUIRES(mu_);

  core::Mutex mu_{"session_store"};
  absl::flat_hash_map<std::string, Session> sessions_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator

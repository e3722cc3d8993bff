#include "coordinator/server/session_store.h"

#include "core/error.h"

namespace granite::coordinator {

absl::StatusOr<core::Settings> SessionStore::Begin(const std::string& id, bool check,
                                                   uint32_t timeout_seconds,
                                                   Clock::time_point now) {
  core::MutexLock lock(mu_);
  ExpireLocked(now);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    if (check) {
      return core::Error(core::ErrorCode::kSessionNotFound,
                         "Session " + id + " not found (session_check is set)");
    }
    it = sessions_.emplace(id, Session()).first;
  }
  Session& session = it->second;
  session.timeout =
      std::chrono::seconds(timeout_seconds == 0 ? kDefaultTimeoutSeconds : timeout_seconds);
  session.expires = now + session.timeout;
  return session.settings;
}

void SessionStore::Apply(const std::string& id, const std::map<std::string, std::string>& changes,
                         Clock::time_point now) {
  core::MutexLock lock(mu_);
  Session& session = sessions_[id];
  if (session.expires < now) session.expires = now + session.timeout;
  for (const auto& [name, value] : changes) (void)session.settings.Set(name, value);
}

SessionStore::Context SessionStore::ContextOf(const std::string& id) {
  core::MutexLock lock(mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? Context() : it->second.context;
}

void SessionStore::ApplyContext(const std::string& id, const std::string& database,
                                const std::map<std::string, std::string>& parameters,
                                Clock::time_point now) {
  core::MutexLock lock(mu_);
  Session& session = sessions_[id];
  if (session.expires < now) session.expires = now + session.timeout;
  if (!database.empty()) session.context.database = database;
  for (const auto& [name, value] : parameters) session.context.parameters[name] = value;
}

void SessionStore::ApplyRoles(const std::string& id, std::optional<access::RoleSet> roles,
                              Clock::time_point now) {
  core::MutexLock lock(mu_);
  Session& session = sessions_[id];
  if (session.expires < now) session.expires = now + session.timeout;
  session.context.roles = std::move(roles);
}

size_t SessionStore::size(Clock::time_point now) {
  core::MutexLock lock(mu_);
  ExpireLocked(now);
  return sessions_.size();
}

void SessionStore::ExpireLocked(Clock::time_point now) {
  absl::erase_if(sessions_, [now](const auto& entry) { return entry.second.expires < now; });
}

}  // namespace granite::coordinator

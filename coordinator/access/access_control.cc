#include "coordinator/access/access_control.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/metrics/events.h"

namespace granite::coordinator::access {

namespace {

std::atomic<AccessControl*> current{nullptr};

// Every AccessControl ever installed, so a query that read an older one can finish with it.
std::vector<std::shared_ptr<AccessControl>>& Installed() {
  static auto* installed = new std::vector<std::shared_ptr<AccessControl>>();
  return *installed;
}

core::Mutex& InstallMutex() {
  static auto* mu = new core::Mutex("access_control_install");
  return *mu;
}

}  // namespace

AccessControl::AccessControl() {
  User user;
  user.name = "default";
  user.access_management = true;  // the only user, on loopback: it may grant as well
  (void)ParseNetworks("loopback", &user.networks);
  users_.emplace("default", std::make_shared<const User>(std::move(user)));
  stand_in_.password_kind = PasswordKind::kSha256;
  stand_in_.password_hash = Sha256Hex("granite stand-in");
}

AccessControl::AccessControl(std::map<std::string, User> users) : from_file_(true) {
  stand_in_.password_kind = PasswordKind::kSha256;
  stand_in_.password_hash = Sha256Hex("granite stand-in");
  for (auto& [name, user] : users) {
    if (user.password_kind == PasswordKind::kBcrypt) stand_in_ = user;
    users_.emplace(name, std::make_shared<const User>(std::move(user)));
  }
}

absl::StatusOr<std::shared_ptr<const User>> AccessControl::Authenticate(
    std::string_view user_name, std::string_view password, std::string_view peer) const {
  std::string name = user_name.empty() ? "default" : std::string(user_name);
  auto found = users_.find(name);
  const User& candidate = found != users_.end() ? *found->second : stand_in_;
  bool password_ok = false;
  std::string password_sha256;
  if (found != users_.end() && candidate.password_kind == PasswordKind::kBcrypt) {
    password_sha256 = Sha256Hex(password);
    core::MutexLock lock(verified_mu_);
    auto verified = bcrypt_verified_.find(name);
    password_ok = verified != bcrypt_verified_.end() &&
                  ConstantTimeEquals(verified->second, password_sha256);
  }
  if (!password_ok) {
    password_ok = PasswordMatches(candidate.password_kind, candidate.password_hash, password);
    if (password_ok && !password_sha256.empty()) {
      core::MutexLock lock(verified_mu_);
      bcrypt_verified_[name] = password_sha256;
    }
  }
  bool network_ok = false;
  absl::StatusOr<IpAddress> address = PeerAddress(peer);
  if (address.ok()) {
    for (const IpNetwork& network : candidate.networks) network_ok |= network.Contains(*address);
  }
  if (found != users_.end() && password_ok && network_ok) return found->second;
  core::CountEvent(core::Event::kAuthenticationFailures);
  std::fprintf(stderr, "granite coordinator: authentication failed for user \"%s\" from %s\n",
               name.c_str(), std::string(peer).c_str());
  return core::Error(core::ErrorCode::kAuthenticationFailed,
                     absl::StrCat(name, ": Authentication failed: password is incorrect, or "
                                        "there is no user with such name"));
}

AccessControl::QuerySlot& AccessControl::QuerySlot::operator=(QuerySlot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Release(user_);
    owner_ = other.owner_;
    user_ = std::move(other.user_);
    other.owner_ = nullptr;
  }
  return *this;
}

AccessControl::QuerySlot::~QuerySlot() {
  if (owner_ != nullptr) owner_->Release(user_);
}

absl::StatusOr<AccessControl::QuerySlot> AccessControl::AcquireQuerySlot(const std::string& user,
                                                                       uint64_t limit) {
  QuerySlot slot;
  if (limit == 0) return slot;
  core::MutexLock lock(mu_);
  uint64_t& running = running_[user];
  if (running >= limit) {
    return core::Error(core::ErrorCode::kTooManySimultaneousQueries,
                       absl::StrCat("Too many simultaneous queries for user ", user,
                                    ". Current: ", running, ", maximum: ", limit,
                                    " (max_concurrent_queries_for_user)"));
  }
  ++running;
  slot.owner_ = this;
  slot.user_ = user;
  return slot;
}

void AccessControl::Release(const std::string& user) {
  core::MutexLock lock(mu_);
  auto found = running_.find(user);
  if (found == running_.end()) return;
  if (--found->second == 0) running_.erase(found);
}

std::vector<std::shared_ptr<const User>> AccessControl::Users() const {
  std::vector<std::shared_ptr<const User>> users;
  for (const auto& [name, user] : users_) users.push_back(user);
  return users;
}

AccessControl* AccessControl::Current() {
  AccessControl* access = current.load(std::memory_order_acquire);
  if (access != nullptr) return access;
  SetCurrent(std::make_shared<AccessControl>());
  return current.load(std::memory_order_acquire);
}

void AccessControl::SetCurrent(std::shared_ptr<AccessControl> access) {
  core::MutexLock lock(InstallMutex());
  Installed().push_back(std::move(access));
  current.store(Installed().back().get(), std::memory_order_release);
}

}  // namespace granite::coordinator::access

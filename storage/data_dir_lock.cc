#include "storage/data_dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace granite::storage {

absl::StatusOr<DataDirLock> DataDirLock::Acquire(const std::string& dir,
                                                 const std::string& program) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(program + ": cannot create data directory " + dir + ": " +
                               ec.message());
  }
  std::string path = (std::filesystem::path(dir) / kFileName).string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(program + ": cannot open lock file " + path + ": " +
                               std::strerror(errno));
  }
  int locked;
  do {
    locked = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0) {
    int error = errno;
    ::close(fd);
    if (error != EWOULDBLOCK) {
      return absl::InternalError(program + ": cannot lock " + path + ": " + std::strerror(error));
    }
    pid_t holder = ReadLockHolder(path);
    std::string who = holder > 0 ? "PID " + std::to_string(holder) + ", " : "";
    return absl::FailedPreconditionError(
        program + ": data directory " + dir + " is in use by another granite process (" + who +
        "lock file " + path + "); stop it or use another --data directory");
  }
  std::string text = std::to_string(::getpid()) + "\n";
  // Best effort: the PID only improves the message a second process prints.
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, text.data(), text.size(), 0);
  }
  return DataDirLock(fd, std::move(path));
}

DataDirLock::DataDirLock(DataDirLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

DataDirLock& DataDirLock::operator=(DataDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

pid_t ReadLockHolder(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[32] = {};
  ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (n <= 0) return -1;
  char* end = nullptr;
  long pid = std::strtol(buffer, &end, 10);
  if (end == buffer || pid <= 0) return -1;
  return static_cast<pid_t>(pid);
}

}  // namespace granite::storage

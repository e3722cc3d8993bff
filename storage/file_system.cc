// POSIX implementation of FileSystem: open/write/pread/fsync/rename, directories via
// opendir/mkdir, recursive removal via std::filesystem (error_code overloads, no exceptions).
#include "storage/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;

absl::Status WriteError(std::string_view what, const std::string& path, int err) {
  return Error(ErrorCode::kCannotWriteToFile,
               absl::StrCat("Cannot ", std::string(what), " ", path, ": ", std::strerror(err)));
}

absl::Status ReadError(std::string_view what, const std::string& path, int err) {
  return Error(ErrorCode::kCannotReadFromFile,
               absl::StrCat("Cannot ", std::string(what), " ", path, ": ", std::strerror(err)));
}

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return WriteError("write to file", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (::fsync(fd_) != 0) return WriteError("fsync file", path_, errno);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return WriteError("close file", path_, errno);
    return absl::OkStatus();
  }

 private:
  std::string path_;
  int fd_;
};

class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  absl::Status Read(uint64_t offset, size_t n, char* out) const override {
    while (n > 0) {
      ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR) continue;
        return ReadError("read from file", path_, errno);
      }
      if (got == 0) {
        return Error(ErrorCode::kCannotReadFromFile,
                     absl::StrCat("Cannot read ", n, " bytes at offset ", offset, " from file ",
                                  path_, ": file is too short"));
      }
      out += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  int fd_;
};

class PosixFileSystem : public FileSystem {
 public:
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return WriteError("create file", path, errno);
    return std::make_unique<PosixWritableFile>(path, fd);
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ReadError("open file", path, errno);
    return std::make_unique<PosixRandomAccessFile>(path, fd);
  }

  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ReadError("open file", path, errno);
    std::string out;
    char buffer[65536];
    while (true) {
      ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return ReadError("read from file", path, err);
      }
      if (n == 0) break;
      out.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  absl::StatusOr<uint64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ReadError("stat file", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return ReadError("list directory", path, errno);
    std::vector<std::string> names;
    while (struct dirent* entry = ::readdir(dir)) {
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  absl::Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0) return WriteError("create directory", path, errno);
    return absl::OkStatus();
  }

  absl::Status CreateDirs(const std::string& path) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return WriteError("create directory", path, ec.value());
    return absl::OkStatus();
  }

  absl::Status SyncFile(const std::string& path) override { return SyncPath(path, 0, "file"); }

  absl::Status SyncDir(const std::string& path) override {
    return SyncPath(path, O_DIRECTORY, "directory");
  }

 private:
  static absl::Status SyncPath(const std::string& path, int flags, std::string_view kind) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
    if (fd < 0) return WriteError(absl::StrCat("open ", std::string(kind)), path, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return WriteError(absl::StrCat("fsync ", std::string(kind)), path, err);
    return absl::OkStatus();
  }

  absl::Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return WriteError("rename", absl::StrCat(from, " to ", to), errno);
    }
    return absl::OkStatus();
  }

  absl::Status RemoveAll(const std::string& path) override {
    const int error = RemoveTree(path);
    if (error != 0) return WriteError("remove", path, error);
    return absl::OkStatus();
  }

 private:
  // Removes `path` and everything under it, depth first. Another remover of the same tree (two
  // cleanups of one part directory) may delete entries while this walk lists them: an entry
  // that is already gone counts as removed, since the contract is only that the tree is gone
  // afterwards (std::filesystem::remove_all reports ENOENT then). Returns 0 or an errno.
  static int RemoveTree(const std::filesystem::path& path) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::symlink_status(path, ec);
    if (ec) return ec.value() == ENOENT ? 0 : ec.value();
    if (std::filesystem::is_directory(status)) {
      std::filesystem::directory_iterator it(path, ec);
      for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (const int error = RemoveTree(it->path()); error != 0) return error;
      }
      if (ec && ec.value() != ENOENT) return ec.value();
    }
    if (::remove(path.c_str()) != 0 && errno != ENOENT) return errno;
    return 0;
  }
};

}  // namespace

std::shared_ptr<FileSystem> Posix() {
  static const std::shared_ptr<FileSystem> instance = std::make_shared<PosixFileSystem>();
  return instance;
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

absl::Status WriteFile(FileSystem& fs, const std::string& path, std::string_view contents) {
  auto file = fs.NewWritableFile(path);
  if (!file.ok()) return file.status();
  absl::Status status = (*file)->Append(contents);
  if (status.ok()) status = (*file)->Close();
  return status;
}

absl::Status SyncFiles(FileSystem& fs, const std::vector<std::string>& paths) {
  // A thread per file up to a cap: an fsync waits on the disk, not on a core.
  constexpr size_t kMaxThreads = 16;
  std::vector<absl::Status> statuses(paths.size());
  std::atomic<size_t> next{0};
  auto sync = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) statuses[i] = fs.SyncFile(paths[i]);
  };
  std::vector<std::thread> helpers;
  const size_t threads = std::min(paths.size(), kMaxThreads);
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(sync);
  sync();
  for (std::thread& helper : helpers) helper.join();
  for (absl::Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status WriteFileSynced(FileSystem& fs, const std::string& path, std::string_view contents) {
  auto file = fs.NewWritableFile(path);
  if (!file.ok()) return file.status();
  absl::Status status = (*file)->Append(contents);
  if (status.ok()) status = (*file)->Sync();
  if (status.ok()) status = (*file)->Close();
  return status;
}

}  // namespace granite::storage

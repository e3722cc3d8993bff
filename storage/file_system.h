// FileSystem: the one interface through which storage touches files. Parts, schemas and the
// catalog are written and read only through it, so tests substitute a failing implementation
// (storage/fault_injection_file_system.h) and prove that a failed write leaves no visible trace.
// Posix() is the production implementation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace granite::storage {

// Appends bytes to a newly created file.
// Thread-safety: none; one writer per file.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends all of `data` (retrying short writes).
  virtual absl::Status Append(std::string_view data) = 0;
  // Makes the appended data durable (fsync).
  virtual absl::Status Sync() = 0;
  // Closes the file; further calls are invalid. The destructor closes an unclosed file silently.
  virtual absl::Status Close() = 0;
};

// Reads byte ranges of an existing file.
// Thread-safety: Read() may be called concurrently.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads exactly `n` bytes at `offset` into `out`; a file shorter than offset + n is an error.
  virtual absl::Status Read(uint64_t offset, size_t n, char* out) const = 0;
};

// Creates, reads, renames and removes files and directories. Paths are plain strings joined with
// '/'. Errors carry CANNOT_WRITE_TO_FILE / CANNOT_READ_FROM_FILE and name the path.
// Thread-safety: implementations must be safe to call from many threads at once.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Creates (or truncates) a file for writing.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Returns the whole contents of a file.
  virtual absl::StatusOr<std::string> ReadFile(const std::string& path) = 0;
  virtual absl::StatusOr<uint64_t> FileSize(const std::string& path) = 0;
  // Returns the names of the entries of a directory (without "." and ".."), sorted.
  virtual absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) = 0;
  // Creates one directory; fails if it exists.
  virtual absl::Status CreateDir(const std::string& path) = 0;
  // Creates a directory and its missing parents; succeeds if it exists.
  virtual absl::Status CreateDirs(const std::string& path) = 0;
  // Makes the data of a written (possibly closed) file durable: opens it and fsyncs. Writing many
  // files first and syncing them afterwards lets the kernel flush them together.
  virtual absl::Status SyncFile(const std::string& path) = 0;
  // Makes the entries of a directory (creations, renames, removals) durable.
  virtual absl::Status SyncDir(const std::string& path) = 0;
  // Atomically renames `from` to `to` (a directory may replace nothing but an empty directory).
  virtual absl::Status Rename(const std::string& from, const std::string& to) = 0;
  // Removes a file or a directory tree; succeeds if `path` does not exist.
  virtual absl::Status RemoveAll(const std::string& path) = 0;
};

// Returns the process-wide POSIX implementation.
std::shared_ptr<FileSystem> Posix();

// Returns `dir` + "/" + `name`.
std::string JoinPath(std::string_view dir, std::string_view name);

// Creates `path`, writes `contents` and closes it, without fsync.
absl::Status WriteFile(FileSystem& fs, const std::string& path, std::string_view contents);

// Creates `path`, writes `contents` and fsyncs the file (not its directory).
absl::Status WriteFileSynced(FileSystem& fs, const std::string& path, std::string_view contents);

// Makes every file of `paths` durable (fs.SyncFile), several at once; returns the first error in
// the order of `paths` once all calls returned. Why at once: on a journaling file system each
// fsync of a freshly written file waits for its own journal commit when they run one after
// another (a part's 6 files: 13 ms on ext4), while concurrent fsyncs share commits (4 ms).
absl::Status SyncFiles(FileSystem& fs, const std::vector<std::string>& paths);

}  // namespace granite::storage

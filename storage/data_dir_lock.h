// DataDirLock: one process per data directory. `granite worker` locks its --data folder and
// `granite local` the folder that holds its workers' folders, so a second process started on the
// same directory refuses to start instead of writing (and merging) the same parts as the first.
//
// The lock is flock(2) on <dir>/granite.lock, held by an open file descriptor (O_CLOEXEC, so
// processes this one execs do not inherit it) for as long as the object lives. The kernel drops it
// when the process dies, however it dies (kill -9 included), so a stale lock file never blocks a
// restart. The holder writes its PID into the file so that the refusal can name it.
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace granite::storage {

// Holds the exclusive lock of one data directory.
// Thread-safety: immutable after Acquire; move-only.
class DataDirLock {
 public:
  // The lock file's name inside the directory.
  static constexpr char kFileName[] = "granite.lock";

  // Creates `dir` if needed and takes its lock without waiting. `program` names the caller in
  // the message ("granite worker").
  // Errors: FAILED_PRECONDITION when another process (or another DataDirLock of this process)
  // holds it: "granite worker: data directory D is in use by another granite process (PID 123,
  // lock file D/granite.lock); stop it or use another --data directory" (the PID is left out
  // when the holder has not written it yet); INTERNAL when the directory or file cannot be
  // created or locked.
  static absl::StatusOr<DataDirLock> Acquire(const std::string& dir, const std::string& program);

  DataDirLock(DataDirLock&& other) noexcept;
  DataDirLock& operator=(DataDirLock&& other) noexcept;
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;
  // Releases the lock (the file stays: removing it would race with a process about to lock it).
  ~DataDirLock();

  const std::string& path() const { return path_; }

 private:
  DataDirLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_ = -1;
  std::string path_;
};

// Returns the PID written in the lock file at `path`, or -1 when there is none (no file, empty,
// not a number).
pid_t ReadLockHolder(const std::string& path);

}  // namespace granite::storage

// PriorityRecordingFileSystem (tests): forwards to Posix() and records, for each file created,
// the priority its thread ran at (core::LoweredThreadPriority), so tests can check which work a
// ScopedThreadNice lowered (background merges, bulk inserts).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/thread_priority.h"
#include "storage/file_system.h"

namespace granite::storage {

// Thread-safety: all methods may be called concurrently.
class PriorityRecordingFileSystem : public FileSystem {
 public:
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    {
      core::MutexLock lock(mu_);
      created_.emplace_back(path, core::LoweredThreadPriority());
    }
    return base_->NewWritableFile(path);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return base_->NewRandomAccessFile(path);
  }
  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    return base_->ReadFile(path);
  }
  absl::StatusOr<uint64_t> FileSize(const std::string& path) override {
    return base_->FileSize(path);
  }
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override {
    return base_->ListDir(path);
  }
  absl::Status CreateDir(const std::string& path) override { return base_->CreateDir(path); }
  absl::Status CreateDirs(const std::string& path) override { return base_->CreateDirs(path); }
  absl::Status SyncFile(const std::string& path) override { return base_->SyncFile(path); }
  absl::Status SyncDir(const std::string& path) override { return base_->SyncDir(path); }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    return base_->Rename(from, to);
  }
  absl::Status RemoveAll(const std::string& path) override { return base_->RemoveAll(path); }

  std::vector<std::pair<std::string, int>> created() const {
    core::MutexLock lock(mu_);
    return created_;
  }

 private:
  std::shared_ptr<FileSystem> base_ = Posix();
  mutable core::Mutex mu_{"test_priority_recording"};
  std::vector<std::pair<std::string, int>> created_ GUARDED_BY(mu_);
};

}  // namespace granite::storage

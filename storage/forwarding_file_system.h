// ForwardingFileSystem: a FileSystem that passes every call to another one, for wrappers that
// change or observe a few operations (FaultInjectionFileSystem, the tests'
// PriorityRecordingFileSystem) and override only those.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/file_system.h"

namespace granite::storage {

// Thread-safety: as `base`.
class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(std::shared_ptr<FileSystem> base) : base_(std::move(base)) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
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

 protected:
  const std::shared_ptr<FileSystem> base_;
};

}  // namespace granite::storage

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
#include "storage/forwarding_file_system.h"

namespace granite::storage {

// Thread-safety: all methods may be called concurrently.
class PriorityRecordingFileSystem : public ForwardingFileSystem {
 public:
  PriorityRecordingFileSystem() : ForwardingFileSystem(Posix()) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    {
      core::MutexLock lock(mu_);
      created_.emplace_back(path, core::LoweredThreadPriority());
    }
    return base_->NewWritableFile(path);
  }

  std::vector<std::pair<std::string, int>> created() const {
    core::MutexLock lock(mu_);
    return created_;
  }

 private:
  mutable core::Mutex mu_{"test_priority_recording"};
  std::vector<std::pair<std::string, int>> created_ GUARDED_BY(mu_);
};

}  // namespace granite::storage

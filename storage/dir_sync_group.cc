#include "storage/dir_sync_group.h"

#include <utility>

namespace granite::storage {

DirSyncGroup::DirSyncGroup(std::shared_ptr<FileSystem> fs) : fs_(std::move(fs)) {}

absl::Status DirSyncGroup::Sync(const std::string& dir) {
  core::MutexLock lock(mu_);
  Dir& state = dirs_[dir];
  if (state.next == nullptr) state.next = std::make_shared<Round>();
  const std::shared_ptr<Round> round = state.next;
  ++round->callers;
  // Wait while an earlier fsync runs (it may have started before this caller's rename); when it
  // ends, one caller of the next round runs that round's fsync for all of them.
  changed_.wait(mu_, [&]() NO_THREAD_SAFETY_ANALYSIS { return round->done || !state.running; });
  if (!round->done) {
    state.running = true;
    state.next = nullptr;  // later callers form the round after this one
    mu_.unlock();
    absl::Status status = fs_->SyncDir(dir);
    mu_.lock();
    round->status = std::move(status);
    round->done = true;
    state.running = false;
    changed_.notify_all();
  }
  return round->status;
}

int DirSyncGroup::Waiting(const std::string& dir) {
  core::MutexLock lock(mu_);
  auto it = dirs_.find(dir);
  return it == dirs_.end() || it->second.next == nullptr ? 0 : it->second.next->callers;
}

}  // namespace granite::storage

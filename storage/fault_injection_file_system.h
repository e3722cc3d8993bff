// FaultInjectionFileSystem: a FileSystem wrapper for tests that fails a chosen operation (the Nth
// write, fsync, rename or directory creation from now on), so tests can prove that every failure
// point of an insert or a CREATE TABLE leaves no visible part and a store that reopens cleanly.
// Reads and removals are never failed: cleanup after the injected failure runs normally.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "storage/forwarding_file_system.h"

namespace granite::storage {

// Kinds of operations that can be made to fail.
enum class FaultOp {
  kWrite = 0,      // WritableFile::Append
  kSync = 1,       // WritableFile::Sync, FileSystem::SyncFile and FileSystem::SyncDir
  kRename = 2,     // FileSystem::Rename
  kCreateDir = 3,  // FileSystem::CreateDir / CreateDirs
  kCreateFile = 4  // FileSystem::NewWritableFile
};
inline constexpr int kFaultOpCount = 5;

// Forwards to `base` and fails the armed operation with CANNOT_WRITE_TO_FILE ("Injected fault:
// ..."). A failed operation does nothing (the file or directory is left as before).
// Thread-safety: all methods may be called concurrently; counters are atomics.
class FaultInjectionFileSystem : public ForwardingFileSystem {
 public:
  explicit FaultInjectionFileSystem(std::shared_ptr<FileSystem> base)
      : ForwardingFileSystem(std::move(base)) {}

  // Makes the `n`-th (1-based) operation of kind `op` counted from now fail; with `sticky`, every
  // later one fails too. Replaces any earlier arming of `op`.
  void FailNth(FaultOp op, int n, bool sticky = false);
  // Disarms every kind.
  void Clear();
  // Returns how many operations of kind `op` ran (failed ones included) since construction.
  int Count(FaultOp op) const { return counts_[static_cast<int>(op)].load(); }
  // Returns how many failures were injected since construction.
  int InjectedFailures() const { return injected_.load(); }

  // Counts one operation of kind `op` and returns the injected error if it is armed to fail.
  // Public so that the wrapped files can call it.
  absl::Status MaybeFail(FaultOp op, const std::string& what);

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  absl::Status CreateDir(const std::string& path) override;
  absl::Status CreateDirs(const std::string& path) override;
  absl::Status SyncFile(const std::string& path) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::Status Rename(const std::string& from, const std::string& to) override;

 private:
  // Arming of one kind: fail when the countdown reaches zero (0 = disarmed).
  struct Arm {
    std::atomic<int> countdown{0};
    std::atomic<bool> sticky{false};
    std::atomic<bool> failing{false};  // set once a sticky failure fired
  };

  Arm arms_[kFaultOpCount];
  std::atomic<int> counts_[kFaultOpCount] = {};
  std::atomic<int> injected_{0};
};

}  // namespace granite::storage

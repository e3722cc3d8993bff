// DirSyncGroup: group commit of directory fsyncs. A commit that renamed an entry into a
// directory (a replicated block's id into replication/ids/, its retained chunks into
// replication/data/, storage/block_log.h) needs an fsync of that directory that starts after
// the rename. Concurrent commits into the same directory share one: a caller that arrives while
// an fsync of the directory runs waits for the next one, which starts when the running one ends
// and answers every caller that arrived meanwhile. N concurrent inserts then pay about two
// fsyncs of each directory instead of N — on a file system where every fsync is its own
// synchronous write (ext4 without a journal) that is disk time and kernel CPU per insert.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/mutex.h"
#include "storage/file_system.h"

namespace granite::storage {

// Thread-safety: safe for concurrent use.
class DirSyncGroup {
 public:
  explicit DirSyncGroup(std::shared_ptr<FileSystem> fs);

  // Returns the status of an fsync of `dir` (FileSystem::SyncDir) that started after this call
  // began: everything renamed into `dir` before the call is then durable.
  absl::Status Sync(const std::string& dir);

  // The callers waiting for the next fsync of `dir` (for tests).
  int Waiting(const std::string& dir);

 private:
  struct Round {  // one fsync and the callers it answers
    bool done = false;
    int callers = 0;
    absl::Status status;
  };
  struct Dir {
    bool running = false;
    std::shared_ptr<Round> next;  // joined by callers while an fsync runs; starts after it
  };

  const std::shared_ptr<FileSystem> fs_;
  core::Mutex mu_{"dir_sync_group"};
  std::condition_variable_any changed_;
  std::map<std::string, Dir> dirs_ GUARDED_BY(mu_);  // one entry per directory ever synced
};

}  // namespace granite::storage

// Exchange: the rows of a shuffle join (plan::BroadcastJoin::shuffle) moving between workers.
// Every worker of the fragment reads its shard of both tables and sends each row to the worker
// that owns the row's join key (PartitionRows): its build rows first, then the probe rows that
// passed the fragment's filter. The receiving worker's ExchangeInbox collects them: the build
// rows whole (the hash table needs them all), the probe rows through a bounded queue that the
// join drains, so a sender faster than the join waits — the Exchange RPC handler stops reading
// and gRPC flow control carries the wait back to the sender.
//
// Why it cannot deadlock: build rows are never refused, so every worker's build side completes
// once every sender has read its shard; the probe queue is drained by threads that wait for
// nothing but the build (FragmentExecutor::RunShuffled starts them before it sends its own probe
// rows). A cancelled query closes the inbox, which wakes every wait.
//
// The rows stay encoded (core/plan/fragment_result.h) until the receiving fragment decodes them
// on its own threads, so the decoded rows are charged to that query's tracker. The encoded bytes
// in an inbox are the server's (gRPC allocated a peer's on its threads; a worker's own are
// encoded under core::TransportMemoryScope): whoever frees them does so in that scope too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/mutex.h"
#include "core/plan/fragment_result.h"

namespace granite::worker {

// Returns, for each of `parts` partitions, the rows of `block` whose keys `keys` (columns
// parallel to the block's rows) hash into it. Both sides of a join call it with their own key
// columns: `word_keys` (the caller passes the same value on both sides: one key, integer-like on
// both) hashes each key's 64-bit value, else the encoded row key (core/join/row_keys.h), so equal
// keys of comparable types meet in one partition. REQUIRES: parts > 0.
std::vector<core::Block> PartitionRows(const core::Block& block,
                                       const std::vector<const core::Column*>& keys,
                                       bool word_keys, size_t parts);

// The rows one worker receives in one exchange.
// Thread-safety: every method may be called from any thread.
class ExchangeInbox {
 public:
  // `senders`: the fragment's worker count. `probe_capacity`: encoded probe bytes held before a
  // sender waits (at least one block is always taken).
  ExchangeInbox(size_t senders, size_t probe_capacity);

  // Sender side. Errors: the inbox was closed (its status), or a sender index out of range.
  absl::Status AddBuild(uint32_t sender, core::plan::EncodedBlock block);
  absl::Status EndBuild(uint32_t sender);
  // Waits while the queue is full; `gone` is polled while waiting (the sender went away).
  absl::Status AddProbe(uint32_t sender, core::plan::EncodedBlock block,
                        const std::function<bool()>& gone);
  absl::Status EndProbe(uint32_t sender);

  // Receiver side: every sender's build rows, once each has ended its build side.
  absl::StatusOr<std::vector<core::plan::EncodedBlock>> TakeBuild(
      const std::atomic<bool>& cancelled);
  // The next probe block; nullopt once every sender has ended its probe side and the queue is
  // empty.
  absl::StatusOr<std::optional<core::plan::EncodedBlock>> NextProbe(
      const std::atomic<bool>& cancelled);

  // Wakes every wait; later calls fail with `status` (sent and received rows are dropped).
  void Close(absl::Status status);

  size_t senders() const { return senders_; }

 private:
  absl::Status CheckSender(uint32_t sender) const;
  // Marks `sender`'s build side (or probe side) ended.
  absl::Status EndSide(uint32_t sender, bool build) EXCLUDES(mu_);

  const size_t senders_;
  const size_t probe_capacity_;
  mutable core::Mutex mu_{"exchange_inbox"};
  std::condition_variable_any changed_;
  absl::Status closed_ GUARDED_BY(mu_);
  std::vector<core::plan::EncodedBlock> build_ GUARDED_BY(mu_);
  size_t builds_ended_ GUARDED_BY(mu_) = 0;
  std::vector<bool> build_ended_ GUARDED_BY(mu_);
  std::deque<core::plan::EncodedBlock> probe_ GUARDED_BY(mu_);
  size_t probe_bytes_ GUARDED_BY(mu_) = 0;
  size_t probes_ended_ GUARDED_BY(mu_) = 0;
  std::vector<bool> probe_ended_ GUARDED_BY(mu_);
};

// The inboxes of the exchanges running on this worker, by Fragment::exchange_id. A peer's rows
// may arrive before this worker's own fragment starts: whichever comes first creates the inbox.
// Thread-safety: every method may be called from any thread.
class ExchangeRegistry {
 public:
  // Probe bytes an inbox holds before its senders wait.
  static constexpr size_t kProbeCapacity = 64 << 20;

  // The fragment's side: the inbox of `id`, created if no row has arrived yet. Errors: a peer
  // created it for another sender count.
  absl::StatusOr<std::shared_ptr<ExchangeInbox>> Open(uint64_t id, size_t senders);
  // A sender's side: the same, unless `id` already finished (its fragment ended: the rows are
  // moot, and the error says so). Errors also: `senders` is 0 or differs from the inbox's.
  absl::StatusOr<std::shared_ptr<ExchangeInbox>> Find(uint64_t id, size_t senders);
  // The fragment of `id` ended: closes its inbox with `status` and forgets it. Inboxes no
  // fragment opened within ten minutes (their fragment never started here) are dropped too.
  void Finish(uint64_t id, absl::Status status);

 private:
  struct Entry {
    std::shared_ptr<ExchangeInbox> inbox;
    bool opened = false;
    int64_t created_ns = 0;
  };
  absl::StatusOr<std::shared_ptr<ExchangeInbox>> GetLocked(uint64_t id, size_t senders,
                                                           bool open) REQUIRES(mu_);
  void SweepLocked(int64_t now_ns) REQUIRES(mu_);

  core::Mutex mu_{"exchange_registry"};
  std::map<uint64_t, Entry> inboxes_ GUARDED_BY(mu_);
  std::map<uint64_t, int64_t> finished_ GUARDED_BY(mu_);  // id -> when, kept ten minutes
};

}  // namespace granite::worker

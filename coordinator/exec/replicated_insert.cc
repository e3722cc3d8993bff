#include "coordinator/exec/replicated_insert.h"

#include <xxhash.h>

#include <cstdio>

#include "absl/strings/numbers.h"
#include "coordinator/cluster/shard_log.h"
#include "coordinator/cluster/sharding_key.h"
#include "coordinator/cluster/two_phase_insert.h"
#include "core/block_codec.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {

using core::ErrorCode;

absl::StatusOr<size_t> QuorumOf(const std::string& setting, size_t replicas) {
  if (setting == "auto") return replicas / 2 + 1;
  uint64_t n = 0;
  if (!absl::SimpleAtoi(setting, &n)) {
    return core::Error(ErrorCode::kBadArguments,
                       "Setting insert_quorum must be 'auto' or a number, not '" + setting + "'");
  }
  if (n > replicas) {
    return core::Error(ErrorCode::kTooFewLiveReplicas,
                       "insert_quorum " + setting + " is more than the " +
                           std::to_string(replicas) + " replicas of each shard");
  }
  return n == 0 ? 1 : static_cast<size_t>(n);
}

namespace {

std::string Hex128(XXH128_hash_t h) {
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text;
}

class ReplicatedInsert : public InsertSink {
 public:
  ReplicatedInsert(const core::TableSchema& schema, const WorkerSet& workers, size_t quorum,
                   ReplicationOptions options)
      : workers_(workers), table_(schema.name), options_(std::move(options)), quorum_(quorum),
        key_columns_(ShardingKeyColumns(schema)),
        phases_(workers, schema.name, NewInsertToken()), failed_(workers.size()),
        shard_digests_(workers.shard_count()) {}

  absl::Status SendEncoded(EncodedChunk chunk, bool last) override {
    const core::Block& full = chunk.full;
    const size_t total = full.rows();
    if (total == 0) return absl::OkStatus();
    const size_t n = workers_.shard_count();
    std::vector<core::Block> slices;
    if (!key_columns_.empty()) {
      slices = SplitByShard(full, key_columns_, n);
    } else {
      // The rotation follows the rows, so a retried insert puts the same rows on the same shard
      // and its blocks are recognized there.
      std::string raw = core::EncodeBlock(full);
      slices = SplitEvenly(full, n, XXH3_64bits(raw.data(), raw.size()) % n);
    }
    std::vector<core::plan::EncodedBlock> blocks(n);
    std::vector<size_t> targets;
    for (size_t s = 0; s < n; ++s) {
      if (slices[s].rows() == 0) continue;
      std::string raw;
      blocks[s] = EncodeInsertBlock(slices[s], core::WireCompression::kLz4, &raw);
      XXH128_hash_t digest = XXH3_128bits(raw.data(), raw.size());
      shard_digests_[s].append(reinterpret_cast<const char*>(&digest), sizeof(digest));
      for (size_t r = 0; r < workers_.replica_count(); ++r) {
        size_t p = workers_.ProcessIndex(s, r);
        if (failed_[p].empty()) targets.push_back(p);
      }
    }
    // On the last chunk every shard's id is known: the replicas record it while they prepare.
    std::vector<std::string> ids(n);
    if (last) {
      for (size_t s = 0; s < n; ++s) {
        if (!shard_digests_[s].empty()) ids[s] = BlockId(s);
      }
    }
    (void)workers_.CallEach(targets, [&](size_t p) -> absl::Status {
      const size_t s = workers_.ShardOf(p);
      absl::Status status = phases_.Prepare(p, blocks[s], /*retain=*/true, ids[s]);
      if (!status.ok()) failed_[p] = std::string(status.message());
      return absl::OkStatus();
    });
    rows_ += total;
    for (size_t s = 0; s < n; ++s) {
      if (slices[s].rows() == 0) continue;
      size_t alive = 0;
      for (size_t r = 0; r < workers_.replica_count(); ++r) {
        alive += failed_[workers_.ProcessIndex(s, r)].empty();
      }
      if (alive < quorum_) {
        return core::Error(ErrorCode::kTooFewLiveReplicas,
                           "Number of alive replicas (" + std::to_string(alive) + ") of shard " +
                               std::to_string(s) + " is less than insert_quorum " +
                               std::to_string(quorum_) + "; nothing was inserted: " +
                               ReplicaErrors(s));
      }
    }
    return absl::OkStatus();
  }

  void Abort() override { phases_.AbortTouched(); }

  absl::StatusOr<uint64_t> Commit() override {
    std::vector<size_t> committed(workers_.size(), 0);
    std::vector<std::string> ids(workers_.shard_count());
    for (size_t s = 0; s < ids.size(); ++s) ids[s] = BlockId(s);
    (void)workers_.CallEach(phases_.Touched(), [&](size_t p) -> absl::Status {
      if (!failed_[p].empty()) {
        phases_.Abort(p);
        return absl::OkStatus();
      }
      absl::Status status = phases_.Commit(p, ids[workers_.ShardOf(p)]);
      if (status.ok()) {
        committed[p] = 1;
      } else {
        failed_[p] = std::string(status.message());
      }
      return absl::OkStatus();
    });
    for (size_t s = 0; s < workers_.shard_count(); ++s) {
      if (shard_digests_[s].empty()) continue;
      size_t done = 0;
      for (size_t r = 0; r < workers_.replica_count(); ++r) {
        done += committed[workers_.ProcessIndex(s, r)];
      }
      if (done < quorum_) {
        return core::Error(ErrorCode::kUnknownStatusOfInsert,
                           "Only " + std::to_string(done) + " replicas of shard " +
                               std::to_string(s) + " committed the block, insert_quorum is " +
                               std::to_string(quorum_) +
                               "; the block may still appear (a retry with the same data is "
                               "deduplicated): " + ReplicaErrors(s));
      }
    }
    // The shards' logs record the blocks before the client hears of them (shard_log.h).
    if (ShardLog* log = workers_.shard_log(); log != nullptr) {
      std::vector<std::pair<size_t, std::string>> blocks;
      for (size_t s = 0; s < workers_.shard_count(); ++s) {
        if (!shard_digests_[s].empty()) blocks.emplace_back(s, BlockNameOf(ids[s]));
      }
      absl::Status recorded = log->Record(table_, blocks);
      if (!recorded.ok()) {
        return core::Error(core::CodeOf(recorded),
                           std::string(recorded.message()) +
                               " (recording the INSERT's blocks in the shard log; the replicas "
                               "committed them, a retry with the same data is deduplicated)");
      }
    }
    return rows_;
  }

 private:
  std::string BlockId(size_t shard) const {
    if (!options_.deduplicate) return "u:" + phases_.token();
    if (!options_.deduplication_token.empty()) return "t:" + options_.deduplication_token;
    const std::string& digests = shard_digests_[shard];
    return "c:" + Hex128(XXH3_128bits(digests.data(), digests.size()));
  }

  std::string ReplicaErrors(size_t shard) const {
    std::string text;
    for (size_t r = 0; r < workers_.replica_count(); ++r) {
      size_t p = workers_.ProcessIndex(shard, r);
      if (failed_[p].empty()) continue;
      text += (text.empty() ? "" : "; ") + std::string("replica ") + std::to_string(r) + " (" +
              workers_.address(p) + "): " + failed_[p];
    }
    return text;
  }

  const WorkerSet& workers_;
  const std::string table_;
  const ReplicationOptions options_;
  const size_t quorum_;
  const std::vector<size_t> key_columns_;
  TwoPhaseInsert phases_;
  std::vector<std::string> failed_;   // per process: why it dropped out ("" = still in)
  std::vector<std::string> shard_digests_;  // per shard: XXH3-128 of each slice sent, in order
  uint64_t rows_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<InsertSink>> MakeReplicatedInsert(
    const core::TableSchema& schema, const WorkerSet& workers, const ReplicationOptions& options) {
  ASSIGN_OR_RETURN(size_t quorum, QuorumOf(options.quorum, workers.replica_count()));
  return std::unique_ptr<InsertSink>(
      std::make_unique<ReplicatedInsert>(schema, workers, quorum, options));
}

}  // namespace granite::coordinator

#include "coordinator/exec/replicated_insert.h"

#include <grpcpp/grpcpp.h>
#include <xxhash.h>

#include <chrono>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "coordinator/cluster/sharding_key.h"
#include "core/block_codec.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

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

std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + std::chrono::minutes(10);
}

class ReplicatedInsert : public InsertSink {
 public:
  ReplicatedInsert(const core::TableSchema& schema, const WorkerSet& workers, size_t quorum,
                   ReplicationOptions options)
      : schema_(schema), workers_(workers), options_(std::move(options)), quorum_(quorum),
        token_(NewInsertToken()), chunks_(workers.size(), 0), touched_(workers.size(), 0),
        failed_(workers.size()), shard_digests_(workers.shard_count()) {
    for (const std::string& key : schema.sharding_key) {
      for (size_t i = 0; i < schema.columns.size(); ++i) {
        if (schema.columns[i].name == key) key_columns_.push_back(i);
      }
    }
  }

  absl::Status Send(const core::Block& full, bool last) override {
    (void)last;
    const size_t total = full.rows();
    if (total == 0) return absl::OkStatus();
    const size_t n = workers_.shard_count();
    std::vector<core::Block> slices(n);
    if (!key_columns_.empty()) {
      slices = SplitByShard(full, key_columns_, n);
    } else {
      // The rotation follows the rows, so a retried insert puts the same rows on the same shard
      // and its blocks are recognized there.
      std::string raw = core::EncodeBlock(full);
      const size_t first = XXH3_64bits(raw.data(), raw.size()) % n;
      for (size_t i = 0; i < n; ++i) {
        size_t begin = total * i / n, end = total * (i + 1) / n;
        if (begin < end) slices[(first + i) % n] = core::SliceRows(full, begin, end - begin);
      }
    }
    std::vector<pb::InsertRequest> requests(n);
    std::vector<size_t> targets;
    for (size_t s = 0; s < n; ++s) {
      if (slices[s].rows() == 0) continue;
      std::string raw = core::EncodeBlock(slices[s]);
      XXH128_hash_t digest = XXH3_128bits(raw.data(), raw.size());
      shard_digests_[s].append(reinterpret_cast<const char*>(&digest), sizeof(digest));
      pb::InsertRequest& request = requests[s];
      request.set_table(schema_.name);
      request.set_insert_id(token_);
      request.set_retain(true);
      request.mutable_block()->set_rows(slices[s].rows());
      request.mutable_block()->set_raw_size(raw.size());
      request.mutable_block()->set_data(core::CompressLz4(raw));
      for (size_t r = 0; r < workers_.replica_count(); ++r) {
        size_t p = workers_.ProcessIndex(s, r);
        if (failed_[p].empty()) targets.push_back(p);
      }
    }
    (void)workers_.CallEach(targets, [&](size_t p) -> absl::Status {
      touched_[p] = 1;
      pb::InsertRequest request = requests[workers_.ShardOf(p)];
      request.set_chunk(chunks_[p]);
      pb::InsertResponse response;
      grpc::ClientContext context;
      context.set_deadline(Deadline());
      absl::Status status = core::FromGrpcStatus(
          workers_.stub(p)->PrepareInsert(&context, request, &response), workers_.address(p));
      if (status.ok()) {
        ++chunks_[p];
      } else {
        failed_[p] = std::string(status.message());
      }
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

  void Abort() override {
    (void)workers_.CallEach(Touched(), [&](size_t p) -> absl::Status {
      AbortOn(p);
      return absl::OkStatus();
    });
  }

  absl::StatusOr<uint64_t> Commit() override {
    std::vector<size_t> committed(workers_.size(), 0);
    std::vector<std::string> ids(workers_.shard_count());
    for (size_t s = 0; s < ids.size(); ++s) ids[s] = BlockId(s);
    (void)workers_.CallEach(Touched(), [&](size_t p) -> absl::Status {
      if (!failed_[p].empty()) {
        AbortOn(p);
        return absl::OkStatus();
      }
      pb::CommitInsertRequest request;
      request.set_table(schema_.name);
      request.set_token(token_);
      request.set_block_id(ids[workers_.ShardOf(p)]);
      pb::CommitInsertResponse response;
      grpc::ClientContext context;
      context.set_deadline(Deadline());
      absl::Status status = core::FromGrpcStatus(
          workers_.stub(p)->CommitInsert(&context, request, &response), workers_.address(p));
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
    return rows_;
  }

 private:
  std::vector<size_t> Touched() const {
    std::vector<size_t> touched;
    for (size_t p = 0; p < touched_.size(); ++p) {
      if (touched_[p]) touched.push_back(p);
    }
    return touched;
  }

  void AbortOn(size_t p) {
    pb::AbortInsertRequest request;
    request.set_table(schema_.name);
    request.set_token(token_);
    pb::AbortInsertResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    (void)workers_.stub(p)->AbortInsert(&context, request, &response);
  }

  std::string BlockId(size_t shard) const {
    if (!options_.deduplicate) return "u:" + token_;
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

  const core::TableSchema& schema_;
  const WorkerSet& workers_;
  const ReplicationOptions options_;
  const size_t quorum_;
  const std::string token_;
  std::vector<size_t> key_columns_;
  std::vector<uint64_t> chunks_;      // per process: chunks prepared so far
  std::vector<uint8_t> touched_;      // per process: was sent a PrepareInsert
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

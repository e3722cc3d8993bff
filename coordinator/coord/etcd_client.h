// EtcdClient: granite's client for etcd v3's gRPC API (proto/etcd/), the coordination service
// that holds the catalog and the coordinators' membership when the coordinator runs with --etcd
// (docs/adr/0005-etcd-coordination.md). This file has the unary calls (Range, Put, DeleteRange,
// Txn, LeaseGrant, LeaseRevoke, one keep-alive round); etcd_watch.h runs the watch stream and
// etcd_session.h keeps a lease alive.
//
// Endpoints are members of one etcd cluster, "host:port[,host:port...]". A call whose endpoint is
// unavailable tries the others in turn before it fails, and the endpoint that answered is tried
// first by the next call. Every call has a deadline (Options::timeout), so a down or stopped etcd
// makes calls fail, never hang. Every failure is KEEPER_EXCEPTION (999, ClickHouse's code for its
// Keeper) with a message naming the endpoints and etcd's or gRPC's error.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace grpc {
class Channel;
}

namespace granite::coordinator {

// One key as etcd stores it (mvccpb.KeyValue).
struct EtcdKeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;  // the revision of its last change
  int64_t version = 0;       // changes since its creation
  int64_t lease = 0;
};

// The keys of a prefix and the store's revision they were read at.
struct EtcdRange {
  std::vector<EtcdKeyValue> kvs;  // by key
  int64_t revision = 0;
};

// One condition of a transaction (etcdserverpb.Compare).
struct EtcdCompare {
  enum class Target { kVersion, kCreateRevision, kModRevision, kValue };
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kVersion;
  Result result = Result::kEqual;
  int64_t number = 0;  // for the version and revision targets
  std::string value;   // for kValue

  // The key does not exist (its version is 0).
  static EtcdCompare Missing(std::string key);
  // The key's last change was at `revision` (0: the key does not exist).
  static EtcdCompare ModRevisionIs(std::string key, int64_t revision);
  static EtcdCompare ValueIs(std::string key, std::string value);
};

// One operation of a transaction (etcdserverpb.RequestOp).
struct EtcdOp {
  enum class Kind { kGet, kPut, kDelete };
  Kind kind = Kind::kGet;
  std::string key;
  std::string value;  // kPut
  int64_t lease = 0;  // kPut; 0: none
  bool prefix = false;  // kGet, kDelete: every key starting with `key`

  static EtcdOp Put(std::string key, std::string value, int64_t lease = 0);
  static EtcdOp Delete(std::string key);
  static EtcdOp DeletePrefix(std::string prefix);
  static EtcdOp GetPrefix(std::string prefix);
};

struct EtcdTxnResult {
  bool succeeded = false;  // the compares held and the success branch ran
  int64_t revision = 0;    // the store's revision after the transaction
  std::vector<std::vector<EtcdKeyValue>> gets;  // one per kGet of the branch that ran
};

// Thread-safety: every method may be called concurrently.
class EtcdClient {
 public:
  struct Options {
    std::chrono::milliseconds timeout{3000};  // deadline of each call (and each endpoint tried)
  };

  // Parses `endpoints` ("host:port[,host:port...]") and opens a channel to each; connects lazily.
  // Errors: BAD_ARGUMENTS on an empty list or an endpoint without a port.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Create(std::string_view endpoints,
                                                            Options options);
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Create(std::string_view endpoints) {
    return Create(endpoints, Options());
  }
  ~EtcdClient();

  // Returns the store's current revision (a linearizable read of `key`, which need not exist);
  // fails when no endpoint answers.
  absl::StatusOr<int64_t> Revision(const std::string& key);
  // Returns the key, or nullopt if it does not exist.
  absl::StatusOr<std::optional<EtcdKeyValue>> Get(const std::string& key);
  // Returns every key that starts with `prefix`.
  absl::StatusOr<EtcdRange> GetPrefix(const std::string& prefix);
  // Sets the key (attached to `lease` when not 0); returns the new revision.
  absl::StatusOr<int64_t> Put(const std::string& key, const std::string& value,
                              int64_t lease = 0);
  // Deletes the key; returns how many keys were deleted (0 or 1).
  absl::StatusOr<int64_t> Delete(const std::string& key);
  // Runs `success` if every compare holds, else `failure`, atomically.
  absl::StatusOr<EtcdTxnResult> Txn(const std::vector<EtcdCompare>& compares,
                                    const std::vector<EtcdOp>& success,
                                    const std::vector<EtcdOp>& failure = {});

  // Grants a lease of `ttl`; returns its id.
  absl::StatusOr<int64_t> GrantLease(std::chrono::seconds ttl);
  // Renews the lease once; returns its remaining TTL in seconds (0 when it has expired).
  absl::StatusOr<int64_t> KeepAlive(int64_t lease);
  // Revokes the lease: etcd deletes the keys attached to it.
  absl::Status RevokeLease(int64_t lease);

  // The endpoints as given ("a:2379,b:2379"), for messages.
  const std::string& endpoints() const { return endpoints_text_; }
  const Options& options() const { return options_; }
  size_t endpoint_count() const { return channels_.size(); }
  // The channel to try `attempt`-th (0: the one that last answered), for etcd_watch.h and
  // etcd_session.h.
  std::shared_ptr<grpc::Channel> ChannelFor(size_t attempt) const;
  // Records that the channel tried `attempt`-th answered.
  void Answered(size_t attempt);

  // Returns the end of `prefix`'s key range: `prefix` with its last byte incremented.
  static std::string PrefixEnd(std::string_view prefix);

 private:
  EtcdClient(std::vector<std::string> endpoints, Options options);

  const std::vector<std::string> endpoints_;
  const std::string endpoints_text_;
  const Options options_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;  // constant after construction
  std::atomic<size_t> preferred_{0};  // index of the endpoint that last answered
};

// Returns a KEEPER_EXCEPTION status: "<what> failed: etcd at <endpoints>: <detail>".
absl::Status KeeperError(const EtcdClient& client, std::string_view what,
                         std::string_view detail);

}  // namespace granite::coordinator

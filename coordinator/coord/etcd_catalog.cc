#include "coordinator/coord/etcd_catalog.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/cluster/table_name.h"
#include "core/error.h"
#include "core/keeper_error_codes.h"
#include "core/status_macros.h"
#include "core/wire/schema_codec.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

std::string EncodeSchemaForEtcd(const core::TableSchema& schema) {
  granite::worker::v1::TableSchema proto;
  core::wire::ToProto(schema, &proto);
  return proto.SerializeAsString();
}

absl::StatusOr<core::TableSchema> DecodeSchemaFromEtcd(const std::string& bytes) {
  granite::worker::v1::TableSchema proto;
  if (!proto.ParseFromString(bytes)) {
    return core::Error(core::ErrorCode::kCorruptedData, "A table schema in etcd does not parse");
  }
  return core::wire::FromProto(proto);
}

EtcdCatalog::EtcdCatalog(EtcdClient* client, Options options, Catalog* catalog)
    : client_(client),
      options_(std::move(options)),
      catalog_(catalog),
      session_(client, options_.ttl) {}

EtcdCatalog::~EtcdCatalog() { Stop(); }

absl::Status EtcdCatalog::Start() {
  // The catalog is loaded from the workers (which applied every DDL before etcd recorded it),
  // so the watch needs only the changes from now on.
  ASSIGN_OR_RETURN(int64_t revision, client_->Revision(VersionKey()));
  watch_ = std::make_unique<EtcdWatch>(
      client_, options_.prefix + "/", revision,
      [this](const std::vector<EtcdEvent>& events, int64_t applied) { Apply(events, applied); },
      [this] { return Resync(); });
  watch_->Start();
  session_.Start();
  // Registered as having applied everything up to now: the catalog is loaded from the workers.
  return session_.Keep(MembersPrefix() + options_.id, std::to_string(revision));
}

void EtcdCatalog::Stop() {
  if (watch_ != nullptr) watch_->Stop();
  session_.Stop();
}

void EtcdCatalog::Apply(const std::vector<EtcdEvent>& events, int64_t revision) {
  const std::string tables = TablesPrefix();
  const std::string databases = DatabasesPrefix();
  bool changed = false;
  for (const EtcdEvent& event : events) {
    const std::string& key = event.kv.key;
    changed = changed || absl::StartsWith(key, options_.prefix + "/catalog/") || key == AccessKey();
    if (absl::StartsWith(key, tables)) {
      const std::string name = key.substr(tables.size());
      if (event.deleted) {
        catalog_->Remove(name);
        continue;
      }
      absl::StatusOr<core::TableSchema> schema = DecodeSchemaFromEtcd(event.kv.value);
      if (schema.ok()) {
        catalog_->Put(*schema);
      } else {
        catalog_->Invalidate();  // the workers know the schema
      }
    } else if (absl::StartsWith(key, databases)) {
      const std::string name = key.substr(databases.size());
      if (event.deleted) {
        catalog_->RemoveDatabase(name);
      } else {
        catalog_->PutDatabase(name);
      }
    } else if (key == AccessKey() && !event.deleted) {
      absl::Status status = access::GrantStore::Current().InstallIfNewer(event.kv.value);
      if (!status.ok()) {
        std::fprintf(stderr, "etcd: cannot install the access entities of %s: %s\n", key.c_str(),
                     std::string(status.message()).c_str());
      }
    }
  }
  if (!changed) return;  // membership and lock changes: nothing for a DDL to wait for
  absl::Status acknowledged = session_.Keep(MembersPrefix() + options_.id, std::to_string(revision));
  if (!acknowledged.ok()) {
    std::fprintf(stderr, "etcd: cannot record the applied revision: %s\n",
                 std::string(acknowledged.message()).c_str());
  }
}

void EtcdCatalog::WaitForOthers(int64_t revision) {
  const auto deadline = std::chrono::steady_clock::now() + options_.apply_timeout;
  const std::string self = MembersPrefix() + options_.id;
  std::string behind;
  while (std::chrono::steady_clock::now() < deadline) {
    absl::StatusOr<EtcdRange> members = client_->GetPrefix(MembersPrefix());
    if (!members.ok()) return;  // etcd went away: the others catch up when it is back
    behind.clear();
    for (const EtcdKeyValue& member : members->kvs) {
      int64_t applied = 0;
      if (member.key == self || (absl::SimpleAtoi(member.value, &applied) && applied >= revision)) {
        continue;
      }
      behind += (behind.empty() ? "" : ", ") + member.key.substr(MembersPrefix().size());
    }
    if (behind.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::fprintf(stderr, "etcd: coordinators %s did not apply catalog revision %lld within %lld s\n",
               behind.c_str(), static_cast<long long>(revision),
               static_cast<long long>(options_.apply_timeout.count()));
}

absl::StatusOr<int64_t> EtcdCatalog::Resync() {
  catalog_->Invalidate();
  ASSIGN_OR_RETURN(int64_t revision, client_->Revision(VersionKey()));
  // The catalog is loaded again from the workers, which have every change up to now: a DDL
  // waiting for this coordinator need not wait for a change the watch will never deliver.
  RETURN_IF_ERROR(session_.Keep(MembersPrefix() + options_.id, std::to_string(revision)));
  return revision;
}

void EtcdCatalog::CatchUp() {
  if (watch_ == nullptr || !watch_->connected()) return;
  absl::StatusOr<std::optional<EtcdKeyValue>> version = client_->Get(VersionKey());
  if (!version.ok() || !version->has_value()) return;
  watch_->WaitFor((*version)->mod_revision, options_.catch_up_timeout);
}

absl::StatusOr<std::unique_ptr<EtcdCatalog::DdlLock>> EtcdCatalog::LockDdl() {
  ASSIGN_OR_RETURN(int64_t lease, session_.Lease());
  std::random_device random;
  const std::string token = absl::StrCat(options_.id, "#", random(), random());
  const auto deadline = std::chrono::steady_clock::now() + options_.lock_timeout;
  while (true) {
    absl::StatusOr<EtcdTxnResult> txn = client_->Txn({EtcdCompare::Missing(LockKey())},
                                                     {EtcdOp::Put(LockKey(), token, lease)},
                                                     {EtcdOp::GetPrefix(LockKey())});
    if (!txn.ok()) {
      // The lease expired while etcd was away: the next DDL gets a new one.
      if (absl::StrContains(txn.status().message(), "lease not found")) session_.Forget(lease);
      return txn.status();
    }
    const EtcdTxnResult& result = *txn;
    if (result.succeeded) break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::string holder = result.gets.empty() || result.gets[0].empty()
                               ? std::string("another coordinator")
                               : result.gets[0][0].value;
      return core::Error(core::kKeeperException,
                         "Cannot run DDL: " + holder + " has held the cluster's DDL lock (" +
                             LockKey() + " in etcd) for over " +
                             std::to_string(options_.lock_timeout.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::unique_ptr<DdlLock> lock(new DdlLock(this, token));
  CatchUp();
  return lock;
}

EtcdCatalog::DdlLock::~DdlLock() { owner_->Unlock(token_); }

void EtcdCatalog::Unlock(const std::string& token) {
  // Only this holder's lock: after a lease expiry another coordinator may hold it.
  client_->Txn({EtcdCompare::ValueIs(LockKey(), token)}, {EtcdOp::Delete(LockKey())})
      .status()
      .IgnoreError();
}

absl::Status EtcdCatalog::Publish(const DdlLock& lock) {
  ASSIGN_OR_RETURN(EtcdRange stored, client_->GetPrefix(options_.prefix + "/catalog/"));
  std::map<std::string, const EtcdKeyValue*> left;
  for (const EtcdKeyValue& kv : stored.kvs) left[kv.key] = &kv;
  left.erase(VersionKey());
  std::vector<EtcdOp> ops;
  for (const Catalog::Entry& entry : catalog_->Entries()) {
    const std::string key = TablesPrefix() + entry.schema.name;
    auto found = left.find(key);
    const EtcdKeyValue* kv = found == left.end() ? nullptr : found->second;
    left.erase(key);
    if (!entry.unusable.ok()) continue;  // as it was: the workers disagree about it
    if (kv != nullptr) {
      absl::StatusOr<core::TableSchema> schema = DecodeSchemaFromEtcd(kv->value);
      if (schema.ok() && *schema == entry.schema) continue;
    }
    ops.push_back(EtcdOp::Put(key, EncodeSchemaForEtcd(entry.schema)));
  }
  for (const std::string& database : catalog_->Databases()) {
    if (database == kDefaultDatabase || database == kSystemDatabase) continue;
    const std::string key = DatabasesPrefix() + database;
    if (left.erase(key) == 0) ops.push_back(EtcdOp::Put(key, ""));
  }
  for (const auto& [key, kv] : left) ops.push_back(EtcdOp::Delete(key));
  access::GrantStore& grants = access::GrantStore::Current();
  if (grants.loaded()) {
    const std::string text = grants.Snapshot().Serialize();
    ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> stored_text, client_->Get(AccessKey()));
    if (!stored_text.has_value() || stored_text->value != text) {
      ops.push_back(EtcdOp::Put(AccessKey(), text));
    }
  }
  if (ops.empty()) return absl::OkStatus();
  // etcd takes at most 128 operations per transaction (--max-txn-ops): a first DDL that records
  // a large existing catalog writes it in several, the version last.
  constexpr size_t kOpsPerTxn = 100;
  ops.push_back(EtcdOp::Put(VersionKey(), options_.id));
  int64_t revision = 0;
  for (size_t begin = 0; begin < ops.size(); begin += kOpsPerTxn) {
    std::vector<EtcdOp> chunk(ops.begin() + begin,
                              ops.begin() + std::min(ops.size(), begin + kOpsPerTxn));
    ASSIGN_OR_RETURN(EtcdTxnResult result,
                     client_->Txn({EtcdCompare::ValueIs(LockKey(), lock.token_)}, chunk));
    if (!result.succeeded) {
      return core::Error(core::kKeeperException,
                         "The DDL was applied on the workers but not recorded in etcd: this "
                         "coordinator lost the cluster's DDL lock (its etcd lease expired); the "
                         "next DDL records it");
    }
    revision = result.revision;
  }
  WaitForOthers(revision);
  return absl::OkStatus();
}

}  // namespace granite::coordinator

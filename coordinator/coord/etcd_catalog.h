// EtcdCatalog: the coordinator's catalog and access entities kept in etcd (--etcd), so that
// several coordinators of one cluster agree on them and see each other's DDL at once
// (docs/adr/0005-etcd-coordination.md). Workers still hold the data and their own copy of
// each schema; etcd holds the agreed record, written after the workers applied a DDL.
//
// Keys under the prefix P (--etcd_prefix, default /granite/default):
//   P/catalog/tables/<name>     a table's or view's schema (granite.worker.v1.TableSchema bytes)
//   P/catalog/databases/<name>  a database ("")
//   P/catalog/version           rewritten by every change: its mod_revision is the catalog's
//   P/access                    the access entities' text (coordinator/access/grant_store.h)
//   P/locks/ddl                 the coordinator running a DDL (attached to its lease)
//   P/coordinators/<id>         each running coordinator (id: its address), attached to its
//                               lease; the value is the last revision its catalog applied
//
// DDL: LockDdl takes the cluster's DDL lock (waiting for another coordinator's DDL to end) and
// catches up with the changes it made; the statement runs on the workers as without etcd; then
// Publish writes the catalog as this coordinator now has it, in one transaction that holds only
// if this coordinator still holds the lock, and waits until every other live coordinator has
// applied it. Every coordinator's watch applies the changes to its in-memory Catalog and
// GrantStore and then records the revision in its P/coordinators/<id> key: a DDL acknowledged
// by one coordinator is visible to the next statement on any other, and statements themselves
// never wait for etcd (ClickHouse's distributed DDL waits for its hosts the same way). A
// coordinator that stops answering drops out of the wait when its lease expires (TTL). With etcd
// down, statements run on the cached catalog and LockDdl fails with KEEPER_EXCEPTION.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/cluster/catalog.h"
#include "coordinator/coord/etcd_client.h"
#include "coordinator/coord/etcd_session.h"
#include "coordinator/coord/etcd_watch.h"

namespace granite::coordinator {

// Thread-safety: every public method may be called concurrently, after Start.
class EtcdCatalog {
 public:
  struct Options {
    std::string prefix = "/granite/default";  // no trailing '/'
    std::string id;                           // this coordinator's name: its address
    std::chrono::seconds ttl{5};              // of the lease behind the lock and membership
    std::chrono::milliseconds catch_up_timeout{2000};
    std::chrono::seconds lock_timeout{180};   // ClickHouse's distributed_ddl_task_timeout
    // How long Publish waits for the other coordinators to apply a change (one whose lease
    // expires drops out of the wait sooner).
    std::chrono::seconds apply_timeout{30};
  };

  // Holds the cluster's DDL lock until destroyed (released best effort; etcd drops it with the
  // lease when this coordinator dies).
  class DdlLock {
   public:
    ~DdlLock();
    DdlLock(const DdlLock&) = delete;
    DdlLock& operator=(const DdlLock&) = delete;

   private:
    friend class EtcdCatalog;
    DdlLock(EtcdCatalog* owner, std::string token) : owner_(owner), token_(std::move(token)) {}
    EtcdCatalog* const owner_;
    const std::string token_;  // the lock key's value while this holds it
  };

  // REQUIRES: `client` and `catalog` outlive this object.
  EtcdCatalog(EtcdClient* client, Options options, Catalog* catalog);
  ~EtcdCatalog();  // Stop()

  // Reads etcd's revision (failing if etcd does not answer: a bad --etcd stops the start-up),
  // starts the watch from it and the lease, and registers P/coordinators/<id>.
  absl::Status Start();
  // Stops the watch, revokes the lease (deregistering this coordinator).
  void Stop();

  // Waits (at most catch_up_timeout) until the watch has applied every catalog change etcd had
  // when called (one linearizable read). Never fails: with etcd or the watch down it returns at
  // once.
  void CatchUp();
  // Takes the DDL lock, waiting up to lock_timeout for another coordinator's DDL, then catches up.
  // Errors: KEEPER_EXCEPTION when etcd cannot be reached or the wait times out.
  absl::StatusOr<std::unique_ptr<DdlLock>> LockDdl();
  // Writes this coordinator's catalog (its usable tables, its databases) and access entities
  // to etcd where they differ, in one transaction conditioned on `lock`, then waits (at most
  // apply_timeout) until every other live coordinator has applied it. Tables the catalog marks
  // unusable keep their keys. Errors: KEEPER_EXCEPTION (etcd down, or the lock was lost).
  // REQUIRES: the catalog is loaded.
  absl::Status Publish(const DdlLock& lock);

  const std::string& prefix() const { return options_.prefix; }
  EtcdClient* client() const { return client_; }

 private:
  // Applies watched changes to the catalog and the access entities, then records `revision` as
  // applied (when they changed anything).
  void Apply(const std::vector<EtcdEvent>& events, int64_t revision);
  // Waits until every other registered coordinator has applied `revision`, or apply_timeout.
  void WaitForOthers(int64_t revision);
  // After a compaction: the catalog is loaded again by the next statement, and this coordinator
  // counts as having applied everything up to now.
  absl::StatusOr<int64_t> Resync();
  void Unlock(const std::string& token);

  std::string TablesPrefix() const { return options_.prefix + "/catalog/tables/"; }
  std::string DatabasesPrefix() const { return options_.prefix + "/catalog/databases/"; }
  std::string VersionKey() const { return options_.prefix + "/catalog/version"; }
  std::string AccessKey() const { return options_.prefix + "/access"; }
  std::string LockKey() const { return options_.prefix + "/locks/ddl"; }
  std::string MembersPrefix() const { return options_.prefix + "/coordinators/"; }

  // Constant after construction.
  EtcdClient* const client_;
  const Options options_;
  Catalog* const catalog_;
  EtcdSession session_;
  std::unique_ptr<EtcdWatch> watch_;  // set by Start
};

// The etcd value of a schema, and back (CORRUPTED_DATA if it does not parse).
std::string EncodeSchemaForEtcd(const core::TableSchema& schema);
absl::StatusOr<core::TableSchema> DecodeSchemaFromEtcd(const std::string& bytes);

}  // namespace granite::coordinator

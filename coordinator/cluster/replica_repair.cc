#include "coordinator/cluster/replica_repair.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/cluster/shard_log.h"
#include "coordinator/cluster/two_phase_insert.h"
#include "coordinator/cluster/worker_client.h"
#include "core/chunk_checksum.h"
#include "core/error.h"
#include "core/settings/settings.h"
#include "core/thread_name.h"

namespace granite::coordinator {

namespace api = core::worker_api;

namespace {

// Copying a missed block: each chunk may be large, so a minute per call.
const InsertTimeouts kCopyTimeouts = {std::chrono::seconds(60), std::chrono::seconds(60),
                                      std::chrono::seconds(10)};
// Copying a table whole: bounded only so that a hung peer does not hold the loop for ever.
constexpr std::chrono::hours kCloneTimeout{6};

std::string RepairToken() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  char text[40];
  std::snprintf(text, sizeof(text), "repair%016llx%016llx",
                static_cast<unsigned long long>(random()), static_cast<unsigned long long>(random()));
  return text;
}

// Copies block `name` of `table` to process `p` from a peer of its shard that retains its rows.
absl::Status CopyBlock(const WorkerSet& w, const WorkerClient& client, const std::string& table,
                       const std::string& name, size_t p,
                       const std::vector<size_t>& peers_with_rows) {
  absl::Status result = core::Error(core::ErrorCode::kNoSuchDataPart,
                                    "no reachable replica keeps the rows of block " + name);
  for (size_t q : peers_with_rows) {
    auto block = client.GetBlock(q, table, name, std::chrono::seconds(60));
    result = block.status();
    if (!result.ok()) continue;
    core::ChunkChecksum sum;
    for (const auto& chunk : block->chunks) sum.Add(chunk.rows, chunk.raw_size, chunk.data);
    if (sum.Digest() != block->checksum) {
      result = core::Error(core::ErrorCode::kChecksumDoesntMatch,
                           "block " + name + " from " + w.address(q) +
                               " arrived with a wrong checksum");
      continue;
    }
    TwoPhaseInsert copy(w, table, RepairToken(), kCopyTimeouts);
    for (size_t k = 0; k < block->chunks.size() && result.ok(); ++k) {
      result = copy.Prepare(p, std::move(block->chunks[k]));
    }
    if (result.ok()) result = copy.Commit(p, block->block_id);
    if (result.ok()) return result;
    copy.Abort(p);
  }
  return result;
}

// Creates on each replica the databases, tables and access entities a peer of its shard holds
// and it lacks (a wiped data directory). Replicas that did not answer are left alone.
// Returns how many it created.
// Only what was missing in the previous pass too (`*seen`, updated) is created: a CREATE or DROP
// running on the replicas right now also leaves one replica without the table for a moment.
size_t RestoreCatalog(const WorkerSet& w, const WorkerClient& client,
                    const std::vector<api::TableListing>& listings,
                    const std::vector<std::string>& list_errors,
                    std::set<std::pair<size_t, std::string>>* seen) {
  std::set<std::pair<size_t, std::string>> missing;
  auto confirmed = [&](size_t p, const std::string& what) {
    missing.emplace(p, what);
    return seen->count({p, what}) > 0;
  };
  size_t created = 0;
  for (size_t s = 0; s < w.shard_count(); ++s) {
    for (size_t r = 0; r < w.replica_count(); ++r) {
      const size_t p = w.ProcessIndex(s, r);
      if (!list_errors[p].empty()) continue;
      std::set<std::string> databases(listings[p].databases.begin(), listings[p].databases.end());
      std::set<std::string> tables;
      for (const auto& table : listings[p].tables) tables.insert(table.schema.name);
      for (const auto& broken : listings[p].broken_tables) tables.insert(broken.name);
      for (size_t o = 0; o < w.replica_count(); ++o) {
        const size_t q = w.ProcessIndex(s, o);
        if (q == p || !list_errors[q].empty()) continue;
        for (const std::string& database : listings[q].databases) {
          if (!databases.insert(database).second || !confirmed(p, "database " + database)) continue;
          api::CatalogOpRequest create;
          create.kind = api::CatalogOpRequest::Kind::kCreateDatabase;
          create.name = database;
          create.if_exists = true;
          created += client.CatalogOp(p, create, std::chrono::seconds(10)).ok();
        }
        for (const auto& table : listings[q].tables) {
          if (!tables.insert(table.schema.name).second ||
              !confirmed(p, "table " + table.schema.name)) {
            continue;
          }
          api::CreateTableRequest create;
          create.schema = table.schema;
          create.if_not_exists = true;
          absl::Status made = client.CreateTable(p, create, std::chrono::seconds(30));
          created += made.ok();
          std::fprintf(stderr, "granite coordinator: replica %s lacked table %s: %s\n",
                       w.address(p).c_str(), table.schema.name.c_str(),
                       made.ok() ? "created from its peer's schema"
                                 : std::string(made.message()).c_str());
        }
        if (listings[p].access.empty() && !listings[q].access.empty() &&
            confirmed(p, "access")) {
          api::CatalogOpRequest access;
          access.kind = api::CatalogOpRequest::Kind::kSetAccess;
          access.new_name = listings[q].access;
          created += client.CatalogOp(p, access, std::chrono::seconds(10)).ok();
        }
      }
    }
  }
  *seen = std::move(missing);
  return created;
}

}  // namespace

// What one replica holds of one table.
struct ReplicaRepair::Holdings {
  bool reachable = false;
  std::string error;
  uint64_t rows = 0;
  std::map<std::string, bool> blocks;  // name -> has its rows
};

ReplicaRepair::ReplicaRepair(const WorkerSet* workers, std::chrono::milliseconds interval)
    : workers_(workers), interval_(interval), repaired_(workers->size(), 0),
      clones_(workers->size(), 0) {}

ReplicaRepair::~ReplicaRepair() {
  {
    core::MutexLock lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReplicaRepair::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void ReplicaRepair::Loop() {
  core::SetCurrentThreadName("replica_repair");
  while (true) {
    {
      core::MutexLock lock(stop_mu_);
      stop_cv_.wait_for(stop_mu_, interval_, [this]() NO_THREAD_SAFETY_ANALYSIS { return stopping_; });
      if (stopping_) return;
    }
    RunOnce();
  }
}

size_t ReplicaRepair::RunOnce() {
  const WorkerSet& w = *workers_;
  const size_t n = w.size();
  const WorkerClient client(w);
  std::vector<api::TableListing> listings(n);
  std::vector<std::string> list_errors(n);
  auto list = [&] {
    (void)w.CallAll([&](size_t p) {
      auto listing = client.ListTables(p, std::chrono::seconds(5));
      if (listing.ok()) {
        listings[p] = *std::move(listing);
        list_errors[p].clear();
      } else {
        list_errors[p] = std::string(listing.status().message());
      }
      return absl::OkStatus();
    });
  };
  list();
  // A replica's catalog is restored before its rows (listed again when something was made).
  size_t created = 0;
  {
    core::MutexLock lock(counts_mu_);
    created = RestoreCatalog(w, client, listings, list_errors, &missing_catalog_);
  }
  if (created > 0) list();
  std::map<std::string, uint64_t> tables;  // name -> replicated_deduplication_window
  for (const auto& listing : listings) {
    for (const auto& table : listing.tables) {
      core::TableSettings settings;
      (void)settings.ApplyKnown(table.schema.settings);  // validated at CREATE
      tables[table.schema.name] = settings.replicated_deduplication_window;
    }
  }
  size_t copied = 0;
  std::vector<ReplicaState> states;
  for (const auto& entry : tables) {
    const std::string& table = entry.first;
    const uint64_t window = entry.second;
    std::vector<Holdings> holdings(n);
    (void)w.CallAll([&](size_t p) {
      if (!list_errors[p].empty()) {
        holdings[p].error = list_errors[p];
        return absl::OkStatus();
      }
      for (const auto& info : listings[p].tables) {
        if (info.schema.name == table) holdings[p].rows = info.rows;
      }
      auto blocks = client.ListBlocks(p, table, std::chrono::seconds(5));
      if (!blocks.ok()) {
        holdings[p].error = std::string(blocks.status().message());
        return absl::OkStatus();
      }
      holdings[p].reachable = true;
      for (const auto& block : *blocks) holdings[p].blocks[block.id] = block.has_data;
      return absl::OkStatus();
    });
    for (size_t s = 0; s < w.shard_count(); ++s) {
      copied += RepairShard(table, window, s, holdings, &states);
    }
  }
  w.monitor()->PublishStates(std::move(states));
  return copied;
}

size_t ReplicaRepair::RepairShard(const std::string& table, uint64_t window, size_t s,
                                  std::vector<Holdings>& holdings,
                                  std::vector<ReplicaState>* states) {
  const WorkerSet& w = *workers_;
  const WorkerClient client(w);
  const size_t replicas = w.replica_count();
  // Every block the shard committed: the shard log's (when there is one) and the replicas'.
  std::vector<std::string> logged;
  std::string log_error;
  if (ShardLog* log = w.shard_log(); log != nullptr) {
    auto listed = log->List(table, s);
    if (listed.ok()) {
      logged = *std::move(listed);
    } else {
      log_error = std::string(listed.status().message());
    }
  }
  std::set<std::string> all(logged.begin(), logged.end());
  bool every_reachable = true;
  for (size_t r = 0; r < replicas; ++r) {
    const Holdings& h = holdings[w.ProcessIndex(s, r)];
    every_reachable = every_reachable && h.reachable;
    for (const auto& [name, has_data] : h.blocks) all.insert(name);
  }
  // The replicas keep the ids of settled blocks beyond their `keep` most recent ones
  // (BlockLog::Prune): twice the deduplication window, so that they outlast the shard log's
  // window (trimmed to `window` once a tenth over).
  const uint64_t keep = 2 * window;
  // Settled: held by a reachable replica, its rows retained by none (so every replica held it
  // when it was released, and none can re-send it). A replica that lacks a settled block while
  // it holds `keep` blocks has forgotten it, not lost it: one that lost its ids lacks the recent
  // blocks too, and one that lost parts beside its ids is found by its rows.
  // Whether a reachable replica of the shard holds block `name`, and whether one of those
  // keeps its rows.
  const auto holders = [&](const std::string& name) {
    bool held = false, kept = false;
    for (size_t r = 0; r < replicas; ++r) {
      const Holdings& peer = holdings[w.ProcessIndex(s, r)];
      auto it = peer.blocks.find(name);
      if (!peer.reachable || it == peer.blocks.end()) continue;
      held = true;
      kept = kept || it->second;
    }
    return std::make_pair(held, kept);
  };
  std::set<std::string> settled;
  for (const std::string& name : all) {
    const auto [held, kept] = holders(name);
    if (held && !kept) settled.insert(name);
  }
  const auto forgot = [&](const Holdings& h, const std::string& name) {
    return h.blocks.size() >= keep && h.blocks.count(name) == 0 && settled.count(name) > 0;
  };
  size_t copied = 0;
  std::vector<std::string> errors(replicas);
  for (size_t r = 0; r < replicas; ++r) {
    const size_t p = w.ProcessIndex(s, r);
    Holdings& h = holdings[p];
    if (!h.reachable) continue;
    // Which peers keep each missing block's rows; the best source of a whole copy: a reachable
    // peer holding every block this replica holds (or having forgotten it), with the most blocks
    // (then rows).
    bool unretained = false;
    std::vector<std::string> missing;
    for (const std::string& name : all) {
      if (h.blocks.count(name) == 0 && !forgot(h, name)) missing.push_back(name);
    }
    constexpr size_t kNone = static_cast<size_t>(-1);
    size_t source = kNone;
    for (size_t o = 0; o < replicas; ++o) {
      const size_t q = w.ProcessIndex(s, o);
      const Holdings& peer = holdings[q];
      if (q == p || !peer.reachable) continue;
      bool superset = std::all_of(h.blocks.begin(), h.blocks.end(), [&](const auto& b) {
        return peer.blocks.count(b.first) > 0 || forgot(peer, b.first);
      });
      if (!superset) continue;
      if (source == kNone || peer.blocks.size() > holdings[source].blocks.size() ||
          (peer.blocks.size() == holdings[source].blocks.size() &&
           peer.rows > holdings[source].rows)) {
        source = q;
      }
    }
    // A logged block no reachable replica holds (its holders are down) waits for them.
    std::set<std::string> orphans;
    for (const std::string& name : missing) {
      const auto [held, kept] = holders(name);
      if (!held) orphans.insert(name);
      unretained = unretained || (held && !kept);
    }
    if (!orphans.empty()) {
      errors[r] = std::to_string(orphans.size()) +
                  " blocks of the shard log are on no reachable replica (first: " +
                  *orphans.begin() + ")";
    }
    // Fewer rows than a peer with the same blocks (it misses none, the peer holds all of its
    // own; forgotten settled ones aside), pass after pass: parts lost beside their ids.
    bool suspect = false;
    {
      core::MutexLock lock(counts_mu_);
      int& passes = suspect_[{table, p}];
      const bool fewer = missing.empty() && source != kNone && holdings[source].rows > h.rows;
      passes = fewer ? passes + 1 : 0;
      suspect = passes >= kSuspectPasses;
      if (suspect) passes = 0;
    }
    if (unretained || suspect) {
      if (source == kNone) {
        errors[r] = "no reachable peer holds every block this replica holds, so none can be copied";
        continue;
      }
      w.monitor()->MarkState(p, table, "cloning");
      const auto started = std::chrono::steady_clock::now();
      auto cloned = client.CloneReplica(p, table, w.address(source), kCloneTimeout);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      if (!cloned.ok()) {
        errors[r] = "copying the table from " + w.address(source) + ": " +
                    std::string(cloned.status().message());
        continue;
      }
      std::fprintf(stderr,
                   "granite coordinator: replica %s copied table %s from %s: %llu parts, %llu "
                   "rows, %llu bytes in %.3f s\n",
                   w.address(p).c_str(), table.c_str(), w.address(source).c_str(),
                   static_cast<unsigned long long>(cloned->parts),
                   static_cast<unsigned long long>(cloned->rows),
                   static_cast<unsigned long long>(cloned->bytes), took.count());
      copied += missing.size() - orphans.size();
      h.blocks.clear();
      for (const auto& [name, has_data] : holdings[source].blocks) h.blocks[name] = false;
      h.rows = cloned->rows;
      core::MutexLock lock(counts_mu_);
      ++clones_[p];
      continue;
    }
    // Re-send what it lacks from a peer that keeps the rows.
    for (const std::string& name : missing) {
      if (orphans.count(name) > 0) continue;
      std::vector<size_t> peers;
      for (size_t o = 0; o < replicas; ++o) {
        const size_t q = w.ProcessIndex(s, o);
        auto it = holdings[q].blocks.find(name);
        if (q != p && it != holdings[q].blocks.end() && it->second) peers.push_back(q);
      }
      absl::Status result = CopyBlock(w, client, table, name, p, peers);
      if (!result.ok()) {
        errors[r] = std::string(result.message());
        continue;
      }
      h.blocks[name] = false;
      ++copied;
      core::MutexLock lock(counts_mu_);
      ++repaired_[p];
    }
  }
  // Blocks every replica has no longer need their rows kept. Once a replica holds a tenth more
  // ids than `keep`, every replica is told the blocks settled on all of them (held without rows,
  // or forgotten), and forgets those beyond its `keep` most recent.
  if (every_reachable) {
    bool over = false;
    for (size_t r = 0; r < replicas; ++r) {
      over = over || holdings[w.ProcessIndex(s, r)].blocks.size() > keep + keep / 10;
    }
    std::vector<std::string> forgettable;
    for (const std::string& name : over ? settled : std::set<std::string>{}) {
      bool everywhere = true;
      for (size_t r = 0; r < replicas && everywhere; ++r) {
        const Holdings& h = holdings[w.ProcessIndex(s, r)];
        auto it = h.blocks.find(name);
        everywhere = it != h.blocks.end() ? !it->second : forgot(h, name);
      }
      if (everywhere) forgettable.push_back(name);
    }
    for (size_t r = 0; r < replicas; ++r) {
      const size_t p = w.ProcessIndex(s, r);
      std::vector<std::string> release;
      for (const auto& [name, has_data] : holdings[p].blocks) {
        if (!has_data) continue;
        bool everywhere = true;
        for (size_t o = 0; o < replicas; ++o) {
          everywhere = everywhere && holdings[w.ProcessIndex(s, o)].blocks.count(name) > 0;
        }
        if (everywhere) release.push_back(name);
      }
      if (release.empty() && forgettable.empty()) continue;
      absl::Status released = client.ReleaseBlocks(p, table, release, std::chrono::seconds(10),
                                                   forgettable, keep);
      if (released.ok()) {
        for (const std::string& name : release) holdings[p].blocks[name] = false;
      }
    }
  }
  // The log keeps the `window` most recent blocks (ClickHouse's replicated_deduplication_window),
  // trimmed once it is a tenth over, so that most passes write nothing.
  if (!logged.empty() && logged.size() > window + window / 10) {
    std::vector<std::string> oldest(logged.begin(), logged.end() - static_cast<ptrdiff_t>(window));
    absl::Status trimmed = w.shard_log()->Forget(table, s, oldest);
    if (!trimmed.ok()) log_error = std::string(trimmed.message());
  }
  for (size_t r = 0; r < replicas; ++r) {
    const size_t p = w.ProcessIndex(s, r);
    const Holdings& h = holdings[p];
    if (errors[r].empty() && !log_error.empty()) errors[r] = "shard log: " + log_error;
    ReplicaState state;
    state.process = p;
    state.table = table;
    state.reachable = h.reachable;
    state.blocks = h.blocks.size();
    state.rows = h.rows;
    for (const std::string& name : all) {
      state.blocks_behind += h.blocks.count(name) == 0 && !forgot(h, name);
    }
    for (const auto& [name, has_data] : h.blocks) state.retained += has_data;
    {
      core::MutexLock lock(counts_mu_);
      state.repaired = repaired_[p];
      state.clones = clones_[p];
    }
    state.last_error = h.reachable ? errors[r] : h.error;
    state.state = !h.reachable ? "unreachable" : state.blocks_behind > 0 ? "lagging" : "active";
    state.last_check = std::chrono::system_clock::now();
    states->push_back(std::move(state));
  }
  return copied;
}

}  // namespace granite::coordinator

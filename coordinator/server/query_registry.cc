#include "coordinator/server/query_registry.h"

#include <algorithm>

#include "coordinator/access/users_file.h"
#include "core/error.h"
#include "core/hash.h"

namespace granite::coordinator {

struct QueryRegistry::Shard {
  mutable core::Mutex mu{"query_registry"};
  std::vector<QueryContext*> running GUARDED_BY(mu);
  std::deque<QueryLogEntry> log GUARDED_BY(mu);
};

namespace {

RunningQuery Describe(const QueryContext& query) {
  RunningQuery out;
  out.query_id = query.query_id();
  if (query.user != nullptr) out.user = query.user->name;
  out.query = query.query();
  out.kind = query.kind();
  out.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - query.start()).count();
  out.read_rows = query.read_rows.load();
  out.read_bytes = query.read_bytes.load();
  out.queued = query.queued.load();
  out.memory_usage = query.memory().current();
  out.peak_memory_usage = query.memory().peak();
  return out;
}

}  // namespace

QueryRegistry::QueryRegistry(size_t log_capacity)
    : log_capacity_per_shard_(std::max<size_t>(1, (log_capacity + kShards - 1) / kShards)),
      shards_(new Shard[kShards]) {}

QueryRegistry::~QueryRegistry() = default;

QueryRegistry::Shard& QueryRegistry::ShardOf(const std::string& query_id) const {
  return shards_[core::HashBytes(query_id) % kShards];
}

absl::Status QueryRegistry::Start(QueryContext* query) {
  Shard& shard = ShardOf(query->query_id());
  core::MutexLock lock(shard.mu);
  for (const QueryContext* running : shard.running) {
    if (running->query_id() == query->query_id()) {
      return core::Error(core::ErrorCode::kQueryWithSameIdIsAlreadyRunning,
                         "Query with id = " + query->query_id() + " is already running");
    }
  }
  shard.running.push_back(query);
  return absl::OkStatus();
}

void QueryRegistry::Finish(QueryContext* query, QueryLogEntry entry) {
  Shard& shard = ShardOf(query->query_id());
  core::MutexLock lock(shard.mu);
  auto it = std::find(shard.running.begin(), shard.running.end(), query);
  if (it != shard.running.end()) {
    *it = shard.running.back();
    shard.running.pop_back();
  }
  shard.log.push_back(std::move(entry));
  while (shard.log.size() > log_capacity_per_shard_) shard.log.pop_front();
}

std::vector<RunningQuery> QueryRegistry::Cancel(const std::string& query_id) {
  Shard& shard = ShardOf(query_id);
  std::vector<RunningQuery> cancelled;
  core::MutexLock lock(shard.mu);
  for (QueryContext* query : shard.running) {
    if (query->query_id() != query_id) continue;
    query->Cancel();
    cancelled.push_back(Describe(*query));
  }
  return cancelled;
}

bool QueryRegistry::IsRunning(const std::string& query_id) const {
  Shard& shard = ShardOf(query_id);
  core::MutexLock lock(shard.mu);
  for (const QueryContext* query : shard.running) {
    if (query->query_id() == query_id) return true;
  }
  return false;
}

std::vector<RunningQuery> QueryRegistry::Running() const {
  std::vector<RunningQuery> out;
  for (size_t i = 0; i < kShards; ++i) {
    core::MutexLock lock(shards_[i].mu);
    for (const QueryContext* query : shards_[i].running) out.push_back(Describe(*query));
  }
  std::sort(out.begin(), out.end(), [](const RunningQuery& a, const RunningQuery& b) {
    return a.elapsed_seconds > b.elapsed_seconds;
  });
  return out;
}

size_t QueryRegistry::RunningCount() const {
  size_t count = 0;
  for (size_t i = 0; i < kShards; ++i) {
    core::MutexLock lock(shards_[i].mu);
    count += shards_[i].running.size();
  }
  return count;
}

std::vector<QueryLogEntry> QueryRegistry::Log() const {
  std::vector<QueryLogEntry> out;
  for (size_t i = 0; i < kShards; ++i) {
    core::MutexLock lock(shards_[i].mu);
    out.insert(out.end(), shards_[i].log.begin(), shards_[i].log.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const QueryLogEntry& a, const QueryLogEntry& b) {
    return a.finish_time < b.finish_time;
  });
  return out;
}

}  // namespace granite::coordinator

#include "coordinator/cluster/replica_repair.h"

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "coordinator/cluster/two_phase_insert.h"
#include "coordinator/cluster/worker_client.h"
#include "core/chunk_checksum.h"
#include "core/error.h"
#include "core/thread_name.h"

namespace granite::coordinator {

namespace {

// Copying a missed block: each chunk may be large, so a minute per call.
const InsertTimeouts kCopyTimeouts = {std::chrono::seconds(60), std::chrono::seconds(60),
                                      std::chrono::seconds(10)};

std::string RepairToken() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  char text[40];
  std::snprintf(text, sizeof(text), "repair%016llx%016llx",
                static_cast<unsigned long long>(random()), static_cast<unsigned long long>(random()));
  return text;
}

// What one replica holds of one table.
struct Holdings {
  bool reachable = false;
  std::string error;
  std::map<std::string, bool> blocks;  // name -> has its rows
};

}  // namespace

ReplicaRepair::ReplicaRepair(const WorkerSet* workers, std::chrono::milliseconds interval)
    : workers_(workers), interval_(interval), repaired_(workers->size(), 0) {}

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
  // Every table any replica has.
  const WorkerClient client(w);
  std::vector<core::worker_api::TableListing> listings(n);
  std::vector<std::string> list_errors(n);
  (void)w.CallAll([&](size_t p) {
    auto listing = client.ListTables(p, std::chrono::seconds(5));
    if (listing.ok()) {
      listings[p] = *std::move(listing);
    } else {
      list_errors[p] = std::string(listing.status().message());
    }
    return absl::OkStatus();
  });
  std::set<std::string> tables;
  for (const auto& listing : listings) {
    for (const auto& table : listing.tables) tables.insert(table.schema.name);
  }
  size_t copied = 0;
  std::vector<ReplicaState> states;
  for (const std::string& table : tables) {
    std::vector<Holdings> holdings(n);
    (void)w.CallAll([&](size_t p) {
      if (!list_errors[p].empty()) {
        holdings[p].error = list_errors[p];
        return absl::OkStatus();
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
      std::set<std::string> all;
      bool every_reachable = true;
      for (size_t r = 0; r < w.replica_count(); ++r) {
        const Holdings& h = holdings[w.ProcessIndex(s, r)];
        every_reachable = every_reachable && h.reachable;
        for (const auto& [name, has_data] : h.blocks) all.insert(name);
      }
      std::vector<std::string> errors(w.replica_count());
      // Copy what each reachable replica lacks from a peer that keeps the rows.
      for (size_t r = 0; r < w.replica_count(); ++r) {
        const size_t p = w.ProcessIndex(s, r);
        Holdings& h = holdings[p];
        if (!h.reachable) continue;
        for (const std::string& name : all) {
          if (h.blocks.count(name)) continue;
          absl::Status result = core::Error(core::ErrorCode::kNoSuchDataPart,
                                            "no reachable replica keeps the rows of block " + name);
          for (size_t q_r = 0; q_r < w.replica_count(); ++q_r) {
            const size_t q = w.ProcessIndex(s, q_r);
            auto it = holdings[q].blocks.find(name);
            if (q == p || it == holdings[q].blocks.end() || !it->second) continue;
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
              result = copy.Prepare(p, block->chunks[k]);
            }
            if (result.ok()) result = copy.Commit(p, block->block_id);
            if (!result.ok()) {
              copy.Abort(p);
              continue;
            }
            break;
          }
          if (result.ok()) {
            h.blocks[name] = false;
            ++copied;
            core::MutexLock lock(repaired_mu_);
            ++repaired_[p];
          } else {
            errors[r] = std::string(result.message());
          }
        }
      }
      // Blocks every replica has no longer need their rows kept.
      if (every_reachable) {
        for (size_t r = 0; r < w.replica_count(); ++r) {
          const size_t p = w.ProcessIndex(s, r);
          std::vector<std::string> release;
          for (const auto& [name, has_data] : holdings[p].blocks) {
            if (!has_data) continue;
            bool everywhere = true;
            for (size_t o = 0; o < w.replica_count(); ++o) {
              everywhere = everywhere && holdings[w.ProcessIndex(s, o)].blocks.count(name) > 0;
            }
            if (everywhere) release.push_back(name);
          }
          if (release.empty()) continue;
          absl::Status released =
              client.ReleaseBlocks(p, table, release, std::chrono::seconds(10));
          if (released.ok()) {
            for (const std::string& name : release) holdings[p].blocks[name] = false;
          }
        }
      }
      for (size_t r = 0; r < w.replica_count(); ++r) {
        const size_t p = w.ProcessIndex(s, r);
        const Holdings& h = holdings[p];
        ReplicaState state;
        state.process = p;
        state.table = table;
        state.reachable = h.reachable;
        state.blocks = h.blocks.size();
        for (const std::string& name : all) state.blocks_behind += h.blocks.count(name) == 0;
        for (const auto& [name, has_data] : h.blocks) state.retained += has_data;
        {
          core::MutexLock lock(repaired_mu_);
          state.repaired = repaired_[p];
        }
        state.last_error = h.reachable ? errors[r] : h.error;
        state.last_check = std::chrono::system_clock::now();
        states.push_back(std::move(state));
      }
    }
  }
  w.monitor()->PublishStates(std::move(states));
  return copied;
}

}  // namespace granite::coordinator

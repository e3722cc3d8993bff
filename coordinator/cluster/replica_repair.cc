#include "coordinator/cluster/replica_repair.h"

#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/chunk_checksum.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/thread_name.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

std::chrono::system_clock::time_point In(std::chrono::seconds s) {
  return std::chrono::system_clock::now() + s;
}

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
  std::vector<pb::ListTablesResponse> listings(n);
  std::vector<std::string> list_errors(n);
  (void)w.CallAll([&](size_t p) {
    grpc::ClientContext context;
    context.set_deadline(In(std::chrono::seconds(5)));
    absl::Status status = core::FromGrpcStatus(
        w.stub(p)->ListTables(&context, pb::ListTablesRequest(), &listings[p]), w.address(p));
    if (!status.ok()) list_errors[p] = std::string(status.message());
    return absl::OkStatus();
  });
  std::set<std::string> tables;
  for (const auto& listing : listings) {
    for (const auto& table : listing.tables()) tables.insert(table.schema().name());
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
      pb::ListBlocksRequest request;
      request.set_table(table);
      pb::ListBlocksResponse response;
      grpc::ClientContext context;
      context.set_deadline(In(std::chrono::seconds(5)));
      absl::Status status = core::FromGrpcStatus(
          w.stub(p)->ListBlocks(&context, request, &response), w.address(p));
      if (!status.ok()) {
        holdings[p].error = std::string(status.message());
        return absl::OkStatus();
      }
      holdings[p].reachable = true;
      for (const auto& block : response.blocks()) holdings[p].blocks[block.id()] = block.has_data();
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
            pb::GetBlockRequest get;
            get.set_table(table);
            get.set_id(name);
            pb::GetBlockResponse block;
            grpc::ClientContext context;
            context.set_deadline(In(std::chrono::seconds(60)));
            result = core::FromGrpcStatus(w.stub(q)->GetBlock(&context, get, &block),
                                          w.address(q));
            if (!result.ok()) continue;
            core::ChunkChecksum sum;
            for (const auto& chunk : block.chunks()) {
              sum.Add(chunk.rows(), chunk.raw_size(), chunk.data());
            }
            if (sum.Digest() != block.checksum()) {
              result = core::Error(core::ErrorCode::kChecksumDoesntMatch,
                                   "block " + name + " from " + w.address(q) +
                                       " arrived with a wrong checksum");
              continue;
            }
            const std::string token = RepairToken();
            for (int k = 0; k < block.chunks_size() && result.ok(); ++k) {
              pb::InsertRequest prepare;
              prepare.set_table(table);
              prepare.set_insert_id(token);
              prepare.set_chunk(k);
              *prepare.mutable_block() = block.chunks(k);
              pb::InsertResponse response;
              grpc::ClientContext call;
              call.set_deadline(In(std::chrono::seconds(60)));
              result = core::FromGrpcStatus(w.stub(p)->PrepareInsert(&call, prepare, &response),
                                            w.address(p));
            }
            if (result.ok()) {
              pb::CommitInsertRequest commit;
              commit.set_table(table);
              commit.set_token(token);
              commit.set_block_id(block.block_id());
              pb::CommitInsertResponse response;
              grpc::ClientContext call;
              call.set_deadline(In(std::chrono::seconds(60)));
              result = core::FromGrpcStatus(w.stub(p)->CommitInsert(&call, commit, &response),
                                            w.address(p));
            }
            if (!result.ok()) {
              pb::AbortInsertRequest abort;
              abort.set_table(table);
              abort.set_token(token);
              pb::AbortInsertResponse response;
              grpc::ClientContext call;
              call.set_deadline(In(std::chrono::seconds(10)));
              (void)w.stub(p)->AbortInsert(&call, abort, &response);
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
          pb::ReleaseBlocksRequest release;
          release.set_table(table);
          for (const auto& [name, has_data] : holdings[p].blocks) {
            if (!has_data) continue;
            bool everywhere = true;
            for (size_t o = 0; o < w.replica_count(); ++o) {
              everywhere = everywhere && holdings[w.ProcessIndex(s, o)].blocks.count(name) > 0;
            }
            if (everywhere) release.add_ids(name);
          }
          if (release.ids_size() == 0) continue;
          pb::ReleaseBlocksResponse response;
          grpc::ClientContext call;
          call.set_deadline(In(std::chrono::seconds(10)));
          absl::Status released = core::FromGrpcStatus(
              w.stub(p)->ReleaseBlocks(&call, release, &response), w.address(p));
          if (released.ok()) {
            for (const std::string& name : release.ids()) holdings[p].blocks[name] = false;
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

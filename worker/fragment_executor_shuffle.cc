// FragmentExecutor's shuffle joins (plan::BroadcastJoin::shuffle on the first join): both tables
// are repartitioned across the workers by a hash of the join key (worker/exchange.h), and each
// worker joins the rows it receives. In order:
//   1. the build: this shard's rows of the build table are read (the join's local_build
//      fragment), split by key and sent, each worker's part to its inbox;
//   2. consumer threads start: they wait for every worker's build rows, hash them, and then run
//      the rest of the fragment (joins, join filter, aggregation or projection) over the probe
//      rows as they arrive;
//   3. the probe: this shard's rows of the probe table that pass the fragment's filter, only the
//      columns read after it, are split by key and sent as the scan streams them;
//   4. once every worker has sent all its rows, the consumers' states are merged and sent to the
//      coordinator like any fragment's (SendResult).
// The consumers are threads of their own, not the pool's: the pool's threads may all be waiting
// to send probe rows to a worker whose consumers must drain its inbox first.
#include <algorithm>
#include <chrono>
#include <thread>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/join/row_keys.h"
#include "core/memory/memory_tracker.h"
#include "core/memory/transport_memory_scope.h"
#include "core/plan/expr_remap.h"
#include "core/status_macros.h"
#include "worker/exchange_sender.h"
#include "worker/fragment_executor.h"
#include "worker/row_streamer.h"
#include "worker/serial_sink.h"

namespace granite::worker {
namespace {

using core::plan::Expr;
using core::plan::Fragment;

void MarkColumns(const Expr& e, std::vector<bool>* used) {
  if (e.is_column() && e.column < used->size()) (*used)[e.column] = true;
  for (const Expr& arg : e.args) MarkColumns(arg, used);
}

// Calls `fn` on every expression that reads the joined block (everything after the filter).
template <typename Fn>
void ForEachJoinedExpr(Fragment& fragment, Fn&& fn) {
  for (core::plan::BroadcastJoin& join : fragment.joins) {
    for (Expr& key : join.probe_keys) fn(key);
  }
  if (fragment.join_filter) fn(*fragment.join_filter);
  for (Expr& projection : fragment.projections) fn(projection);
  if (fragment.aggregate) {
    for (Expr& key : fragment.aggregate->keys) fn(key);
    for (core::plan::AggregateCall& call : fragment.aggregate->calls) {
      for (Expr& arg : call.args) fn(arg);
    }
  }
}

size_t BuildColumns(const core::plan::BroadcastJoin& join) {
  return join.local_build ? join.local_build->projections.size() : join.build.columns.size();
}

// Whether both sides partition by the 64-bit value of their one key (PartitionRows).
bool WordKeys(const core::plan::BroadcastJoin& join) {
  if (join.probe_keys.size() != 1 || !join.local_build) return false;
  const core::TypeId probe = core::RemoveNullable(join.probe_keys[0].type);
  const core::TypeId build =
      core::RemoveNullable(join.local_build->projections[join.build_keys[0]].type);
  return core::IsWordKey(probe) && core::IsWordKey(build);
}

// A shuffled fragment split in two: what each worker reads and sends (the probe table's rows
// that pass the filter, only the columns read after it), and what each runs over the rows it
// receives (the joins on, reading those columns at their new positions).
struct ShufflePlan {
  Fragment probe_read;
  Fragment joined;
  core::Block probe_shape;  // the received probe blocks' columns, without rows
};

ShufflePlan PlanShuffle(const Fragment& fragment, const core::Block& scan_shape) {
  ShufflePlan plan;
  const size_t scanned = fragment.scan.columns.size();
  size_t joined_width = scanned;
  for (const core::plan::BroadcastJoin& join : fragment.joins) joined_width += BuildColumns(join);
  Fragment& joined = plan.joined;
  joined = fragment;
  std::vector<bool> used(joined_width, false);
  ForEachJoinedExpr(joined, [&](Expr& e) { MarkColumns(e, &used); });
  Fragment& probe_read = plan.probe_read;
  probe_read = fragment;
  probe_read.joins.clear();
  probe_read.join_filter.reset();
  probe_read.aggregate.reset();
  probe_read.order_by.clear();
  probe_read.limit = 0;
  probe_read.late_materialization = false;
  probe_read.projections.clear();
  probe_read.settings.network_compression_method = "none";  // partitioned right where it is read
  joined.scan.columns.clear();
  joined.scan.string_sizes.clear();
  std::vector<uint32_t> map(joined_width);
  uint32_t next = 0;
  for (size_t i = 0; i < scanned; ++i) {
    if (!used[i]) continue;
    Expr column;
    column.column = static_cast<uint32_t>(i);
    column.type = scan_shape.columns[i]->logical_type();
    probe_read.projections.push_back(column);
    plan.probe_shape.columns.push_back(scan_shape.columns[i]);
    joined.scan.columns.push_back(fragment.scan.columns[i]);
    joined.scan.string_sizes.push_back(fragment.scan.reads_sizes(i));
    map[i] = next++;
  }
  for (size_t i = scanned; i < joined_width; ++i) map[i] = static_cast<uint32_t>(i - scanned + next);
  ForEachJoinedExpr(joined, [&](Expr& e) { core::plan::RemapColumns(map, &e); });
  joined.filter.reset();  // applied before the rows were sent
  joined.scan.prune_filter.reset();
  joined.late_materialization = false;
  return plan;
}

}  // namespace

absl::Status FragmentExecutor::RunShuffled(const Fragment& fragment,
                                           const std::atomic<bool>& cancelled,
                                           const ChunkSink& sink) {
  const auto started = std::chrono::steady_clock::now();
  const core::plan::BroadcastJoin& shuffled = fragment.joins[0];
  if (exchanges_ == nullptr || fragment.exchange_id == 0 ||
      fragment.exchange_peers.size() != fragment.worker_count || !shuffled.local_build ||
      !fragment.scan.is_table()) {
    return core::Error(core::ErrorCode::kLogicalError, "a shuffle join without its exchange");
  }
  ASSIGN_OR_RETURN(core::WireCompression compression,
                   core::ParseWireCompression(fragment.settings.network_compression_method));
  ASSIGN_OR_RETURN(core::Block scan_shape, ScanShape(fragment));
  const size_t workers = fragment.worker_count;
  const bool word_keys = WordKeys(shuffled);

  ShufflePlan plan = PlanShuffle(fragment, scan_shape);
  const Fragment& probe_read = plan.probe_read;
  Fragment& joined = plan.joined;
  const core::Block& probe_shape = plan.probe_shape;
  std::vector<std::unique_ptr<core::Expression>> probe_keys;
  for (const Expr& key : joined.joins[0].probe_keys) {
    ASSIGN_OR_RETURN(std::unique_ptr<core::Expression> compiled, core::Expression::Compile(key));
    probe_keys.push_back(std::move(compiled));
  }

  ASSIGN_OR_RETURN(std::shared_ptr<ExchangeInbox> inbox,
                   exchanges_->Open(fragment.exchange_id, workers));
  // However this ends, the inbox closes: peers still sending get an error, waits wake up.
  absl::Status outcome = SinkGone();
  struct Close {
    ExchangeRegistry* registry;
    uint64_t id;
    absl::Status* outcome;
    ~Close() { registry->Finish(id, *outcome); }
  } close{exchanges_, fragment.exchange_id, &outcome};
  SerialSink serial(&sink);
  const ChunkSink out = [&serial](core::plan::ResultChunk&& chunk) {
    return serial.Send(std::move(chunk));
  };
  ExchangeSender sender(fragment, inbox, compression);

  // 1. The build, sent as the read streams it.
  RETURN_IF_ERROR(ReadLocalBuild(fragment, *shuffled.local_build, cancelled, out,
                                 [&](core::Block build_rows) {
                                   std::vector<const core::Column*> keys;
                                   for (uint32_t key : shuffled.build_keys) {
                                     keys.push_back(build_rows.columns[key].get());
                                   }
                                   return sender.Send(
                                       ExchangeSide::kBuild,
                                       PartitionRows(build_rows, keys, word_keys, workers));
                                 }));
  RETURN_IF_ERROR(sender.End(ExchangeSide::kBuild));

  // 2. The consumers.
  const size_t threads = std::max<size_t>(1, MaxThreads(fragment.settings));
  std::unique_ptr<core::FragmentPipeline> pipeline;
  std::unique_ptr<RowStreamer> streamer;
  std::vector<std::unique_ptr<LocalState>> states(threads);
  std::vector<absl::Status> errors(threads);
  std::atomic<bool> consumer_failed{false};
  core::MemoryTracker* memory = core::CurrentMemoryTracker();
  auto fail = [&](size_t t, absl::Status status) {
    errors[t] = std::move(status);
    consumer_failed = true;
    inbox->Close(errors[t]);  // the senders stop too
  };
  auto consume = [&](size_t t) {
    core::MemoryTrackerScope charged(memory);
    while (!consumer_failed.load(std::memory_order_relaxed)) {
      absl::StatusOr<std::optional<core::plan::EncodedBlock>> next = inbox->NextProbe(cancelled);
      if (!next.ok()) return fail(t, next.status());
      if (!next->has_value()) return;
      absl::StatusOr<core::Block> block = core::DecodeWireBlock((*next)->data, (*next)->raw_size);
      {
        core::TransportMemoryScope server;  // the inbox's bytes are the server's (exchange.h)
        *next = std::nullopt;
      }
      absl::Status status = block.ok() ? pipeline->Consume(*states[t], *block) : block.status();
      if (status.ok() && streamer) status = streamer->Drain(*states[t], /*flush=*/false);
      if (!status.ok()) return fail(t, status);
    }
  };
  std::thread driver([&] {
    core::MemoryTrackerScope charged(memory);
    absl::Status status = [&]() -> absl::Status {
      ASSIGN_OR_RETURN(std::vector<core::plan::EncodedBlock> parts, inbox->TakeBuild(cancelled));
      // Decoded one part at a time: a build over the join's budget spills as it is gathered.
      core::FragmentPipeline::JoinInputs inputs{SpillDir(), {nullptr}};
      core::plan::BroadcastJoin& join = joined.joins[0];
      const auto read = [&](const BlockConsumer& add) -> absl::Status {
        for (core::plan::EncodedBlock& part : parts) {
          ASSIGN_OR_RETURN(core::Block block, core::DecodeWireBlock(part.data, part.raw_size));
          {
            core::TransportMemoryScope server;  // the inbox's bytes are the server's (exchange.h)
            part = core::plan::EncodedBlock();
          }
          if (block.rows() > 0) RETURN_IF_ERROR(add(std::move(block)));
        }
        return absl::OkStatus();
      };
      ASSIGN_OR_RETURN(join.build, GatherBuild(joined, join, EmptyBuild(*shuffled.local_build),
                                               read, &inputs.prepared[0]));
      join.local_build.reset();
      join.shuffle = false;
      ASSIGN_OR_RETURN(pipeline, core::FragmentPipeline::Compile(joined, std::move(inputs)));
      for (auto& state : states) {
        ASSIGN_OR_RETURN(state, pipeline->NewLocalState());
      }
      streamer = RowStreamer::Plan(joined, *pipeline, false, compression, &serial);
      return absl::OkStatus();
    }();
    if (!status.ok()) return fail(0, status);
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; ++t) helpers.emplace_back(consume, t);
    consume(0);
    for (std::thread& helper : helpers) helper.join();
  });

  // 3. The probe: sent as the scan streams it.
  absl::Status sent;
  const ChunkSink partition = [&](core::plan::ResultChunk&& chunk) {
    if (chunk.kind == core::plan::ResultChunk::Kind::kStats) return out(std::move(chunk));
    absl::StatusOr<core::Block> block = core::DecodeWireBlock(chunk.block.data, chunk.block.raw_size);
    if (!block.ok()) {
      sent = block.status();
      return false;
    }
    if (block->rows() == 0) return true;
    std::vector<core::ColumnPtr> key_columns;
    std::vector<const core::Column*> keys;
    for (const auto& key : probe_keys) {
      absl::StatusOr<core::ColumnPtr> column = key->Evaluate(*block);
      if (!column.ok()) {
        sent = column.status();
        return false;
      }
      keys.push_back(column->get());
      key_columns.push_back(*std::move(column));
    }
    sent = sender.Send(ExchangeSide::kProbe, PartitionRows(*block, keys, word_keys, workers));
    return sent.ok();
  };
  absl::Status read = RunResolved(probe_read, cancelled, partition);
  if (read.ok() && sent.ok()) sent = sender.End(ExchangeSide::kProbe);
  if (read.ok() && sent.ok()) sent = sender.Finish();
  if (!sent.ok() || !read.ok()) inbox->Close(!sent.ok() ? sent : read);
  driver.join();
  for (const absl::Status& error : errors) {
    if (!error.ok() && core::CodeOf(error) != core::ErrorCode::kQueryWasCancelled) return error;
  }
  RETURN_IF_ERROR(sent);
  RETURN_IF_ERROR(read);
  for (const absl::Status& error : errors) RETURN_IF_ERROR(error);
  if (cancelled) return SinkGone();
  // Grace hash join: the spilled buckets, one at a time, after every probe row arrived.
  RETURN_IF_ERROR(pipeline->ConsumeSpilled(
      *states[0], &probe_shape, cancelled, [&](LocalState& state) {
        return streamer ? streamer->Drain(state, /*flush=*/false) : absl::OkStatus();
      }));
  // RIGHT / FULL: every build row lives on exactly one worker, so each emits its own unmatched.
  RETURN_IF_ERROR(pipeline->ConsumeUnmatched(*states[0], probe_shape));
  if (streamer) {
    for (auto& state : states) RETURN_IF_ERROR(streamer->Drain(*state, /*flush=*/true));
  }

  // 4. The result.
  RETURN_IF_ERROR(SendResult(joined, *pipeline, std::move(states), nullptr, nullptr, compression,
                             cancelled, out));
  core::plan::ResultChunk stats;
  stats.kind = core::plan::ResultChunk::Kind::kStats;
  stats.stats.elapsed_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
  if (!out(std::move(stats))) return SinkGone();
  outcome = absl::OkStatus();
  return absl::OkStatus();
}

}  // namespace granite::worker

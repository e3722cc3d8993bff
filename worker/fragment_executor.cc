#include "worker/fragment_executor.h"

#include <algorithm>
#include <chrono>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/fragment_pipeline.h"
#include "core/hash.h"
#include "core/status_macros.h"
#include "worker/late_materialized_scan.h"
#include "worker/local_group_cut.h"
#include "worker/morsel_source.h"
#include "worker/part_bounds_scan.h"
#include "worker/row_streamer.h"
#include "worker/scan_progress.h"
#include "worker/top_n_morsel_filter.h"

namespace granite::worker {

namespace {

// The stats chunk of a scan that read nothing: what pruning selected.
core::plan::ResultChunk PruneStatsChunk(const MorselSource& source) {
  core::plan::ResultChunk chunk;
  chunk.kind = core::plan::ResultChunk::Kind::kStats;
  const storage::PruneStats& pruned = source.prune_stats();
  chunk.stats.parts_total = pruned.parts_total;
  chunk.stats.parts_selected = pruned.parts_selected;
  chunk.stats.granules_total = pruned.granules_total;
  chunk.stats.granules_selected = pruned.granules_selected;
  chunk.stats.choose_parts_us = source.choose_parts_ns() / 1000;
  return chunk;
}

}  // namespace

absl::Status FragmentExecutor::SinkGone() {
  return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled by the coordinator");
}

size_t FragmentExecutor::MaxThreads(const core::Settings& settings) const {
  return settings.max_threads == 0
             ? pool_->size()
             : static_cast<size_t>(std::min<uint64_t>(pool_->size(), settings.max_threads));
}

absl::Status FragmentExecutor::RunResolved(const core::plan::Fragment& fragment,
                                           const std::atomic<bool>& cancelled,
                                           const ChunkSink& sink,
                                           core::FragmentPipeline::JoinInputs joins) {
  auto started = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(auto pipeline, core::FragmentPipeline::Compile(fragment, std::move(joins)));
  ASSIGN_OR_RETURN(core::WireCompression compression,
                   core::ParseWireCompression(fragment.settings.network_compression_method));
  ASSIGN_OR_RETURN(auto source, MorselSource::Open(fragment, store_));
  if (fragment.explain_only) return sink(PruneStatsChunk(*source)) ? absl::OkStatus() : SinkGone();
  // A small top-N reads its other columns only for the rows it keeps (late_materialized_scan.h).
  ASSIGN_OR_RETURN(std::unique_ptr<LateMaterializedScan> late, LateMaterializedScan::Plan(fragment));
  const core::FragmentPipeline& scan = late ? late->early_pipeline() : *pipeline;
  // LowCardinality columns the pipeline reads only through their codes skip their strings.
  if (!late) source->SetCodesOnly(pipeline->codes_only_columns());
  // ORDER BY ... LIMIT: morsels whose first key cannot enter the top-N are skipped unread.
  const std::optional<TopNMorselFilter> top_n =
      TopNMorselFilter::Plan(fragment, scan, late.get(), *source);

  const uint64_t morsel_count = source->morsel_count();
  const uint64_t max_threads = MaxThreads(fragment.settings);
  size_t threads = source->ordered()
                       ? 1
                       : static_cast<size_t>(std::min<uint64_t>(
                             max_threads, std::max<uint64_t>(1, morsel_count)));
  std::vector<std::unique_ptr<core::FragmentPipeline::LocalState>> states(threads);
  for (auto& state : states) {
    ASSIGN_OR_RETURN(state, scan.NewLocalState());
  }
  std::vector<absl::Status> errors(threads);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  // MIN / MAX without WHERE or GROUP BY: from the parts' bounds, reading no column
  // (part_bounds_scan.h).
  std::optional<core::Block> bounds = PartBoundsBlock(fragment, *source);
  // While the scan runs the pool threads send its progress (scan_progress.h) and, when their
  // order does not matter, the projected rows (row_streamer.h).
  SerialSink serial(&sink);
  ScanProgress progress(&serial);
  if (!progress.Start(source->total_rows())) return SinkGone();
  const std::unique_ptr<RowStreamer> streamer =
      bounds ? nullptr
             : RowStreamer::Plan(fragment, *pipeline, late != nullptr, compression, &serial);
  if (bounds) RETURN_IF_ERROR(scan.Consume(*states[0], *bounds));
  pool_->ParallelFor(bounds ? 0 : threads, [&](size_t t) {
    auto& state = *states[t];
    while (!failed.load(std::memory_order_relaxed) && !cancelled.load(std::memory_order_relaxed)) {
      if (scan.Satisfied(state) || (streamer && streamer->enough())) break;
      const uint64_t m = next.fetch_add(1);
      if (m >= morsel_count) break;
      const Morsel morsel = source->morsel(m);
      if (top_n && top_n->Skip(morsel, state)) continue;
      absl::StatusOr<core::Block> block =
          late ? late->ReadEarly(*source, morsel) : source->Read(morsel);
      const uint64_t filtered = state.rows_filtered;
      const uint64_t passed = state.rows_passed;
      absl::Status status = block.ok() ? scan.Consume(state, *block) : block.status();
      // Every row went through the filter and none passed: later queries skip these granules.
      if (status.ok() && state.rows_passed == passed &&
          state.rows_filtered - filtered == block->rows()) {
        source->NoteNoMatch(morsel);
      }
      if (status.ok() && streamer) status = streamer->Drain(state, /*flush=*/false);
      if (!status.ok()) {
        errors[t] = status;
        failed = true;
        break;
      }
      state.rows_read += block->rows();
      uint64_t bytes = 0;
      for (const auto& column : block->columns) bytes += column->ByteSize();
      state.bytes_read += bytes;
      progress.Note(block->rows(), bytes);  // a receiver gone shows as `cancelled`
    }
  });
  for (const absl::Status& status : errors) RETURN_IF_ERROR(status);
  if (cancelled) return SinkGone();
  std::optional<core::Block> shape;
  // RIGHT / FULL on the only worker: its build rows are all here.
  if (fragment.emits_unmatched()) {
    ASSIGN_OR_RETURN(shape, ScanShape(fragment));
  }
  if (pipeline->spilled() && !late) {  // grace hash join: the spilled buckets, one at a time
    RETURN_IF_ERROR(pipeline->ConsumeSpilled(
        *states[0], shape ? &*shape : nullptr, cancelled,
        [&](LocalState& state) {
          return streamer ? streamer->Drain(state, /*flush=*/false) : absl::OkStatus();
        }));
  }
  if (shape) RETURN_IF_ERROR(pipeline->ConsumeUnmatched(*states[0], *shape));
  for (auto& state : states) {
    if (streamer) RETURN_IF_ERROR(streamer->Drain(*state, /*flush=*/true));
  }

  core::plan::ResultChunk stats;
  stats = PruneStatsChunk(*source);
  for (const auto& state : states) {
    stats.stats.read_rows += state->rows_read;
    stats.stats.read_bytes += state->bytes_read;
  }
  stats.stats.read_rows = progress.UnsentRows(stats.stats.read_rows);
  stats.stats.read_bytes = progress.UnsentBytes(stats.stats.read_bytes);

  RETURN_IF_ERROR(SendResult(fragment, *pipeline, std::move(states), late.get(), source.get(),
                             compression, cancelled, sink));
  auto elapsed = std::chrono::steady_clock::now() - started;
  stats.stats.elapsed_us =
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  if (!sink(std::move(stats))) return SinkGone();
  return absl::OkStatus();
}

absl::StatusOr<core::Block> FragmentExecutor::ScanShape(const core::plan::Fragment& fragment) const {
  if (!fragment.scan.is_table()) {
    return core::Error(core::ErrorCode::kLogicalError, "the shape of a table function's scan");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<storage::Table> table, store_->TableOrError(fragment.scan.table));
  core::Block shape;
  for (size_t i = 0; i < fragment.scan.columns.size(); ++i) {
    core::TypeId type = core::TypeId::kUInt64;  // a String read as its values' sizes
    if (!fragment.scan.reads_sizes(i)) {
      const int index = table->schema().ColumnIndex(fragment.scan.columns[i]);
      if (index < 0) {
        return core::Error(core::ErrorCode::kNoSuchColumnInTable,
                           "no column " + fragment.scan.columns[i] + " in " + fragment.scan.table);
      }
      type = table->schema().columns[index].type;
    }
    shape.columns.push_back(std::make_shared<core::Column>(type));
  }
  return shape;
}

absl::Status FragmentExecutor::SendResult(const core::plan::Fragment& fragment,
                                          const core::FragmentPipeline& pipeline,
                                          std::vector<std::unique_ptr<LocalState>> states,
                                          LateMaterializedScan* late, const MorselSource* source,
                                          core::WireCompression compression,
                                          const std::atomic<bool>& cancelled,
                                          const ChunkSink& sink) {
  const bool finalize_on_worker = fragment.aggregate && fragment.aggregate->finalize_on_worker;
  const bool local_cut = finalize_on_worker && fragment.aggregate->local_cut.active();
  if (pipeline.aggregating() && !finalize_on_worker) {
    // One message for a small result, else only the non-empty buckets (fragment_result.h).
    ASSIGN_OR_RETURN(core::LocalMerger::PartialResult partial,
                     pipeline.FinishPartial(std::move(states), pool_));
    if (cancelled) return SinkGone();  // a memory limit hit while merging
    // Encoded (and compressed) on the pool a window of buckets at a time, sent in order.
    constexpr size_t kEncodeWindow = 32;
    size_t count = partial.blocks.size();
    std::vector<core::plan::ResultChunk> window;
    for (size_t from = 0; from < count; from += kEncodeWindow) {
      if (cancelled) return SinkGone();
      size_t n = std::min(kEncodeWindow, count - from);
      window.assign(n, core::plan::ResultChunk());
      pool_->ParallelFor(n, [&](size_t j) {
        size_t i = from + j;
        core::plan::ResultChunk& bucket = window[j];
        bucket.kind = core::plan::ResultChunk::Kind::kBucket;
        if (partial.single) {
          bucket.single = true;
        } else {
          bucket.bucket_id = partial.bucket_ids[i];
        }
        bucket.last = i + 1 == count;
        bucket.block = core::plan::EncodeResultBlock(partial.blocks[i], compression);
        partial.blocks[i] = core::Block();  // its memory now lives in the chunk
      });
      for (size_t j = 0; j < n; ++j) {
        window[j].more_follow = j + 1 < n;
        if (!sink(std::move(window[j]))) return SinkGone();
      }
    }
  } else {
    // Projected rows, or (finalize_on_worker) this worker's groups finalized here — each bucket
    // cut on its own first (only its survivors are concatenated), then the survivors cut again.
    core::FragmentPipeline::BucketCut cut_bucket;
    if (local_cut) {
      cut_bucket = [&fragment](core::Block groups) {
        return CutLocalGroups(fragment.aggregate->local_cut, std::move(groups));
      };
    }
    ASSIGN_OR_RETURN(core::Block rows,
                     finalize_on_worker
                         ? pipeline.FinishFinalized(std::move(states), pool_, cut_bucket)
                     : late ? late->Materialize(*source, std::move(states), pool_)
                            : pipeline.FinishRows(std::move(states)));
    if (local_cut) {
      ASSIGN_OR_RETURN(rows, CutLocalGroups(fragment.aggregate->local_cut, std::move(rows)));
    }
    // Stream in slices so no message grows past a few MiB.
    constexpr size_t kRowsPerChunk = 65536;
    size_t total = rows.rows();
    for (size_t at = 0; at == 0 || at < total; at += kRowsPerChunk) {
      core::plan::ResultChunk chunk;
      chunk.block =
          core::plan::EncodeResultBlock(core::SliceRows(rows, at, kRowsPerChunk), compression);
      if (!sink(std::move(chunk))) return SinkGone();
      if (total == 0) break;
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::worker

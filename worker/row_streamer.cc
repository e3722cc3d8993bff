#include "worker/row_streamer.h"

#include "core/error.h"

namespace granite::worker {

std::unique_ptr<RowStreamer> RowStreamer::Plan(const core::plan::Fragment& fragment,
                                               const core::FragmentPipeline& pipeline, bool late,
                                               core::WireCompression compression,
                                               SerialSink* sink) {
  if (pipeline.aggregating() || fragment.aggregate || late || !fragment.order_by.empty() ||
      fragment.explain_only) {
    return nullptr;
  }
  return std::unique_ptr<RowStreamer>(new RowStreamer(fragment.limit, compression, sink));
}

absl::Status RowStreamer::Drain(core::FragmentPipeline::LocalState& state, bool flush) {
  size_t rows = 0;
  for (const core::Block& block : state.blocks) rows += block.rows();
  if (rows == 0 || (!flush && rows < kRowsPerChunk)) return absl::OkStatus();
  core::Block all = core::ConcatBlocks(state.blocks);
  state.blocks.clear();
  // Encoded (and compressed) on this thread, outside the lock; only the send is serialized.
  for (size_t at = 0; at < all.rows(); at += kRowsPerChunk) {
    if (enough()) return absl::OkStatus();
    core::plan::ResultChunk chunk;
    chunk.block =
        core::plan::EncodeResultBlock(core::SliceRows(all, at, kRowsPerChunk), compression_);
    // The LIMIT is counted as chunks are taken; a few more rows than it may leave (the
    // coordinator cuts them), never fewer.
    if (limit_ > 0 && sent_rows_.fetch_add(chunk.block.rows) >= limit_) {
      enough_ = true;
      return absl::OkStatus();
    }
    if (!sink_->Send(std::move(chunk))) {
      return core::Error(core::ErrorCode::kQueryWasCancelled,
                         "Query was cancelled by the coordinator");
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::worker

#include "worker/chunk_coalescer.h"

#include "core/wire/plan_codec.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

void AddStats(const pb::FragmentStats& from, pb::FragmentStats* to) {
  to->set_read_rows(to->read_rows() + from.read_rows());
  to->set_read_bytes(to->read_bytes() + from.read_bytes());
  to->set_elapsed_us(to->elapsed_us() + from.elapsed_us());
  to->set_parts_total(to->parts_total() + from.parts_total());
  to->set_parts_selected(to->parts_selected() + from.parts_selected());
  to->set_granules_total(to->granules_total() + from.granules_total());
  to->set_granules_selected(to->granules_selected() + from.granules_selected());
  to->set_choose_parts_us(to->choose_parts_us() + from.choose_parts_us());
  to->set_rows_to_read(to->rows_to_read() + from.rows_to_read());
}

bool ChunkCoalescer::SendOpening() {
  if (!has_opening_) return true;
  has_opening_ = false;
  return write_(opening_, grpc::WriteOptions());
}

bool ChunkCoalescer::Add(core::plan::ResultChunk&& chunk) {
  const bool stats = chunk.kind == core::plan::ResultChunk::Kind::kStats;
  const bool more_follow = chunk.kind == core::plan::ResultChunk::Kind::kBucket && chunk.more_follow;
  const bool first = !any_;
  any_ = true;
  // A chunk after the closing statistics (not expected): those go first, as they came.
  if (has_closing_) {
    has_closing_ = false;
    if (!SendOpening() || !write_(closing_, grpc::WriteOptions())) return false;
  }
  if (stats && first) {
    opening_.Clear();
    core::wire::ToProto(std::move(chunk), &opening_);
    has_opening_ = true;
    return true;
  }
  const bool closing = stats && chunk.stats.elapsed_us > 0;
  pb::FragmentChunk* to = closing ? &closing_ : &message_;
  to->Clear();
  core::wire::ToProto(std::move(chunk), to);
  if (stats && has_opening_) {
    AddStats(opening_.stats(), to->mutable_stats());
    has_opening_ = false;
  }
  if (closing) {
    has_closing_ = true;
    return true;
  }
  // Buckets encoded together go out together: gRPC holds a write with the buffer hint until the
  // next one without it (a window of small buckets costs one send, not one per bucket).
  grpc::WriteOptions options;
  if (more_follow) options.set_buffer_hint();
  return SendOpening() && write_(*to, options);
}

bool ChunkCoalescer::Finish(bool ok) {
  if (has_opening_) {
    if (has_closing_) {
      AddStats(opening_.stats(), closing_.mutable_stats());
    } else {
      closing_ = opening_;
      has_closing_ = true;
    }
    has_opening_ = false;
  }
  if (!has_closing_) return true;
  has_closing_ = false;
  grpc::WriteOptions options;
  if (ok) options.set_last_message();  // sent with the status
  return write_(closing_, options);
}

}  // namespace granite::worker

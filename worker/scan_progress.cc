#include "worker/scan_progress.h"

namespace granite::worker {

namespace {

// Raises `sent` to `now` and returns by how much (0 if another thread got there first).
uint64_t TakeUnsent(std::atomic<uint64_t>& sent, uint64_t now) {
  uint64_t before = sent.load();
  while (before < now && !sent.compare_exchange_weak(before, now)) {
  }
  return before < now ? now - before : 0;
}

}  // namespace

bool ScanProgress::Start(uint64_t rows_to_read) {
  core::plan::ResultChunk chunk;
  chunk.kind = core::plan::ResultChunk::Kind::kStats;
  chunk.stats.rows_to_read = rows_to_read;
  return sink_->Send(std::move(chunk));
}

bool ScanProgress::Note(uint64_t rows, uint64_t bytes) {
  read_rows_ += rows;
  read_bytes_ += bytes;
  int64_t last = last_sent_ns_.load(std::memory_order_relaxed);
  const int64_t now = NowNs();
  if (now - last < std::chrono::nanoseconds(kInterval).count()) return true;
  // One thread wins the interval and sends; the others go on scanning.
  if (!last_sent_ns_.compare_exchange_strong(last, now)) return true;
  core::plan::ResultChunk chunk;
  chunk.kind = core::plan::ResultChunk::Kind::kStats;
  chunk.stats.read_rows = TakeUnsent(sent_rows_, read_rows_.load());
  chunk.stats.read_bytes = TakeUnsent(sent_bytes_, read_bytes_.load());
  return sink_->Send(std::move(chunk));
}

}  // namespace granite::worker

// ScanProgress: what one fragment's scan has read so far, sent to the coordinator while the scan
// runs as stats chunks carrying the rows and bytes read since the previous one (the coordinator
// adds up every stats chunk: coordinator/cluster/fan_out.cc). Start() sends the rows the scan will
// read after pruning (rows_to_read: ClickHouse's total_rows_to_read); Note() after each morsel
// sends at most one chunk per kInterval; the final stats chunk carries the rest (Unsent*).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "worker/serial_sink.h"

namespace granite::worker {

// Thread-safety: Note() from the pool threads concurrently; Start() before them, Unsent*() after.
class ScanProgress {
 public:
  static constexpr std::chrono::milliseconds kInterval{100};

  // REQUIRES: `sink` outlives this.
  explicit ScanProgress(SerialSink* sink) : sink_(sink), last_sent_ns_(NowNs()) {}

  // Sends the rows the scan will read; false when the receiver is gone.
  bool Start(uint64_t rows_to_read);
  // Adds one morsel's rows and bytes; sends what was read since the last chunk once kInterval
  // passed. False when the receiver is gone.
  bool Note(uint64_t rows, uint64_t bytes);

  // Of `total_rows` / `total_bytes` read in all, what no chunk has carried yet.
  uint64_t UnsentRows(uint64_t total_rows) const { return total_rows - sent_rows_.load(); }
  uint64_t UnsentBytes(uint64_t total_bytes) const { return total_bytes - sent_bytes_.load(); }

 private:
  static int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  SerialSink* const sink_;
  std::atomic<uint64_t> read_rows_{0};
  std::atomic<uint64_t> read_bytes_{0};
  std::atomic<uint64_t> sent_rows_{0};
  std::atomic<uint64_t> sent_bytes_{0};
  std::atomic<int64_t> last_sent_ns_;
};

}  // namespace granite::worker

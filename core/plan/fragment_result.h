// FragmentResult: what a worker's Execute streams back for one fragment, typed — column blocks
// (projected rows or groups finalized on the worker), partial-aggregate buckets, and a final
// stats chunk. Blocks travel encoded and compressed (core/block_codec.h): the executor encodes
// them on its pool threads; core/wire/plan_codec.h moves them into wire messages.
#pragma once

#include <cstdint>
#include <string>

#include "core/block.h"
#include "core/block_codec.h"

namespace granite::core::plan {

// A block in the wire encoding, compressed with the fragment's network_compression_method.
struct EncodedBlock {
  uint64_t rows = 0;
  uint64_t raw_size = 0;  // bytes after decompression
  std::string data;
};

// Returns `block` encoded and compressed.
EncodedBlock EncodeResultBlock(const Block& block, WireCompression compression);

// What the scan of one fragment did on one worker.
struct FragmentStats {
  uint64_t read_rows = 0;
  uint64_t read_bytes = 0;
  uint64_t elapsed_us = 0;
  uint64_t parts_total = 0;
  uint64_t parts_selected = 0;
  uint64_t granules_total = 0;
  uint64_t granules_selected = 0;
  uint64_t choose_parts_us = 0;  // taking the parts snapshot and pruning parts and granules
  // The rows the scan will read after pruning (total_rows_to_read); a worker sends stats chunks
  // while it scans, each with what it read since the one before (worker/scan_progress.h).
  uint64_t rows_to_read = 0;
};

// One message of the result stream. A worker sends blocks, or its non-empty buckets in
// increasing id order with `last` on the final one (or exactly one bucket with `single`, holding
// every group unsplit), then one kStats chunk.
struct ResultChunk {
  enum class Kind : uint8_t { kBlock, kBucket, kStats };
  Kind kind = Kind::kBlock;
  EncodedBlock block;       // kBlock: rows; kBucket: the bucket's partial states
  uint32_t bucket_id = 0;   // kBucket
  bool last = false;        // kBucket: no bucket of this worker follows
  bool single = false;      // kBucket: the only bucket, with every group
  // kBucket: another chunk follows at once (the rest of an encoded window), so the sender may
  // hold this one and put both in one write.
  bool more_follow = false;
  FragmentStats stats;      // kStats
};

}  // namespace granite::core::plan

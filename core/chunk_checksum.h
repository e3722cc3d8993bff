// ChunkChecksum: the checksum of a replicated insert block as it travels and rests — a sequence
// of LZ4-compressed encoded chunks (rows, raw size, data). The worker records it with the block
// (storage/block_log.h); the coordinator's repair recomputes it on the copy it fetched from a
// peer before applying it to a replica that missed the block.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string_view>

namespace granite::core {

// Thread-safety: none; one per checksum.
class ChunkChecksum {
 public:
  ChunkChecksum() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~ChunkChecksum() { XXH3_freeState(state_); }
  ChunkChecksum(const ChunkChecksum&) = delete;
  ChunkChecksum& operator=(const ChunkChecksum&) = delete;

  void Add(uint64_t rows, uint64_t raw_size, std::string_view data) {
    XXH3_64bits_update(state_, &rows, sizeof(rows));
    XXH3_64bits_update(state_, &raw_size, sizeof(raw_size));
    XXH3_64bits_update(state_, data.data(), data.size());
  }
  uint64_t Digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

}  // namespace granite::core

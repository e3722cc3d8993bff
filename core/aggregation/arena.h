// Arena: a bump allocator for the variable-length data of one aggregation (string keys, string
// min/max states, distinct-value sets). Memory is freed all at once when the arena is cleared or
// destroyed; nothing is freed individually. Each Aggregator (one per thread) owns its arenas, so
// allocation takes no lock.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace granite::core {

// Hands out memory from geometrically growing chunks.
// Thread-safety: none; one thread per arena.
// Invariants: pointers returned stay valid until Clear() or destruction.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  // Returns `size` bytes aligned to 8. A size of 0 returns a valid non-null pointer.
  char* Allocate(size_t size) {
    // Zero bytes still take 8, so the result is never null (memcmp/memcpy of 0 bytes need that).
    size_t rounded = size == 0 ? 8 : (size + 7) & ~size_t{7};
    if (rounded > static_cast<size_t>(end_ - head_)) NewChunk(rounded);
    char* result = head_;
    head_ += rounded;
    return result;
  }

  // Copies `bytes` into the arena and returns a view of the copy.
  std::string_view Copy(std::string_view bytes) {
    char* dst = Allocate(bytes.size());
    if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
    return std::string_view(dst, bytes.size());
  }

  // Frees every chunk. Previously returned pointers dangle afterwards.
  void Clear();

  // Returns the bytes reserved from the system allocator (chunk sizes), for statistics.
  size_t BytesReserved() const { return reserved_; }

 private:
  static constexpr size_t kFirstChunk = 4096;
  static constexpr size_t kMaxChunk = size_t{64} << 20;

  // Starts a new chunk of at least `min_size` bytes; chunks double up to kMaxChunk.
  void NewChunk(size_t min_size);

  std::vector<std::unique_ptr<char[]>> chunks_;
  char* head_ = nullptr;
  char* end_ = nullptr;
  size_t next_chunk_ = kFirstChunk;
  size_t reserved_ = 0;
};

}  // namespace granite::core

#include "core/aggregation/arena.h"

#include <algorithm>

namespace granite::core {

void Arena::Clear() {
  chunks_.clear();
  head_ = nullptr;
  end_ = nullptr;
  next_chunk_ = kFirstChunk;
  reserved_ = 0;
}

void Arena::NewChunk(size_t min_size) {
  size_t size = std::max(next_chunk_, min_size);
  // new char[] is at least alignof(max_align_t) aligned, so 8-byte rounding keeps alignment.
  chunks_.push_back(std::unique_ptr<char[]>(new char[size]));
  head_ = chunks_.back().get();
  end_ = head_ + size;
  reserved_ += size;
  next_chunk_ = std::min(next_chunk_ * 2, kMaxChunk);
}

}  // namespace granite::core

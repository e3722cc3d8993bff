// PartList: the parts of a snapshot in key order (partition value, first block), stored as a
// persistent chunked vector: chunks of up to 2 * kChunkParts parts, immutable and shared between
// snapshots. A change (an insert, a merge) copies the list of chunk pointers — parts / 256 of
// them — and rebuilds only the chunks it touches, so publishing a new snapshot of a table with
// 100,000 parts touches a few hundred cache lines instead of one reference count per part.
// Reading is a vector-like interface: size(), operator[] (O(log chunks)), iteration, and
// PartitionPoint (binary search), which pruning uses to find partitions.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <vector>

#include "storage/part.h"

namespace granite::storage {

// Orders parts by partition value, then first block.
bool PartKeyLess(const Part& a, const Part& b);

// An immutable sequence of parts in key order.
// Thread-safety: immutable; all methods may be called concurrently.
class PartList {
 public:
  static constexpr size_t kChunkParts = 256;
  using Chunk = std::vector<std::shared_ptr<const Part>>;

  PartList() = default;
  // Returns a list of `parts`. REQUIRES: sorted by PartKeyLess.
  static PartList FromSorted(const std::vector<std::shared_ptr<const Part>>& parts);

  // Returns this list without `removed` (compared by pointer; absent ones are ignored) and with
  // `added`, in key order, sharing every chunk the change does not touch.
  PartList With(const std::vector<std::shared_ptr<const Part>>& added,
                const std::vector<std::shared_ptr<const Part>>& removed) const;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // REQUIRES: i < size().
  const std::shared_ptr<const Part>& operator[](size_t i) const;

  // Returns the first index whose part does not satisfy `before` (size() if all do).
  // REQUIRES: `before` is true for a prefix of the list and false after it.
  size_t PartitionPoint(const std::function<bool(const Part&)>& before) const;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::shared_ptr<const Part>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    const_iterator() = default;
    reference operator*() const { return (*list_->chunks_[chunk_])[at_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++();
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& other) const {
      return chunk_ == other.chunk_ && at_ == other.at_;
    }
    bool operator!=(const const_iterator& other) const { return !(*this == other); }

   private:
    friend class PartList;
    const_iterator(const PartList* list, size_t chunk, size_t at)
        : list_(list), chunk_(chunk), at_(at) {}
    const PartList* list_ = nullptr;
    size_t chunk_ = 0;
    size_t at_ = 0;
  };

  const_iterator begin() const { return const_iterator(this, 0, 0); }
  const_iterator end() const { return const_iterator(this, chunks_.size(), 0); }
  // Returns an iterator at index `i` (end() for size()).
  const_iterator iterator_at(size_t i) const;

 private:
  // Recomputes starts_ and size_ from chunks_.
  void Index();
  // Returns the chunk that holds, or would hold, a part ordered like `part`.
  size_t ChunkFor(const Part& part) const;

  std::vector<std::shared_ptr<const Chunk>> chunks_;  // none empty
  std::vector<size_t> starts_;                        // index of each chunk's first part
  size_t size_ = 0;
};

}  // namespace granite::storage

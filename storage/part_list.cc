#include "storage/part_list.h"

#include <algorithm>

namespace granite::storage {
namespace {

using ChunkPtrs = std::vector<std::shared_ptr<const PartList::Chunk>>;

// Returns the chunk that holds, or would hold, `part`: the last one whose first part is not after
// it (0 when it precedes them all). REQUIRES: no chunk is empty.
size_t FindChunk(const ChunkPtrs& chunks, const Part& part) {
  auto it = std::upper_bound(chunks.begin(), chunks.end(), &part,
                             [](const Part* p, const auto& chunk) {
                               return PartKeyLess(*p, *chunk->front());
                             });
  return it == chunks.begin() ? 0 : static_cast<size_t>(it - chunks.begin()) - 1;
}

}  // namespace

bool PartKeyLess(const Part& a, const Part& b) {
  const core::Value& x = a.partition().value;
  const core::Value& y = b.partition().value;
  if (x != y) return x < y;
  return a.part_name().min_block < b.part_name().min_block;
}

PartList PartList::FromSorted(const std::vector<std::shared_ptr<const Part>>& parts) {
  PartList list;
  for (size_t at = 0; at < parts.size(); at += kChunkParts) {
    size_t end = std::min(parts.size(), at + kChunkParts);
    list.chunks_.push_back(std::make_shared<const Chunk>(parts.begin() + at, parts.begin() + end));
  }
  list.Index();
  return list;
}

PartList PartList::With(const std::vector<std::shared_ptr<const Part>>& added,
                        const std::vector<std::shared_ptr<const Part>>& removed) const {
  ChunkPtrs chunks = chunks_;
  std::vector<std::shared_ptr<Chunk>> owned(chunks.size());
  // Copies chunk `c` the first time this change touches it.
  auto own = [&](size_t c) -> Chunk& {
    if (!owned[c]) {
      owned[c] = std::make_shared<Chunk>(*chunks[c]);
      chunks[c] = owned[c];
    }
    return *owned[c];
  };
  // Removals first, located in the unmodified chunks (none is empty yet).
  std::vector<std::pair<size_t, const Part*>> removals;
  for (const auto& part : removed) {
    if (!chunks.empty()) removals.push_back({FindChunk(chunks_, *part), part.get()});
  }
  for (const auto& [c, part] : removals) {
    Chunk& chunk = own(c);
    auto it = std::find_if(chunk.begin(), chunk.end(),
                           [part = part](const auto& p) { return p.get() == part; });
    if (it != chunk.end()) chunk.erase(it);
  }
  // Drops emptied chunks, keeping `owned` aligned.
  ChunkPtrs kept;
  std::vector<std::shared_ptr<Chunk>> kept_owned;
  for (size_t c = 0; c < chunks.size(); ++c) {
    if (chunks[c]->empty()) continue;
    kept.push_back(chunks[c]);
    kept_owned.push_back(owned[c]);
  }
  chunks = std::move(kept);
  owned = std::move(kept_owned);
  for (const auto& part : added) {
    if (chunks.empty()) {
      owned.push_back(std::make_shared<Chunk>(Chunk{part}));
      chunks.push_back(owned.back());
      continue;
    }
    Chunk& chunk = own(FindChunk(chunks, *part));
    auto at = std::upper_bound(chunk.begin(), chunk.end(), part, [](const auto& a, const auto& b) {
      return PartKeyLess(*a, *b);
    });
    chunk.insert(at, part);
  }
  // Splits chunks that grew past twice the target size.
  PartList list;
  for (size_t c = 0; c < chunks.size(); ++c) {
    if (!owned[c] || owned[c]->size() <= 2 * kChunkParts) {
      list.chunks_.push_back(chunks[c]);
      continue;
    }
    const Chunk& big = *owned[c];
    for (size_t at = 0; at < big.size(); at += kChunkParts) {
      size_t end = std::min(big.size(), at + kChunkParts);
      list.chunks_.push_back(std::make_shared<const Chunk>(big.begin() + at, big.begin() + end));
    }
  }
  list.Index();
  return list;
}

void PartList::Index() {
  starts_.clear();
  starts_.reserve(chunks_.size());
  size_ = 0;
  for (const auto& chunk : chunks_) {
    starts_.push_back(size_);
    size_ += chunk->size();
  }
}

const std::shared_ptr<const Part>& PartList::operator[](size_t i) const {
  size_t c = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) -
                                 starts_.begin()) - 1;
  return (*chunks_[c])[i - starts_[c]];
}

size_t PartList::PartitionPoint(const std::function<bool(const Part&)>& before) const {
  // The first chunk whose first part is not `before`: the boundary is in the chunk ahead of it.
  auto first = std::partition_point(chunks_.begin(), chunks_.end(),
                                    [&](const auto& chunk) { return before(*chunk->front()); });
  if (first == chunks_.begin()) return 0;
  size_t c = static_cast<size_t>(first - chunks_.begin()) - 1;
  const Chunk& chunk = *chunks_[c];
  auto inside = std::partition_point(chunk.begin(), chunk.end(),
                                     [&](const auto& part) { return before(*part); });
  return starts_[c] + static_cast<size_t>(inside - chunk.begin());
}

PartList::const_iterator& PartList::const_iterator::operator++() {
  if (++at_ == list_->chunks_[chunk_]->size()) {
    ++chunk_;
    at_ = 0;
  }
  return *this;
}

PartList::const_iterator PartList::iterator_at(size_t i) const {
  if (i >= size_) return end();
  size_t c = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) -
                                 starts_.begin()) - 1;
  return const_iterator(this, c, i - starts_[c]);
}

}  // namespace granite::storage

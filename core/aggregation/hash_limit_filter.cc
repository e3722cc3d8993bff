#include "core/aggregation/hash_limit_filter.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/aggregation/key_hash.h"
#include "core/aggregation/key_order_code.h"
#include "core/block_sort.h"

namespace granite::core {

HashLimitFilter::HashLimitFilter(size_t limit) : limit_(limit) {
  heap_.reserve(limit + 1);
  admitted_.reserve(limit + 1);
}

HashLimitFilter HashLimitFilter::ByKeyOrder(size_t limit, size_t key, bool descending) {
  HashLimitFilter filter(limit);
  filter.by_key_order_ = true;
  filter.order_key_ = key;
  filter.descending_ = descending;
  filter.deciding_ = true;
  return filter;
}

void HashLimitFilter::Admit(uint64_t h) {
  heap_.push_back(h);
  std::push_heap(heap_.begin(), heap_.end());
  admitted_.insert(h);
  if (heap_.size() > limit_) {
    std::pop_heap(heap_.begin(), heap_.end());
    admitted_.erase(heap_.back());
    heap_.pop_back();
  }
  if (heap_.size() == limit_) threshold_ = heap_.front();
}

size_t HashLimitFilter::FilterHashes(const uint64_t* hashes, size_t rows, uint8_t* mask) {
  size_t kept = 0;
  for (size_t i = 0; i < rows; ++i) {
    uint64_t h = hashes[i];
    if (h > threshold_) {  // the common case after warm-up: one compare
      mask[i] = 0;
      continue;
    }
    // A full S holds threshold_ itself, so a new h here is below T (or S is not full yet).
    // Runs of one key (sorted data) skip the lookup: h == last_ <= T means last_ is still in S,
    // as an evicted value stays above T for good.
    if (!(h == last_ && has_last_) && !admitted_.contains(h)) Admit(h);
    last_ = h;
    has_last_ = true;
    mask[i] = 1;
    ++kept;
  }
  return kept;
}

size_t HashLimitFilter::Filter(const std::vector<ColumnPtr>& keys, size_t rows, uint8_t* mask) {
  if (frozen_) {
    if (rows > 0) std::memset(mask, 1, rows);
    return rows;
  }
  if (hashes_.size() < rows) hashes_.resize(rows);
  if (by_key_order_) {
    OrderCodes(*keys[order_key_], descending_, rows, hashes_.data());
  } else {
    HashKeys(keys, rows, hashes_.data());
  }
  const size_t kept = FilterHashes(hashes_.data(), rows, mask);
  if (deciding_) {
    observed_ += rows;
    dropped_ += rows - kept;
    if (observed_ >= kObservationRows) {
      deciding_ = false;
      frozen_ = heap_.size() == limit_ && dropped_ * 10 < observed_;
    }
  }
  return kept;
}

size_t HashLimitFilter::Apply(Block* input, std::vector<ColumnPtr>* keys) {
  size_t rows = input->rows();
  if (frozen_) return rows;
  if (mask_.size() < rows) mask_.resize(rows);
  size_t kept = Filter(*keys, rows, mask_.data());
  // Dropping is optional (more rows only complete more groups): a copy of every column for a
  // few dropped rows costs more than aggregating them.
  if (kept >= rows - rows / 8) return rows;
  if (kept == 0) {
    *input = Block{};
    keys->clear();
    return 0;
  }
  for (ColumnPtr& column : input->columns) {
    // A column the pipeline left empty (read by nothing after its WHERE) stays empty.
    if (column->size() == rows) column = std::make_shared<Column>(column->Filter(mask_.data()));
  }
  input->rows_without_columns = kept;
  for (ColumnPtr& column : *keys) column = std::make_shared<Column>(column->Filter(mask_.data()));
  return kept;
}

std::vector<uint32_t> BottomGroupsByHash(const Block& groups, size_t key_count, size_t limit) {
  size_t rows = groups.rows();
  std::vector<ColumnPtr> keys(groups.columns.begin(), groups.columns.begin() + key_count);
  auto hashes = std::make_shared<Column>(TypeId::kUInt64);
  hashes->Resize(rows);
  HashKeys(keys, rows, hashes->Data<uint64_t>());
  // Sort by (hash, key 0, key 1, ...): the hash decides; keys only break 64-bit hash ties.
  Block ranked;
  ranked.rows_without_columns = rows;
  ranked.columns.push_back(hashes);
  std::vector<SortColumn> order = {SortColumn{0, false}};
  for (size_t k = 0; k < key_count; ++k) {
    ranked.columns.push_back(keys[k]);
    order.push_back(SortColumn{k + 1, false});
  }
  return SortPermutation(ranked, order, limit);
}

}  // namespace granite::core

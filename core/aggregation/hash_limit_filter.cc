#include "core/aggregation/hash_limit_filter.h"

#include <algorithm>
#include <memory>

#include "core/aggregation/key_hash.h"
#include "core/block_sort.h"

namespace granite::core {

HashLimitFilter::HashLimitFilter(size_t limit) : limit_(limit) {
  heap_.reserve(limit + 1);
  admitted_.reserve(limit + 1);
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
    if (!admitted_.contains(h)) Admit(h);
    mask[i] = 1;
    ++kept;
  }
  return kept;
}

size_t HashLimitFilter::Filter(const std::vector<ColumnPtr>& keys, size_t rows, uint8_t* mask) {
  if (hashes_.size() < rows) hashes_.resize(rows);
  HashKeys(keys, rows, hashes_.data());
  return FilterHashes(hashes_.data(), rows, mask);
}

size_t HashLimitFilter::Apply(Block* input, std::vector<ColumnPtr>* keys) {
  size_t rows = input->rows();
  if (mask_.size() < rows) mask_.resize(rows);
  size_t kept = Filter(*keys, rows, mask_.data());
  if (kept == rows) return rows;
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

#include "coordinator/exec/key_ref_grouper.h"

#include <cstring>
#include <string_view>

#include "core/hash.h"

namespace granite::coordinator {

namespace {

// Folds one key column's value hash into a row's hash (the table index is taken after a final
// HashIntKey, so a multiply-xor per column suffices).
inline uint64_t Fold(uint64_t row_hash, uint64_t value_hash) {
  return (row_hash ^ value_hash) * 0x9E3779B97F4A7C15ULL;
}

template <typename T>
void FoldFixed(const core::Column& column, std::vector<uint64_t>* hashes) {
  const T* values = column.Data<T>();
  for (size_t row = 0; row < hashes->size(); ++row) {
    if constexpr (sizeof(T) > 8) {  // a 128-bit key (Decimal128): both halves
      const auto bits = static_cast<unsigned __int128>(values[row]);
      (*hashes)[row] = Fold(Fold((*hashes)[row], core::HashIntKey(static_cast<uint64_t>(bits))),
                            core::HashIntKey(static_cast<uint64_t>(bits >> 64)));
    } else {
      (*hashes)[row] = Fold((*hashes)[row], core::HashIntKey(static_cast<uint64_t>(values[row])));
    }
  }
}

}  // namespace

void KeyRefGrouper::HashRows(const core::Block& block, std::vector<uint64_t>* hashes) const {
  hashes->assign(block.rows(), 0);
  for (size_t k = 0; k < key_count_; ++k) {
    const core::Column& column = *block.columns[k];
    switch (widths_[k]) {
      case 0:
        for (size_t row = 0; row < hashes->size(); ++row) {
          (*hashes)[row] = Fold((*hashes)[row], core::HashBytes(column.StringAt(row)));
        }
        break;
      case 1: FoldFixed<uint8_t>(column, hashes); break;
      case 2: FoldFixed<uint16_t>(column, hashes); break;
      case 4: FoldFixed<uint32_t>(column, hashes); break;
      case 16: FoldFixed<unsigned __int128>(column, hashes); break;
      default: FoldFixed<uint64_t>(column, hashes); break;
    }
  }
  for (uint64_t& hash : *hashes) hash = core::HashIntKey(hash);
}

bool KeyRefGrouper::SameKeys(const core::Block& a, size_t row_a, const core::Block& b,
                             size_t row_b) const {
  for (size_t k = 0; k < key_count_; ++k) {
    const core::Column& x = *a.columns[k];
    const core::Column& y = *b.columns[k];
    size_t width = widths_[k];
    if (width == 0) {
      if (x.StringAt(row_a) != y.StringAt(row_b)) return false;
    } else {
      if (std::memcmp(x.RawData() + row_a * width, y.RawData() + row_b * width, width) != 0) {
        return false;
      }
    }
  }
  return true;
}

std::vector<std::vector<uint32_t>> KeyRefGrouper::Assign(const std::vector<core::Block>& inputs) {
  std::vector<std::vector<uint32_t>> ids(inputs.size());
  size_t rows = 0;
  for (const core::Block& input : inputs) rows += input.rows();
  size_t capacity = 16;
  while (capacity < 2 * rows) capacity *= 2;
  struct Slot {
    uint64_t hash;
    uint32_t group;  // kEmpty: free
  };
  constexpr uint32_t kEmpty = ~uint32_t{0};
  std::vector<Slot> table(capacity, Slot{0, kEmpty});
  size_t mask = capacity - 1;
  std::vector<uint64_t> hashes;
  for (const core::Block& input : inputs) {
    if (input.rows() == 0) continue;
    for (size_t k = 0; k < key_count_; ++k) {
      widths_.push_back(core::ValueSize(input.columns[k]->type()));
    }
    break;
  }
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    const core::Block& input = inputs[i];
    std::vector<uint32_t>& of_row = ids[i];
    if (input.rows() == 0) continue;
    of_row.resize(input.rows());
    HashRows(input, &hashes);
    for (uint32_t row = 0; row < input.rows(); ++row) {
      uint64_t hash = hashes[row];
      size_t at = static_cast<size_t>(hash) & mask;
      while (true) {
        Slot& slot = table[at];
        if (slot.group == kEmpty) {
          slot = {hash, static_cast<uint32_t>(firsts_.size())};
          firsts_.push_back({i, row});
          break;
        }
        if (slot.hash == hash) {
          const Ref& first = firsts_[slot.group];
          if (SameKeys(inputs[first.input], first.row, input, row)) break;
        }
        at = (at + 1) & mask;
      }
      of_row[row] = table[at].group;
    }
  }
  return ids;
}

}  // namespace granite::coordinator

#include "core/aggregation/string_hash_map.h"

namespace granite::core {

void StringHashMap::Reset(size_t initial_capacity) {
  size_t capacity = std::bit_ceil(initial_capacity < 4 ? size_t{4} : initial_capacity);
  Slot empty{};
  empty.group = kEmpty;
  std::vector<Slot>(capacity, empty).swap(slots_);
  mask_ = capacity - 1;
  size_ = 0;
}

void StringHashMap::Grow() {
  Slot empty{};
  empty.group = kEmpty;
  size_t factor = slots_.size() < kQuadrupleCapacity ? 4 : 2;
  std::vector<Slot> old(slots_.size() * factor, empty);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.group == kEmpty) continue;
    size_t pos = slot.hash & mask_;
    while (slots_[pos].group != kEmpty) pos = (pos + 1) & mask_;
    slots_[pos] = slot;
  }
}

}  // namespace granite::core

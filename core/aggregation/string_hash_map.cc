#include "core/aggregation/string_hash_map.h"

namespace granite::core {

void StringHashMap::Reset(size_t initial_capacity) {
  size_t capacity = std::bit_ceil(initial_capacity < 4 ? size_t{4} : initial_capacity);
  SlotArray<Slot>(capacity).swap(slots_);
  capacity_ = capacity;
  mask_ = capacity - 1;
  size_ = 0;
}

void StringHashMap::Grow() {
  size_t factor = capacity_ < kQuadrupleCapacity ? 4 : 2;
  SlotArray<Slot> old(capacity_ * factor);
  old.swap(slots_);
  size_t old_capacity = capacity_;
  capacity_ *= factor;
  mask_ = capacity_ - 1;
  for (size_t i = 0; i < old_capacity; ++i) {
    const Slot& slot = old[i];
    if (slot.Empty()) continue;
    size_t pos = slot.hash & mask_;
    while (!slots_[pos].Empty()) pos = (pos + 1) & mask_;
    slots_[pos] = slot;
  }
}

}  // namespace granite::core

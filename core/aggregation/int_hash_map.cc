#include "core/aggregation/int_hash_map.h"

#include <bit>

namespace granite::core {

void IntHashMap::Reset(size_t initial_capacity) {
  size_t capacity = std::bit_ceil(initial_capacity < 4 ? size_t{4} : initial_capacity);
  std::vector<Slot>(capacity, Slot{0, kEmpty}).swap(slots_);
  mask_ = capacity - 1;
  size_ = 0;
}

void IntHashMap::Grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{0, kEmpty});
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.group == kEmpty) continue;
    size_t pos = HashInt(slot.key) & mask_;
    while (slots_[pos].group != kEmpty) pos = (pos + 1) & mask_;
    slots_[pos] = slot;
  }
}

}  // namespace granite::core

#include "core/aggregation/string_hash_map.h"

#include <bit>

namespace granite::core {

void StringHashMap::Reset(size_t initial_capacity) {
  size_t capacity = std::bit_ceil(initial_capacity < 4 ? size_t{4} : initial_capacity);
  std::vector<Slot>(capacity, Slot{0, nullptr, 0, kEmpty}).swap(slots_);
  mask_ = capacity - 1;
  size_ = 0;
  arena_.Clear();
}

void StringHashMap::Grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{0, nullptr, 0, kEmpty});
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

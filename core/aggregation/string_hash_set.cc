#include "core/aggregation/string_hash_set.h"

namespace granite::core {

void StringHashSet::Rehash(size_t capacity) {
  Slot* old = slots_;
  size_t old_capacity = this->capacity();
  slots_ = static_cast<Slot*>(SlotPool::Allocate(pool_, capacity * sizeof(Slot)));
  mask_ = capacity - 1;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (old[i].data != nullptr) Place(old[i]);
  }
  SlotPool::Release(pool_, old, old_capacity * sizeof(Slot));
}

void StringHashSet::InsertAllFrom(const StringHashSet& other) {
  if (other.size_ == 0) return;
  Reserve(size_ + other.size_);
  for (size_t i = 0; i <= other.mask_; ++i) {
    const Slot& from = other.slots_[i];
    if (from.data == nullptr) continue;
    Slot* slot = Find(std::string_view(from.data, from.size), from.hash);
    if (slot->data != nullptr) continue;
    *slot = from;
    ++size_;
  }
}

}  // namespace granite::core

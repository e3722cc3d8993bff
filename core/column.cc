#include "core/column.h"

namespace granite::core {

void Column::Resize(size_t rows) {
  data_.resize(rows * width_);
  size_ = rows;
}

void Column::Reserve(size_t rows) {
  if (type_ == TypeId::kString) {
    offsets_.reserve(rows);
  } else {
    data_.reserve(rows * width_);
  }
}

void Column::AppendFrom(const Column& other, size_t row) {
  if (type_ == TypeId::kString) {
    AppendString(other.StringAt(row));
    return;
  }
  size_t old = data_.size();
  data_.resize(old + width_);
  std::memcpy(data_.data() + old, other.data_.data() + row * width_, width_);
  ++size_;
}

void Column::AppendRange(const Column& other, size_t start, size_t count) {
  if (count == 0) return;
  if (type_ == TypeId::kString) {
    uint64_t begin = start == 0 ? 0 : other.offsets_[start - 1];
    uint64_t end = other.offsets_[start + count - 1];
    uint64_t base = chars_.size();
    chars_.append(other.chars_.data() + begin, end - begin);
    offsets_.reserve(offsets_.size() + count);
    for (size_t i = 0; i < count; ++i) offsets_.push_back(other.offsets_[start + i] - begin + base);
  } else {
    data_.insert(data_.end(), other.data_.begin() + start * width_,
                 other.data_.begin() + (start + count) * width_);
  }
  size_ += count;
}

Column Column::Filter(const uint8_t* mask) const {
  Column out(type_);
  size_t kept = 0;
  for (size_t i = 0; i < size_; ++i) kept += mask[i] != 0;
  if (type_ == TypeId::kString) {
    out.offsets_.reserve(kept);
    for (size_t i = 0; i < size_; ++i) {
      if (mask[i]) out.AppendString(StringAt(i));
    }
    return out;
  }
  // One spare byte: the branch-free width-1 loop writes every row, including dropped ones.
  out.data_.resize(kept * width_ + 1);
  char* dst = out.data_.data();
  const char* src = data_.data();
  switch (width_) {
    case 1:
      for (size_t i = 0; i < size_; ++i) { *dst = src[i]; dst += mask[i] != 0; }
      break;
    default:
      for (size_t i = 0; i < size_; ++i) {
        if (mask[i]) { std::memcpy(dst, src + i * width_, width_); dst += width_; }
      }
  }
  out.data_.resize(kept * width_);
  out.size_ = kept;
  return out;
}

Column Column::Take(const uint32_t* indices, size_t count) const {
  Column out(type_);
  if (type_ == TypeId::kString) {
    out.offsets_.reserve(count);
    for (size_t i = 0; i < count; ++i) out.AppendString(StringAt(indices[i]));
    return out;
  }
  out.data_.resize(count * width_);
  char* dst = out.data_.data();
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * width_, data_.data() + size_t{indices[i]} * width_, width_);
  }
  out.size_ = count;
  return out;
}

Column Column::Slice(size_t start, size_t count) const {
  Column out(type_);
  out.AppendRange(*this, start, count);
  return out;
}

}  // namespace granite::core

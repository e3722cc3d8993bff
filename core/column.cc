#include "core/column.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/gather.h"
#include "core/tuple_type.h"

namespace granite::core {

namespace {

// Gathers `count` values of kWidth bytes: a compile-time width turns each memcpy into one move.
template <size_t kWidth>
void TakeFixed(const char* src, size_t src_rows, const uint32_t* indices, size_t count,
               char* dst) {
  struct Value {
    char bytes[kWidth];
  };
  Gather(reinterpret_cast<const Value*>(src), src_rows, indices, count,
         [dst](const Value& value, size_t i) { std::memcpy(dst + i * kWidth, &value, kWidth); });
}

// Copies the values of kWidth bytes whose mask byte is set. Reads the mask eight rows at a time:
// a run of dropped rows costs one test, a run of kept rows one memcpy, so a selective filter
// (WHERE UserID = c) or a mostly-true one costs far less than a test per row. A mixed run writes
// every row and advances past the kept ones only: no branch to mispredict on a mask that keeps
// rows at random (a condition keeping half the rows; bench/column/filter_bench.cc).
// REQUIRES: dst holds every kept value plus kWidth spare bytes.
template <size_t kWidth>
void FilterFixed(const char* src, const uint8_t* mask, size_t rows, char* dst) {
  constexpr uint64_t kAllKept = 0x0101010101010101ull;
  size_t i = 0;
  for (; i + 8 <= rows; i += 8) {
    uint64_t word;
    std::memcpy(&word, mask + i, 8);
    if (word == 0) continue;
    if (word == kAllKept) {
      std::memcpy(dst, src + i * kWidth, 8 * kWidth);
      dst += 8 * kWidth;
      continue;
    }
    for (size_t j = i; j < i + 8; ++j) {
      std::memcpy(dst, src + j * kWidth, kWidth);  // the spare bytes take a dropped row's write
      dst += kWidth * static_cast<size_t>(mask[j] != 0);
    }
  }
  for (; i < rows; ++i) {
    if (mask[i]) {
      std::memcpy(dst, src + i * kWidth, kWidth);
      dst += kWidth;
    }
  }
}

// Returns the nested rows of `array`'s rows [start, start + count): the range their elements fill.
std::pair<uint64_t, uint64_t> ElementRange(const Column& array, size_t start, size_t count) {
  return {array.ArrayBegin(start), count == 0 ? array.ArrayBegin(start)
                                              : array.Offsets()[start + count - 1]};
}

}  // namespace

Column::Column(const Column& other)
    : type_(other.type_),
      width_(other.width_),
      size_(other.size_),
      data_(other.data_),
      offsets_(other.offsets_),
      chars_(other.chars_),
      nullable_(other.nullable_),
      nulls_(other.nulls_),
      nested_(other.nested_ != nullptr ? std::make_unique<Column>(*other.nested_) : nullptr),
      elements_(other.elements_) {}

void Column::AddTupleElements() {
  for (TypeId element : TupleTypeOf(type_).elements) elements_.emplace_back(element);
}

size_t Column::ElementsByteSize() const {
  size_t bytes = 0;
  for (const Column& element : elements_) bytes += element.ByteSize();
  return bytes;
}

Column& Column::operator=(const Column& other) {
  if (this != &other) *this = Column(other);
  return *this;
}

void Column::Resize(size_t rows) {
  if (IsTuple(type_)) {  // grows only: new rows are tuples of defaults (AppendNull)
    while (size_ < rows) AppendNull();
    return;
  }
  if (IsArray(type_)) {  // new rows are empty arrays
    offsets_.resize(rows, nested_->size());
    size_ = rows;
    return;
  }
  data_.resize(rows * width_, 0);
  size_ = rows;
  if (nullable_) nulls_.resize(rows, 0);
}

void Column::ResizeUninitialized(size_t rows) {
  if (IsArray(type_)) return Resize(rows);
  data_.resize(rows * width_);
  size_ = rows;
  if (nullable_) nulls_.resize(rows, 0);
}

void Column::MakeNullable() {
  // Arrays and tuples are never Nullable (as in ClickHouse): see core/types.h.
  if (nullable_ || IsArray(type_) || IsTuple(type_)) return;
  nullable_ = true;
  nulls_.assign(size_, 0);
}

void Column::AppendNull() {
  if (IsArray(type_)) return AppendArrayEnd();  // never Nullable: an empty array stands in
  if (IsTuple(type_)) {  // never Nullable: a tuple of defaults stands in
    for (Column& element : elements_) {
      if (element.nullable_ || IsArray(element.type_) || IsTuple(element.type_)) {
        element.AppendNull();  // NULL, [] or a tuple of defaults
      } else if (HasStringLayout(element.type_)) {
        element.AppendString(std::string(FixedStringSizeOf(element.type_), '\0'));
      } else {
        element.Resize(element.size_ + 1);
      }
    }
    ++size_;
    return;
  }
  if (HasStringLayout(type_)) {
    chars_.append(FixedStringSizeOf(type_), '\0');  // FixedString(N): N zero bytes; String: none
    offsets_.push_back(chars_.size());
  } else {
    data_.resize(data_.size() + width_, 0);
  }
  ++size_;
  nulls_.push_back(1);
}

bool Column::HasNulls() const {
  if (!nullable_) return false;
  for (uint8_t n : nulls_) {
    if (n != 0) return true;
  }
  return false;
}

void Column::Reserve(size_t rows) {
  for (Column& element : elements_) element.Reserve(rows);
  if (nullable_) nulls_.reserve(rows);
  if (HasStringLayout(type_) || IsArray(type_)) {
    offsets_.reserve(rows);
  } else {
    data_.reserve(rows * width_);
  }
}

void Column::AppendFrom(const Column& other, size_t row) {
  if (IsArray(type_) || IsTuple(type_)) return AppendRange(other, row, 1);
  if (nullable_) nulls_.push_back(other.IsNullAt(row) ? 1 : 0);
  if (HasStringLayout(type_)) {
    chars_.append(other.StringAt(row));
    offsets_.push_back(chars_.size());
    ++size_;
    return;
  }
  size_t old = data_.size();
  data_.resize(old + width_);
  std::memcpy(data_.data() + old, other.data_.data() + row * width_, width_);
  ++size_;
}

void Column::AppendRange(const Column& other, size_t start, size_t count) {
  if (count == 0) return;
  if (IsTuple(type_)) {
    for (size_t i = 0; i < elements_.size(); ++i) {
      elements_[i].AppendRange(other.elements_[i], start, count);
    }
    size_ += count;
    return;
  }
  if (IsArray(type_)) {
    const auto [begin, end] = ElementRange(other, start, count);
    const uint64_t base = nested_->size();
    nested_->AppendRange(*other.nested_, begin, end - begin);
    if (offsets_.capacity() < offsets_.size() + count) {
      offsets_.reserve(std::max(offsets_.size() + count, 2 * offsets_.capacity()));
    }
    for (size_t i = 0; i < count; ++i) offsets_.push_back(other.offsets_[start + i] - begin + base);
    size_ += count;
    return;
  }
  if (nullable_) {
    if (other.nullable_) {
      nulls_.insert(nulls_.end(), other.nulls_.begin() + start,
                    other.nulls_.begin() + start + count);
    } else {
      nulls_.resize(nulls_.size() + count, 0);
    }
  }
  if (HasStringLayout(type_)) {
    uint64_t begin = start == 0 ? 0 : other.offsets_[start - 1];
    uint64_t end = other.offsets_[start + count - 1];
    uint64_t base = chars_.size();
    chars_.append(other.chars_.data() + begin, end - begin);
    // Grow geometrically: an exact reserve here would reallocate on every call, making a column
    // built by repeated appends quadratic.
    if (offsets_.capacity() < offsets_.size() + count) {
      offsets_.reserve(std::max(offsets_.size() + count, 2 * offsets_.capacity()));
    }
    for (size_t i = 0; i < count; ++i) offsets_.push_back(other.offsets_[start + i] - begin + base);
  } else {
    data_.insert(data_.end(), other.data_.begin() + start * width_,
                 other.data_.begin() + (start + count) * width_);
  }
  size_ += count;
}

Column Column::Filter(const uint8_t* mask) const {
  if (IsTuple(type_)) {
    Column out(type_);
    for (size_t i = 0; i < elements_.size(); ++i) out.elements_[i] = elements_[i].Filter(mask);
    for (size_t i = 0; i < size_; ++i) out.size_ += mask[i] != 0;
    return out;
  }
  if (IsArray(type_)) {
    // Expands the row mask to the elements, filters them in one pass, then rebuilds the offsets.
    std::vector<uint8_t> element_mask(nested_->size());
    Column out(type_);
    uint64_t end = 0;
    for (size_t i = 0; i < size_; ++i) {
      const uint64_t begin = ArrayBegin(i);
      if (mask[i] == 0) continue;
      std::fill(element_mask.begin() + begin, element_mask.begin() + offsets_[i], 1);
      end += offsets_[i] - begin;
      out.offsets_.push_back(end);
    }
    *out.nested_ = nested_->Filter(element_mask.data());
    out.size_ = out.offsets_.size();
    return out;
  }
  Column out(type_);
  size_t kept = 0;
  for (size_t i = 0; i < size_; ++i) kept += mask[i] != 0;
  if (nullable_) {
    out.nullable_ = true;
    out.nulls_.reserve(kept);
    for (size_t i = 0; i < size_; ++i) {
      if (mask[i]) out.nulls_.push_back(nulls_[i]);
    }
  }
  if (HasStringLayout(type_)) {
    // Sizes the output once, then copies each run of kept rows with one append: no regrowth, and
    // a mostly-true mask (WHERE URL <> '') costs about one memcpy of the chars.
    const uint64_t* offsets = offsets_.data();
    uint64_t bytes = 0;
    for (size_t i = 0; i < size_; ++i) {
      if (mask[i]) bytes += offsets[i] - (i == 0 ? 0 : offsets[i - 1]);
    }
    out.offsets_.reserve(kept);
    out.chars_.reserve(bytes);
    size_t i = 0;
    while (i < size_) {
      if (!mask[i]) {
        ++i;
        continue;
      }
      uint64_t begin = i == 0 ? 0 : offsets[i - 1];
      uint64_t base = out.chars_.size();
      for (; i < size_ && mask[i]; ++i) out.offsets_.push_back(base + (offsets[i] - begin));
      out.chars_.append(chars_.data() + begin, offsets[i - 1] - begin);
    }
    out.size_ = kept;
    return out;
  }
  // One value spare: the branch-free loop writes every row, including dropped ones.
  out.data_.resize(kept * width_ + std::max<size_t>(width_, 1));
  char* dst = out.data_.data();
  const char* src = data_.data();
  switch (width_) {
    case 1: FilterFixed<1>(src, mask, size_, dst); break;
    case 2: FilterFixed<2>(src, mask, size_, dst); break;
    case 4: FilterFixed<4>(src, mask, size_, dst); break;
    case 8: FilterFixed<8>(src, mask, size_, dst); break;
    default:
      for (size_t i = 0; i < size_; ++i) {
        if (mask[i]) { std::memcpy(dst, src + i * width_, width_); dst += width_; }
      }
  }
  out.data_.resize(kept * width_);
  out.size_ = kept;
  return out;
}

void Column::AppendTaken(const Column& from, const uint32_t* indices, size_t count) {
  const size_t old = size_;
  if (IsTuple(type_)) {
    for (size_t i = 0; i < elements_.size(); ++i) {
      elements_[i].AppendTaken(from.elements_[i], indices, count);
    }
    size_ = old + count;
    return;
  }
  if (IsArray(type_)) {
    std::vector<uint32_t> elements;
    for (size_t i = 0; i < count; ++i) {
      const uint64_t begin = from.ArrayBegin(indices[i]), end = from.offsets_[indices[i]];
      for (uint64_t e = begin; e < end; ++e) elements.push_back(static_cast<uint32_t>(e));
      offsets_.push_back(nested_->size() + elements.size());
    }
    nested_->AppendTaken(*from.nested_, elements.data(), elements.size());
    size_ = old + count;
    return;
  }
  if (nullable_) {
    nulls_.resize(old + count, 0);
    if (from.nullable_) {
      for (size_t i = 0; i < count; ++i) nulls_[old + i] = from.nulls_[indices[i]];
    }
  }
  if (HasStringLayout(type_)) {
    // Sizes both buffers once (growing geometrically), then copies each string into place.
    const uint64_t* offsets = from.offsets_.data();
    uint64_t bytes = 0;
    for (size_t i = 0; i < count; ++i) {
      uint32_t row = indices[i];
      bytes += offsets[row] - (row == 0 ? 0 : offsets[row - 1]);
    }
    uint64_t end = chars_.size();
    offsets_.resize(old + count);
    chars_.resize(end + bytes);
    char* dst = chars_.data();
    const char* src = from.chars_.data();
    for (size_t i = 0; i < count; ++i) {
      uint32_t row = indices[i];
      uint64_t begin = row == 0 ? 0 : offsets[row - 1];
      uint64_t size = offsets[row] - begin;
      std::memcpy(dst + end, src + begin, size);
      end += size;
      offsets_[old + i] = end;
    }
    size_ = old + count;
    return;
  }
  data_.resize((old + count) * width_);
  char* dst = data_.data() + old * width_;
  const char* src = from.data_.data();
  switch (width_) {
    case 1: TakeFixed<1>(src, from.size_, indices, count, dst); break;
    case 2: TakeFixed<2>(src, from.size_, indices, count, dst); break;
    case 4: TakeFixed<4>(src, from.size_, indices, count, dst); break;
    case 8: TakeFixed<8>(src, from.size_, indices, count, dst); break;
    case 16: TakeFixed<16>(src, from.size_, indices, count, dst); break;
    default:
      for (size_t i = 0; i < count; ++i) {
        std::memcpy(dst + i * width_, src + size_t{indices[i]} * width_, width_);
      }
  }
  size_ = old + count;
}

Column Column::Take(const uint32_t* indices, size_t count) const {
  Column out(logical_type());
  out.AppendTaken(*this, indices, count);
  return out;
}

Column Column::Slice(size_t start, size_t count) const {
  Column out(logical_type());
  out.AppendRange(*this, start, count);
  return out;
}

}  // namespace granite::core

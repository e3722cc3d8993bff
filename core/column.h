// Column: one typed vector of values, the unit every kernel works on. Fixed-width values live in
// one contiguous buffer; strings are a byte buffer plus end offsets (like ClickHouse's ColumnString).
// Blocks (core/block.h) hold columns by shared pointer so filters and projections share them.
//
// Nullable(T) (like ClickHouse's ColumnNullable): a column built with a Nullable type holds T's
// values plus a null map of one byte per row (1 = NULL; the value under a NULL is T's default).
// type() is T, so every kernel written for T runs unchanged on the values; logical_type() is
// Nullable(T). Filter, Take, Slice and the appends carry the null map along; a column without
// the flag has no map and pays nothing for it.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/types.h"

namespace granite::core {

struct DictionaryCodes;  // core/dictionary_codes.h

// Allocates like std::allocator but default-initializes elements that are built without a value:
// resize() of a vector of chars leaves the new bytes as they are instead of zeroing them, for
// buffers that are written right after they grow (decompression, filter, take).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Holds the values of one column.
// Thread-safety: none; share only as `const` (ColumnPtr) once built.
// Invariants: fixed-width: data_.size() == size_ * ValueSize(type_);
//             String: offsets_.size() == size_, offsets_[i] is the end of row i in chars_;
//             Array: offsets_ as String's, into nested_ (offsets_.back() == nested_->size());
//             Tuple: elements_[i].size() == size_ for every element; no null map;
//             nullable_: nulls_.size() == size_; else nulls_ is empty; type_ has no Nullable flag.
class Column {
 public:
  explicit Column(TypeId type)
      : type_(RemoveNullable(type)), width_(ValueSize(type)), nullable_(IsNullable(type)) {
    if (IsArray(type)) nested_ = std::make_unique<Column>(ArrayElementOf(type));
    if (IsTuple(type)) AddTupleElements();
  }
  // Copies deep: an array's nested column too.
  Column(const Column& other);
  Column& operator=(const Column& other);
  Column(Column&&) noexcept = default;
  Column& operator=(Column&&) noexcept = default;

  // The type of the values (T for Nullable(T)).
  TypeId type() const { return type_; }
  // The column's type as declared: Nullable(T) for a column with a null map.
  TypeId logical_type() const { return WithNullable(type_, nullable_); }
  bool nullable() const { return nullable_; }
  // The null map (size() bytes, 1 = NULL), or nullptr when the column is not Nullable.
  const uint8_t* NullMap() const { return nullable_ ? nulls_.data() : nullptr; }
  // REQUIRES: nullable().
  uint8_t* MutableNullMap() { return nulls_.data(); }
  bool IsNullAt(size_t row) const { return nullable_ && nulls_[row] != 0; }
  // Makes the column Nullable: an all-zero null map (no NULL yet). No-op if it already is.
  void MakeNullable();
  // Gives a DateTime or DateTime64 column the zone `zone` (core/time_zone.h): the values, UTC
  // instants, stay as they are; only how they read as text and in calendar functions changes.
  // REQUIRES: IsDateTime(type()) or IsDateTime64(type()).
  void SetTimeZone(uint32_t zone) { type_ = WithTimeZone(type_, zone); }
  // Drops the null map (the values under NULLs become visible as T's defaults).
  void DropNullMap() { nullable_ = false; nulls_.clear(); nulls_.shrink_to_fit(); }
  // Appends a NULL: T's default with a 1 in the null map ([] for an array, defaults for a tuple).
  void AppendNull();
  // Returns whether any row is NULL (false for a column that is not Nullable).
  bool HasNulls() const;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Fixed-width access. REQUIRES: sizeof(T) == ValueSize(type()).
  template <typename T>
  T* Data() { return reinterpret_cast<T*>(data_.data()); }
  template <typename T>
  const T* Data() const { return reinterpret_cast<const T*>(data_.data()); }
  template <typename T>
  T Get(size_t row) const { return Data<T>()[row]; }
  template <typename T>
  void Append(T value) {
    size_t old = data_.size();
    data_.resize(old + sizeof(T));
    std::memcpy(data_.data() + old, &value, sizeof(T));
    ++size_;
    if (nullable_) nulls_.push_back(0);
  }
  // Resizes a fixed-width column; new values are zero.
  void Resize(size_t rows);
  // Resizes a fixed-width column leaving new values unset: for a caller that writes every new
  // value next (a read that decompresses into RawData()), so the bytes are not zeroed first.
  void ResizeUninitialized(size_t rows);
  // Returns the raw bytes of a fixed-width column (size() * ValueSize(type())).
  const char* RawData() const { return data_.data(); }
  char* RawData() { return data_.data(); }
  size_t RawSize() const { return data_.size(); }

  // String access. REQUIRES: type() == String.
  std::string_view StringAt(size_t row) const {
    uint64_t begin = row == 0 ? 0 : offsets_[row - 1];
    return std::string_view(chars_.data() + begin, offsets_[row] - begin);
  }
  void AppendString(std::string_view value) {
    chars_.append(value.data(), value.size());
    offsets_.push_back(chars_.size());
    ++size_;
    if (nullable_) nulls_.push_back(0);
  }
  // Array access. REQUIRES: IsArray(type()). Row i's elements are Nested() rows
  // [ArrayBegin(i), Offsets()[i]).
  const Column& Nested() const { return *nested_; }
  Column& MutableNested() { return *nested_; }
  uint64_t ArrayBegin(size_t row) const { return row == 0 ? 0 : offsets_[row - 1]; }
  uint64_t ArraySizeAt(size_t row) const { return offsets_[row] - ArrayBegin(row); }
  // Ends a row: the elements appended to MutableNested() since the previous row's end.
  void AppendArrayEnd() {
    offsets_.push_back(nested_->size());
    ++size_;
  }

  // Tuple access. REQUIRES: IsTuple(type()). Element i holds every row's i-th value; after
  // appending to the elements directly, SetSize(rows) ends the rows.
  size_t TupleSize() const { return elements_.size(); }
  const Column& Element(size_t i) const { return elements_[i]; }
  Column& MutableElement(size_t i) { return elements_[i]; }

  const std::vector<uint64_t>& Offsets() const { return offsets_; }
  const std::string& Chars() const { return chars_; }
  std::vector<uint64_t>& MutableOffsets() { return offsets_; }
  std::string& MutableChars() { return chars_; }
  // Sets size after filling offsets/chars (or raw data) directly; a null map grows with zeros.
  void SetSize(size_t rows) {
    size_ = rows;
    if (nullable_) nulls_.resize(rows, 0);
  }

  void Reserve(size_t rows);
  // The appends below take `other`'s NULLs when this column is Nullable (a non-Nullable source
  // adds zeros); into a non-Nullable column a NULL arrives as its value, T's default.
  // Appends row `row` of `other`. REQUIRES: other.type() == type().
  void AppendFrom(const Column& other, size_t row);
  // Appends rows [start, start + count) of `other`. REQUIRES: other.type() == type().
  void AppendRange(const Column& other, size_t start, size_t count);
  // Returns the rows whose mask byte is non-zero. REQUIRES: mask has size() bytes.
  Column Filter(const uint8_t* mask) const;
  // Returns rows in the order of `indices`. REQUIRES: each index < size().
  Column Take(const uint32_t* indices, size_t count) const;
  // Appends rows indices[0 .. count) of `from`; the buffers grow geometrically, so a column built
  // by repeated appends stays linear. REQUIRES: from.type() == type(); each index < from.size().
  void AppendTaken(const Column& from, const uint32_t* indices, size_t count);
  // Returns rows [start, start + count).
  Column Slice(size_t start, size_t count) const;
  // LowCardinality: a String-layout column read from a dictionary-encoded part also carries its
  // rows as codes into the part's dictionary (core/dictionary_codes.h), so a filter or GROUP BY
  // of the column can work once per distinct value. Null for every other column. Attached by
  // the part reader to the column it returns; a copy (and every column built from this one:
  // Filter, Take, Slice, appends) does not carry it.
  // REQUIRES (Attach): the column is not changed afterwards; codes describe its rows.
  const DictionaryCodes* dictionary_codes() const { return dictionary_codes_.get(); }
  void AttachDictionaryCodes(std::shared_ptr<const DictionaryCodes> codes) {
    dictionary_codes_ = std::move(codes);
  }

  // Approximate bytes held, for statistics.
  size_t ByteSize() const {
    return data_.size() + chars_.size() + offsets_.size() * 8 + nulls_.size() +
           (nested_ != nullptr ? nested_->ByteSize() : 0) + ElementsByteSize();
  }

 private:
  void AddTupleElements();  // one empty column per element type (core/tuple_type.h)
  size_t ElementsByteSize() const;

  TypeId type_;
  size_t width_;
  size_t size_ = 0;
  std::vector<char, DefaultInitAllocator<char>> data_;  // growth is not zeroed: see Resize
  std::vector<uint64_t> offsets_;
  std::string chars_;
  bool nullable_ = false;
  std::vector<uint8_t> nulls_;  // see the invariants
  std::unique_ptr<Column> nested_;  // Array(T): the elements; else null
  std::vector<Column> elements_;    // Tuple: one column per element; else empty
  std::shared_ptr<const DictionaryCodes> dictionary_codes_;  // see dictionary_codes()
};

using ColumnPtr = std::shared_ptr<const Column>;
using MutableColumnPtr = std::shared_ptr<Column>;

}  // namespace granite::core

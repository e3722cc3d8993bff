// uniqExact(x) (also countDistinct(x) and COUNT(DISTINCT x)): the exact number of distinct values
// per group, result UInt64. The state is one hash set per group: fixed-width values as their
// 64-bit widened form (WidenKey, so -0.0 and 0.0 count once), strings as their bytes (copied into
// an arena owned by the function).
//
// Partial state: one String column, one serialized set per group:
//   version byte (1), kind byte (0 = 64-bit values, 1 = strings), varint count, then count values
//   (8 bytes little-endian each) or count strings (varint length + bytes).
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/aggregation/arena.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/varint.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kFixedKind = 0;
constexpr uint8_t kStringKind = 1;

absl::Status CorruptState(std::string_view detail) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Cannot read uniqExact state: ", ToAbsl(detail)));
}

// Reads the header of a serialized set and returns its element count.
absl::Status ReadHeader(std::string_view* bytes, uint8_t kind, uint64_t* count) {
  if (bytes->size() < 2 || static_cast<uint8_t>((*bytes)[0]) != kVersion ||
      static_cast<uint8_t>((*bytes)[1]) != kind) {
    return CorruptState(absl::StrCat("bad header of ", bytes->size(), " bytes"));
  }
  bytes->remove_prefix(2);
  if (!GetVarint64(bytes, count)) return CorruptState("truncated count");
  return absl::OkStatus();
}

// Common part of both set kinds: states, resizing and the String state column.
// Set must provide size(); Derived provides AddValues/AddOne/Serialize/MergeOne.
template <typename Set, typename Derived>
class UniqExactBase : public AggregateFunction {
 public:
  std::vector<TypeId> StateTypes() const override { return {TypeId::kString}; }
  TypeId ResultType() const override { return TypeId::kUInt64; }
  size_t groups() const override { return sets_.size(); }
  void Resize(size_t groups) override { sets_.resize(groups); }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const Column& column = *states[0];
    for (size_t i = 0; i < rows; ++i) {
      absl::Status status =
          static_cast<Derived*>(this)->MergeOne(&sets_[group_ids[i]], column.StringAt(i));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    std::string bytes;
    out[0]->Reserve(out[0]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      static_cast<const Derived*>(this)->Serialize(sets_[groups[i]], &bytes);
      out[0]->AppendString(bytes);
    }
  }

  void Finalize(Column* out) const override {
    for (const Set& set : sets_) out->Append<uint64_t>(set.size());
  }

 protected:
  std::vector<Set> sets_;
};

// Counts distinct fixed-width values of physical type T.
template <typename T>
class UniqExactFixedFunction final
    : public UniqExactBase<absl::flat_hash_set<uint64_t>, UniqExactFixedFunction<T>> {
 public:
  using Set = absl::flat_hash_set<uint64_t>;

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const T* values = args[0]->Data<T>();
    for (size_t i = 0; i < rows; ++i) this->sets_[group_ids[i]].insert(WidenKey(values[i]));
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const T* values = args[0]->Data<T>();
    Set& set = this->sets_[group];
    for (size_t i = 0; i < rows; ++i) set.insert(WidenKey(values[i]));
  }

  void Clear() override { std::vector<Set>().swap(this->sets_); }

  void Serialize(const Set& set, std::string* out) const {
    out->push_back(static_cast<char>(kVersion));
    out->push_back(static_cast<char>(kFixedKind));
    PutVarint64(out, set.size());
    for (uint64_t value : set) {
      char bytes[8];
      std::memcpy(bytes, &value, 8);  // little-endian hosts only, like the block codec
      out->append(bytes, 8);
    }
  }

  absl::Status MergeOne(Set* set, std::string_view bytes) {
    uint64_t count = 0;
    absl::Status status = ReadHeader(&bytes, kFixedKind, &count);
    if (!status.ok()) return status;
    if (bytes.size() % 8 != 0 || count != bytes.size() / 8) {
      return CorruptState(absl::StrCat(count, " values in ", bytes.size(), " bytes"));
    }
    set->reserve(set->size() + count);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t value;
      std::memcpy(&value, bytes.data() + i * 8, 8);
      set->insert(value);
    }
    return absl::OkStatus();
  }
};

// Counts distinct strings; the set holds views of copies in arena_.
class UniqExactStringFunction final
    : public UniqExactBase<absl::flat_hash_set<std::string_view>, UniqExactStringFunction> {
 public:
  using Set = absl::flat_hash_set<std::string_view>;

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const Column& column = *args[0];
    for (size_t i = 0; i < rows; ++i) Insert(&sets_[group_ids[i]], column.StringAt(i));
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const Column& column = *args[0];
    Set* set = &sets_[group];
    for (size_t i = 0; i < rows; ++i) Insert(set, column.StringAt(i));
  }

  void Clear() override {
    std::vector<Set>().swap(sets_);
    arena_.Clear();
  }

  void Serialize(const Set& set, std::string* out) const {
    out->push_back(static_cast<char>(kVersion));
    out->push_back(static_cast<char>(kStringKind));
    PutVarint64(out, set.size());
    for (std::string_view value : set) {
      PutVarint64(out, value.size());
      out->append(value.data(), value.size());
    }
  }

  absl::Status MergeOne(Set* set, std::string_view bytes) {
    uint64_t count = 0;
    absl::Status status = ReadHeader(&bytes, kStringKind, &count);
    if (!status.ok()) return status;
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t size = 0;
      if (!GetVarint64(&bytes, &size) || size > bytes.size()) {
        return CorruptState(absl::StrCat("string ", i, " of ", count, " is truncated"));
      }
      Insert(set, bytes.substr(0, size));
      bytes.remove_prefix(size);
    }
    if (!bytes.empty()) return CorruptState(absl::StrCat(bytes.size(), " trailing bytes"));
    return absl::OkStatus();
  }

 private:
  void Insert(Set* set, std::string_view value) {
    set->lazy_emplace(value, [&](const Set::constructor& construct) {
      construct(arena_.Copy(value));
    });
  }

  Arena arena_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeUniqExact(TypeId arg) {
  if (arg == TypeId::kString) return std::make_unique<UniqExactStringFunction>();
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    return std::make_unique<UniqExactFixedFunction<T>>();
  });
}

}  // namespace granite::core

// uniqExact(x) (also countDistinct(x) and COUNT(DISTINCT x)): the exact number of distinct values
// per group, result UInt64. The state is one hash set per group: fixed-width values as their
// widened form (WidenKey, so -0.0 and 0.0 count once) in an IntHashSet of 4- or 8-byte slots;
// strings in a StringHashSet (saved hash bits, views of copies in an arena owned by the function).
//
// Parallel merge of one big state (COUNT(DISTINCT x) without GROUP BY): PrepareParts splits a
// state into kBucketCount part sets by the top bits of the value hash (BucketOf(HashIntKey(v)) or
// BucketOf(HashBytes(s))); part p of every thread's state is merged by its own task, and since
// parts hold disjoint values the final merge of the parts only adds their sizes
// (MergeDisjointFrom). The coordinator does the same with part p arriving in bucket p.
//
// Partial state: one String column, one serialized set per group (versioned):
//   version 1 (mergeable): version byte, kind byte (0 = 64-bit values, 1 = strings), varint
//     count, then count values (8 bytes little-endian each: the slot value) or count strings (varint length +
//     bytes);
//   version 2 (final-only, written when this process holds the group's only state): version
//     byte, kind byte, varint count. It finalizes to count and merges only into an empty state;
//   version 3 (disjoint, AggregateSpec::disjoint: this worker's values of the argument are
//     disjoint from every other worker's, coordinator/planner/rules/distinct_planner.h): as version 2, but
//     version 3 counts of one group add up, so a worker sends a count instead of its whole set.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/aggregation/arena.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/int_hash_set.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/slot_pool.h"
#include "core/aggregation/string_hash_set.h"
#include "core/aggregation/varint.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kFinalOnlyVersion = 2;
constexpr uint8_t kDisjointVersion = 3;
constexpr size_t kPrefetchDistance = 16;
// A no-key state (COUNT(DISTINCT x)) past this many values splits into its kBucketCount parts
// while it is being filled: 256 small tables grow and rehash in cache, instead of one huge table
// rehashing (and page-faulting) at every doubling, and the end-of-query split costs nothing.
constexpr size_t kSplitThreshold = 1 << 16;

absl::Status CorruptState(std::string_view detail) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Cannot read uniqExact state: ", ToAbsl(detail)));
}

// Fixed-width arguments of physical type T. Values of types up to 4 bytes live in 4-byte slots
// (the low 32 bits of WidenKey, -0.0 folded), wider ones in 8-byte slots. A value's hash is
// HashIntKey of its slot value zero-extended; serialized states carry that value in 8 bytes.
template <typename T>
struct FixedTraits {
  using Value = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  using Set = IntHashSet<Value>;
  static constexpr uint8_t kKind = 0;
  static constexpr bool kPrefetch = true;

  static Value Get(const Column& column, size_t row) {
    return static_cast<Value>(WidenKey(column.Data<T>()[row]));
  }
  static uint64_t Hash(Value value) { return HashIntKey(value); }
  static void Insert(Set& set, Value value, uint64_t hash, Arena&) { set.Insert(value, hash); }
  // Inserts a value held by another state of the same function.
  static void InsertKept(Set& set, Value value) { set.Insert(value, HashIntKey(value)); }
  static void InsertAll(Set& set, const Set& from) {
    set.Reserve(set.size() + from.size());
    from.ForEach([&](Value value) { set.Insert(value, HashIntKey(value)); });
  }
  __attribute__((always_inline)) static void Prefetch(const Set& set, uint64_t hash) {
    set.Prefetch(hash);
  }
  static size_t Size(const Set& set) { return set.size(); }
  static size_t MemoryBytes(const Set& set) { return set.MemoryBytes(); }
  static void Reserve(Set& set, size_t count) { set.Reserve(count); }
  template <typename F>
  static void ForEach(const Set& set, F&& fn) {
    set.ForEach(fn);
  }
  static void Swap(Set& a, Set& b) { a.Swap(b); }
  static void SetPool(Set& set, SlotPool* pool) { set.set_pool(pool); }
  static void Write(Value value, std::string* out) {
    char bytes[8];
    uint64_t wide = value;
    std::memcpy(bytes, &wide, 8);  // little-endian hosts only, like the block codec
    out->append(bytes, 8);
  }
  static bool Read(std::string_view* bytes, Value* value) {
    uint64_t wide;
    if (bytes->size() < 8) return false;
    std::memcpy(&wide, bytes->data(), 8);
    if (wide != static_cast<Value>(wide)) return false;
    *value = static_cast<Value>(wide);
    bytes->remove_prefix(8);
    return true;
  }
};

// String arguments.
struct StringTraits {
  using Set = StringHashSet;
  using Value = std::string_view;
  static constexpr uint8_t kKind = 1;
  static constexpr bool kPrefetch = true;

  static Value Get(const Column& column, size_t row) { return column.StringAt(row); }
  static uint64_t Hash(Value value) { return HashBytes(value); }
  static void Insert(Set& set, Value value, uint64_t hash, Arena& arena) {
    set.Insert(value, hash, arena);
  }
  static void InsertKept(Set& set, Value value) { set.InsertKept(value, HashBytes(value)); }
  // Inserts every value of `from` (kept by another state): by saved hash bits, no rehashing.
  static void InsertAll(Set& set, const Set& from) { set.InsertAllFrom(from); }
  __attribute__((always_inline)) static void Prefetch(const Set& set, uint64_t hash) {
    set.Prefetch(hash);
  }
  static size_t Size(const Set& set) { return set.size(); }
  static size_t MemoryBytes(const Set& set) { return set.MemoryBytes(); }
  static void Reserve(Set& set, size_t count) { set.Reserve(count); }
  template <typename F>
  static void ForEach(const Set& set, F&& fn) {
    set.ForEach(fn);
  }
  static void Swap(Set& a, Set& b) { a.Swap(b); }
  static void SetPool(Set& set, SlotPool* pool) { set.set_pool(pool); }
  static void Write(Value value, std::string* out) {
    PutVarint64(out, value.size());
    out->append(value.data(), value.size());
  }
  static bool Read(std::string_view* bytes, Value* value) {
    uint64_t size = 0;
    if (!GetVarint64(bytes, &size) || size > bytes->size()) return false;
    *value = bytes->substr(0, size);
    bytes->remove_prefix(size);
    return true;
  }
};

// One group's distinct values.
template <typename Traits>
struct ExactState {
  using Set = typename Traits::Set;

  Set set;                        // the values while not split
  std::unique_ptr<Set[]> parts;   // kBucketCount part sets once split by PrepareParts
  uint64_t extra = 0;             // values counted but not held (disjoint merges, final-only)
  bool final_only = false;
  bool disjoint = false;          // extra holds version-3 counts (they add up)

  uint64_t Size() const {
    uint64_t size = Traits::Size(set) + extra;
    for (uint32_t p = 0; parts != nullptr && p < kBucketCount; ++p) size += Traits::Size(parts[p]);
    return size;
  }
  bool Empty() const { return Size() == 0; }
  void Swap(ExactState& other) {
    Traits::Swap(set, other.set);
    parts.swap(other.parts);
    std::swap(extra, other.extra);
    std::swap(final_only, other.final_only);
    std::swap(disjoint, other.disjoint);
  }
  // Calls fn(value) for every held value.
  template <typename F>
  void ForEach(F&& fn) const {
    Traits::ForEach(set, fn);
    for (uint32_t p = 0; parts != nullptr && p < kBucketCount; ++p) Traits::ForEach(parts[p], fn);
  }
  // Inserts a value held by another state that outlives this one.
  void InsertKept(typename Traits::Value value) {
    if (parts == nullptr) {
      Traits::InsertKept(set, value);
    } else {
      Traits::InsertKept(parts[BucketOf(Traits::Hash(value))], value);
    }
  }
};

// Counts distinct values exactly.
// Thread-safety: none (see AggregateFunction).
template <typename Traits>
class UniqExactFunction final : public AggregateFunction {
 public:
  using State = ExactState<Traits>;
  using Value = typename Traits::Value;

  std::vector<TypeId> StateTypes() const override { return {TypeId::kString}; }
  TypeId ResultType() const override { return TypeId::kUInt64; }
  size_t groups() const override { return states_.size(); }
  void Resize(size_t groups) override {
    size_t old = states_.size();
    states_.resize(groups);
    for (size_t g = old; g < groups; ++g) Traits::SetPool(states_[g].set, &pool_);
  }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const Column& column = *args[0];
    State* states = states_.data();
    if constexpr (Traits::kPrefetch) {
      // Hash the batch first, then prefetch the slot a few rows ahead: big per-group sets miss
      // the cache on almost every insert.
      hashes_.resize(rows);
      for (size_t i = 0; i < rows; ++i) hashes_[i] = Traits::Hash(Traits::Get(column, i));
      for (size_t i = 0; i < rows; ++i) {
        if (i + kPrefetchDistance < rows) {
          Traits::Prefetch(states[group_ids[i + kPrefetchDistance]].set,
                           hashes_[i + kPrefetchDistance]);
        }
        Traits::Insert(states[group_ids[i]].set, Traits::Get(column, i), hashes_[i], arena_);
      }
    } else {
      for (size_t i = 0; i < rows; ++i) {
        Traits::Insert(states[group_ids[i]].set, Traits::Get(column, i), 0, arena_);
      }
    }
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const Column& column = *args[0];
    State& state = states_[group];
    // A String row equal to the row before it cannot add a value: only the first row of each run
    // is hashed and inserted (a column that is mostly '' in long runs pays one compare per row).
    size_t count = rows;
    const uint32_t* picked = nullptr;
    if constexpr (std::is_same_v<Traits, StringTraits>) {
      // Straight from the offsets, branch-free: the bytes are compared only when the lengths
      // are equal and nonzero (runs of '' cost a subtraction and a compare per row).
      picked_.resize(rows);
      const uint64_t* offsets = column.Offsets().data();
      const char* chars = column.Chars().data();
      uint64_t prev_begin = 0;
      uint64_t prev_size = ~uint64_t{0};  // row 0 always starts a run
      size_t kept = 0;
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t begin = i == 0 ? 0 : offsets[i - 1];
        const uint64_t size = offsets[i] - begin;
        const bool same = size == prev_size &&
                          (size == 0 || std::memcmp(chars + begin, chars + prev_begin, size) == 0);
        picked_[kept] = static_cast<uint32_t>(i);
        kept += !same;
        prev_begin = begin;
        prev_size = size;
      }
      count = kept;
      picked = picked_.data();
    }
    auto row = [picked](size_t i) -> size_t { return picked != nullptr ? picked[i] : i; };
    if (state.parts != nullptr) {
      hashes_.resize(count);
      for (size_t i = 0; i < count; ++i) hashes_[i] = Traits::Hash(Traits::Get(column, row(i)));
      auto* parts = state.parts.get();
      for (size_t i = 0; i < count; ++i) {
        if (Traits::kPrefetch && i + kPrefetchDistance < count) {
          uint64_t ahead = hashes_[i + kPrefetchDistance];
          Traits::Prefetch(parts[BucketOf(ahead)], ahead);
        }
        Traits::Insert(parts[BucketOf(hashes_[i])], Traits::Get(column, row(i)), hashes_[i],
                       arena_);
      }
      return;
    }
    auto& set = state.set;
    if constexpr (Traits::kPrefetch) {
      hashes_.resize(count);
      for (size_t i = 0; i < count; ++i) hashes_[i] = Traits::Hash(Traits::Get(column, row(i)));
      for (size_t i = 0; i < count; ++i) {
        if (i + kPrefetchDistance < count) Traits::Prefetch(set, hashes_[i + kPrefetchDistance]);
        Traits::Insert(set, Traits::Get(column, row(i)), hashes_[i], arena_);
      }
    } else {
      for (size_t i = 0; i < rows; ++i) Traits::Insert(set, Traits::Get(column, i), 0, arena_);
    }
    if (Traits::Size(set) > kSplitThreshold) Split(&state);
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    return MergeSerializedRows(group_ids, *states[0], rows, states_.data(),
                               [this](State* state, std::string_view bytes) {
                                 return MergeSerialized(state, bytes);
                               });
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<UniqExactFunction&>(src);
    for (size_t i = 0; i < count; ++i) {
      MergeStates(&states_[dst_groups[i]], &other.states_[src_groups[i]]);
    }
  }

  bool SplitsIntoParts() const override { return true; }

  void PrepareParts() override {
    for (State& state : states_) {
      if (state.parts == nullptr && Traits::Size(state.set) > 0) Split(&state);
    }
  }

  void MergePartFrom(uint32_t dst_group, AggregateFunction& src, uint32_t src_group,
                     uint32_t part) override {
    State& dst = states_[dst_group];
    State& from = static_cast<UniqExactFunction&>(src).states_[src_group];
    if (part == 0) {
      dst.extra += from.extra;
      dst.final_only |= from.final_only;
      dst.disjoint |= from.disjoint;
    }
    if (from.parts != nullptr) {
      auto& piece = from.parts[part];
      // Swap only into an unsplit dst: a split dst keeps part `part` in dst.parts[part] only.
      if (dst.parts == nullptr && Traits::Size(dst.set) < Traits::Size(piece)) {
        Traits::Swap(dst.set, piece);
      }
      // One rehash to the combined size instead of growth steps while inserting.
      if (dst.parts == nullptr && Traits::Size(piece) > 0) {
        Traits::Reserve(dst.set, Traits::Size(dst.set) + Traits::Size(piece));
      }
      // Every value of part `part` belongs to dst's part `part` (or its unsplit set).
      Traits::InsertAll(dst.parts == nullptr ? dst.set : dst.parts[part], piece);
      return;
    }
    // Not split (PrepareParts not called): filter by part.
    Traits::ForEach(from.set, [&](Value value) {
      if (BucketOf(Traits::Hash(value)) == part) dst.InsertKept(value);
    });
  }

  void MergeDisjointFrom(const uint32_t* dst_groups, AggregateFunction& src,
                         const uint32_t* src_groups, size_t count) override {
    auto& other = static_cast<UniqExactFunction&>(src);
    for (size_t i = 0; i < count; ++i) {
      State& dst = states_[dst_groups[i]];
      State& from = other.states_[src_groups[i]];
      if (dst.Empty()) {
        dst.Swap(from);
      } else {
        dst.extra += from.Size();
        dst.disjoint |= from.disjoint;
      }
    }
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    Write(groups, count, out[0], /*final_only=*/false);
  }

  void WriteFinalOnlyStates(const uint32_t* groups, size_t count,
                            Column* const* out) const override {
    Write(groups, count, out[0], /*final_only=*/true);
  }

  void WriteDisjointStates(const uint32_t* groups, size_t count,
                           Column* const* out) const override {
    Write(groups, count, out[0], /*final_only=*/false, /*disjoint=*/true);
  }

  size_t StateBytes() const override {
    size_t bytes = arena_.BytesReserved();
    for (const State& state : states_) {
      bytes += Traits::MemoryBytes(state.set);
      for (uint32_t p = 0; state.parts != nullptr && p < kBucketCount; ++p) {
        bytes += Traits::MemoryBytes(state.parts[p]);
      }
    }
    return bytes;
  }

  void Finalize(Column* out) const override {
    size_t old = out->size();
    out->Resize(old + states_.size());
    uint64_t* results = out->Data<uint64_t>() + old;
    for (size_t g = 0; g < states_.size(); ++g) results[g] = states_[g].Size();
  }

  void Clear() override {
    std::vector<State>().swap(states_);
    std::vector<uint64_t>().swap(hashes_);
    std::vector<uint32_t>().swap(picked_);
    arena_.Clear();
    pool_.Clear();
  }

 private:
  // Moves the values of state->set into kBucketCount part sets by value hash.
  void Split(State* state) {
    state->parts = std::make_unique<typename State::Set[]>(kBucketCount);
    for (uint32_t p = 0; p < kBucketCount; ++p) Traits::SetPool(state->parts[p], &pool_);
    Traits::ForEach(state->set, [&](Value value) {
      Traits::InsertKept(state->parts[BucketOf(Traits::Hash(value))], value);
    });
    typename State::Set empty;
    Traits::Swap(state->set, empty);
  }

  // Merges `from` into `dst`, consuming `from`: the smaller set goes into the larger one.
  void MergeStates(State* dst, State* from) {
    if (from->Empty()) return;
    if (dst->Empty()) {
      dst->Swap(*from);
      return;
    }
    if (dst->final_only || from->final_only || dst->disjoint || from->disjoint) {
      // Final-only states meet only empty ones; disjoint counts add up.
      dst->extra += from->Size();
      dst->final_only |= from->final_only;
      dst->disjoint |= from->disjoint;
      return;
    }
    if (dst->parts == nullptr && from->parts == nullptr &&
        Traits::Size(dst->set) < Traits::Size(from->set)) {
      dst->Swap(*from);
    }
    dst->extra += from->extra;
    if (dst->parts == nullptr && from->parts == nullptr) {
      Traits::InsertAll(dst->set, from->set);
      return;
    }
    if (dst->parts != nullptr && from->parts != nullptr && Traits::Size(from->set) == 0) {
      for (uint32_t p = 0; p < kBucketCount; ++p) {
        Traits::InsertAll(dst->parts[p], from->parts[p]);
      }
      return;
    }
    if (dst->parts == nullptr) Traits::Reserve(dst->set, Traits::Size(dst->set) + from->Size());
    from->ForEach([&](Value value) { dst->InsertKept(value); });
  }

  void Write(const uint32_t* groups, size_t count, Column* out, bool final_only,
             bool disjoint = false) const {
    std::string bytes;
    out->Reserve(out->size() + count);
    for (size_t i = 0; i < count; ++i) {
      const State& state = states_[groups[i]];
      bytes.clear();
      // A state that already lost its values (extra) can only be written final-only.
      // A disjoint request or a state holding disjoint counts writes a count that adds up.
      bool final_count = final_only || state.final_only;
      bool disjoint_count = !final_count && (disjoint || state.disjoint);
      bool summary = final_count || disjoint_count || state.extra != 0;
      bytes.push_back(static_cast<char>(disjoint_count ? kDisjointVersion
                                        : summary      ? kFinalOnlyVersion
                                                       : kVersion));
      bytes.push_back(static_cast<char>(Traits::kKind));
      PutVarint64(&bytes, state.Size());
      if (!summary) state.ForEach([&](Value value) { Traits::Write(value, &bytes); });
      out->AppendString(bytes);
    }
  }

  absl::Status MergeSerialized(State* state, std::string_view bytes) {
    if (bytes.size() < 2 || static_cast<uint8_t>(bytes[1]) != Traits::kKind) {
      return CorruptState(absl::StrCat("bad header of ", bytes.size(), " bytes"));
    }
    auto version = static_cast<uint8_t>(bytes[0]);
    bytes.remove_prefix(2);
    uint64_t count = 0;
    if (!GetVarint64(&bytes, &count)) return CorruptState("truncated count");
    if (version == kDisjointVersion) {
      if (!bytes.empty()) return CorruptState(absl::StrCat(bytes.size(), " trailing bytes"));
      if (count == 0) return absl::OkStatus();
      if (!state->Empty() && !state->disjoint) {
        return Error(ErrorCode::kLogicalError,
                     "Cannot add a disjoint uniqExact count to a state holding values");
      }
      state->extra += count;
      state->disjoint = true;
      return absl::OkStatus();
    }
    if (version == kFinalOnlyVersion) {
      if (!bytes.empty()) return CorruptState(absl::StrCat(bytes.size(), " trailing bytes"));
      if (count == 0) return absl::OkStatus();
      if (!state->Empty()) {
        return Error(ErrorCode::kLogicalError,
                     "Cannot merge a final-only uniqExact state into a non-empty one");
      }
      state->extra = count;
      state->final_only = true;
      return absl::OkStatus();
    }
    if (version != kVersion) return CorruptState(absl::StrCat("unknown version ", version));
    if ((state->final_only || state->disjoint) && count != 0) {
      return Error(ErrorCode::kLogicalError,
                   "Cannot merge a uniqExact state into a final-only one");
    }
    if (count > bytes.size()) return CorruptState(absl::StrCat(count, " values in ", bytes.size(),
                                                               " bytes"));
    if (state->parts == nullptr) Traits::Reserve(state->set, Traits::Size(state->set) + count);
    for (uint64_t i = 0; i < count; ++i) {
      Value value;
      if (!Traits::Read(&bytes, &value)) {
        return CorruptState(absl::StrCat("value ", i, " of ", count, " is truncated"));
      }
      uint64_t hash = Traits::Hash(value);
      if (state->parts == nullptr) {
        Traits::Insert(state->set, value, hash, arena_);
      } else {
        Traits::Insert(state->parts[BucketOf(hash)], value, hash, arena_);
      }
    }
    if (!bytes.empty()) return CorruptState(absl::StrCat(bytes.size(), " trailing bytes"));
    return absl::OkStatus();
  }

  // Declared first, destroyed last: the sets below give their arrays back to it.
  SlotPool pool_;
  std::vector<State> states_;
  std::vector<uint64_t> hashes_;  // scratch: hashes of the current batch
  std::vector<uint32_t> picked_;  // scratch: AddBatchOneGroup's String rows that start a run
  Arena arena_;                   // String values
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeUniqExact(TypeId arg) {
  if (arg == TypeId::kString) return std::make_unique<UniqExactFunction<StringTraits>>();
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    return std::make_unique<UniqExactFunction<FixedTraits<T>>>();
  });
}

}  // namespace granite::core

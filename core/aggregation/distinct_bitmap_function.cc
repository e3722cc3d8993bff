// uniqExact(x) of an integer argument whose values the planner proved to lie in
// [base, base + bits) (coordinator/planner/distinct_planner.h, AggregateSpec::bitmap_bits): one bit per
// possible value instead of a hash set. Adding a row sets bit (WidenKey(x) - base), merging two
// states ORs their words, and the result is the popcount. At 5 million values this is 625 KB per
// state, which stays in cache where a hash set of the same values takes ~64 MB of random probes.
//
// A value outside the range (never, if the planner's range is right) is kept exactly in a small
// per-state outlier list, so a wrong range costs speed, never a wrong count.
//
// Partial state: one String column, one serialized state per group:
//   version 1 (mergeable): version byte, kind byte 2, varint bits, varint base, varint outlier
//     count and 8 bytes each, varint word count n, then n little-endian 64-bit words (trailing
//     zero words dropped). Merges only with version 1 states of the same bits and base;
//   version 2 (final-only) and 3 (disjoint: counts that add up, AggregateSpec::disjoint):
//     version byte, kind byte 2, varint count — as uniqExact's states of the same versions.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/varint.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kFinalOnlyVersion = 2;
constexpr uint8_t kDisjointVersion = 3;
constexpr uint8_t kKind = 2;

absl::Status CorruptState(std::string_view detail) {
  return Error(ErrorCode::kCorruptedData,
               absl::StrCat("Cannot read uniqExact bitmap state: ", ToAbsl(detail)));
}

// One group's distinct values.
struct BitmapState {
  std::unique_ptr<uint64_t[]> words;  // null until the first value
  std::vector<uint64_t> outliers;     // values outside the range (sorted and unique on demand)
  size_t outlier_limit = 64;
  uint64_t extra = 0;                 // counted but not held (final-only or disjoint counts)
  bool final_only = false;
  bool disjoint = false;
};

// Counts distinct values of physical type T with a bitmap per group.
// Thread-safety: none (see AggregateFunction).
template <typename T>
class DistinctBitmapFunction final : public AggregateFunction {
 public:
  DistinctBitmapFunction(uint64_t base, uint64_t bits)
      : base_(base), bits_(bits), words_((bits + 63) / 64) {}

  std::vector<TypeId> StateTypes() const override { return {TypeId::kString}; }
  TypeId ResultType() const override { return TypeId::kUInt64; }
  size_t groups() const override { return states_.size(); }
  void Resize(size_t groups) override { states_.resize(groups); }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const T* values = args[0]->Data<T>();
    for (size_t i = 0; i < rows; ++i) {
      BitmapState& state = states_[group_ids[i]];
      uint64_t* words = WordsOf(state);
      uint64_t index = WidenKey(values[i]) - base_;
      if (index < bits_) {
        words[index >> 6] |= uint64_t{1} << (index & 63);
      } else {
        AddOutlier(state, WidenKey(values[i]));
      }
    }
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const T* values = args[0]->Data<T>();
    BitmapState& state = states_[group];
    uint64_t* words = WordsOf(state);
    const uint64_t base = base_, bits = bits_;
    for (size_t i = 0; i < rows; ++i) {
      uint64_t index = WidenKey(values[i]) - base;
      if (index < bits) {
        words[index >> 6] |= uint64_t{1} << (index & 63);
      } else {
        AddOutlier(state, WidenKey(values[i]));
      }
    }
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    return MergeSerializedRows(group_ids, *states[0], rows, states_.data(),
                               [this](BitmapState* state, std::string_view bytes) {
                                 return MergeSerialized(state, bytes);
                               });
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<DistinctBitmapFunction&>(src);
    for (size_t i = 0; i < count; ++i) {
      BitmapState& dst = states_[dst_groups[i]];
      BitmapState& from = other.states_[src_groups[i]];
      dst.extra += from.extra;
      dst.final_only |= from.final_only;
      dst.disjoint |= from.disjoint;
      if (from.words != nullptr) {
        if (dst.words == nullptr) {
          dst.words = std::move(from.words);
        } else {
          for (uint64_t w = 0; w < words_; ++w) dst.words[w] |= from.words[w];
        }
      }
      for (uint64_t value : from.outliers) AddOutlier(dst, value);
    }
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    Write(groups, count, out[0], kVersion);
  }
  void WriteFinalOnlyStates(const uint32_t* groups, size_t count,
                            Column* const* out) const override {
    Write(groups, count, out[0], kFinalOnlyVersion);
  }
  void WriteDisjointStates(const uint32_t* groups, size_t count,
                           Column* const* out) const override {
    Write(groups, count, out[0], kDisjointVersion);
  }

  size_t StateBytes() const override {
    size_t bytes = 0;
    for (const BitmapState& state : states_) {
      if (state.words != nullptr) bytes += words_ * sizeof(uint64_t);
      bytes += state.outliers.capacity() * sizeof(uint64_t);
    }
    return bytes;
  }

  void Finalize(Column* out) const override {
    for (const BitmapState& state : states_) out->Append<uint64_t>(Count(state));
  }

  void Clear() override { std::vector<BitmapState>().swap(states_); }

 private:
  uint64_t* WordsOf(BitmapState& state) const {
    if (state.words == nullptr) state.words = std::make_unique<uint64_t[]>(words_);  // zeroed
    return state.words.get();
  }

  static void AddOutlier(BitmapState& state, uint64_t value) {
    state.outliers.push_back(value);
    if (state.outliers.size() > state.outlier_limit) {
      SortUnique(&state.outliers);
      state.outlier_limit = std::max<size_t>(64, 2 * state.outliers.size());
    }
  }

  static void SortUnique(std::vector<uint64_t>* values) {
    std::sort(values->begin(), values->end());
    values->erase(std::unique(values->begin(), values->end()), values->end());
  }

  uint64_t Count(const BitmapState& state) const {
    uint64_t count = state.extra;
    if (state.words != nullptr) {
      for (uint64_t w = 0; w < words_; ++w) count += std::popcount(state.words[w]);
    }
    std::vector<uint64_t> outliers = state.outliers;
    SortUnique(&outliers);
    return count + outliers.size();
  }

  void Write(const uint32_t* groups, size_t count, Column* out, uint8_t version) const {
    std::string bytes;
    out->Reserve(out->size() + count);
    for (size_t i = 0; i < count; ++i) {
      const BitmapState& state = states_[groups[i]];
      bytes.clear();
      // A state that holds only a count can be written only as one.
      uint8_t written = version;
      if (written == kVersion && (state.final_only || state.disjoint)) {
        written = state.final_only ? kFinalOnlyVersion : kDisjointVersion;
      }
      bytes.push_back(static_cast<char>(written));
      bytes.push_back(static_cast<char>(kKind));
      if (written != kVersion) {
        PutVarint64(&bytes, Count(state));
        out->AppendString(bytes);
        continue;
      }
      PutVarint64(&bytes, bits_);
      PutVarint64(&bytes, base_);
      std::vector<uint64_t> outliers = state.outliers;
      SortUnique(&outliers);
      PutVarint64(&bytes, outliers.size());
      for (uint64_t value : outliers) PutFixed64(&bytes, value);
      uint64_t used = 0;
      if (state.words != nullptr) {
        used = words_;
        while (used > 0 && state.words[used - 1] == 0) --used;
      }
      PutVarint64(&bytes, used);
      for (uint64_t w = 0; w < used; ++w) PutFixed64(&bytes, state.words[w]);
      out->AppendString(bytes);
    }
  }

  static void PutFixed64(std::string* out, uint64_t value) {
    char raw[8];
    std::memcpy(raw, &value, 8);  // little-endian hosts only, like the block codec
    out->append(raw, 8);
  }
  static bool GetFixed64(std::string_view* bytes, uint64_t* value) {
    if (bytes->size() < 8) return false;
    std::memcpy(value, bytes->data(), 8);
    bytes->remove_prefix(8);
    return true;
  }

  absl::Status MergeSerialized(BitmapState* state, std::string_view bytes) {
    if (bytes.size() < 2 || static_cast<uint8_t>(bytes[1]) != kKind) {
      return CorruptState(absl::StrCat("bad header of ", bytes.size(), " bytes"));
    }
    auto version = static_cast<uint8_t>(bytes[0]);
    bytes.remove_prefix(2);
    bool empty = state->words == nullptr && state->outliers.empty() && state->extra == 0;
    if (version == kFinalOnlyVersion || version == kDisjointVersion) {
      uint64_t count = 0;
      if (!GetVarint64(&bytes, &count) || !bytes.empty()) return CorruptState("bad count");
      if (count == 0) return absl::OkStatus();
      // A final-only count meets only an empty state; disjoint counts meet only each other.
      bool disjoint = version == kDisjointVersion;
      if (!empty && (!disjoint || !state->disjoint)) {
        return Error(ErrorCode::kLogicalError,
                     "Cannot merge a uniqExact bitmap count into a state holding other values");
      }
      state->extra += count;
      (disjoint ? state->disjoint : state->final_only) = true;
      return absl::OkStatus();
    }
    if (version != kVersion) return CorruptState(absl::StrCat("unknown version ", version));
    uint64_t bits = 0, base = 0, outliers = 0, used = 0;
    if (!GetVarint64(&bytes, &bits) || !GetVarint64(&bytes, &base) ||
        !GetVarint64(&bytes, &outliers)) {
      return CorruptState("truncated header");
    }
    if (bits != bits_ || base != base_) {
      return Error(ErrorCode::kLogicalError,
                   absl::StrCat("Cannot merge a uniqExact bitmap of ", bits, " bits from ", base,
                                " into one of ", bits_, " bits from ", base_));
    }
    if (outliers > bytes.size() / 8) return CorruptState("truncated outliers");
    if (state->final_only || state->disjoint) {
      return Error(ErrorCode::kLogicalError,
                   "Cannot merge a uniqExact bitmap into a state holding only a count");
    }
    for (uint64_t i = 0; i < outliers; ++i) {
      uint64_t value = 0;
      GetFixed64(&bytes, &value);
      AddOutlier(*state, value);
    }
    if (!GetVarint64(&bytes, &used) || used > words_ || bytes.size() != used * 8) {
      return CorruptState(absl::StrCat("bad word count ", used, " with ", bytes.size(), " bytes"));
    }
    if (used == 0) return absl::OkStatus();
    uint64_t* words = WordsOf(*state);
    for (uint64_t w = 0; w < used; ++w) {
      uint64_t word = 0;
      GetFixed64(&bytes, &word);
      words[w] |= word;
    }
    return absl::OkStatus();
  }

  // Constant after construction.
  const uint64_t base_;
  const uint64_t bits_;
  const uint64_t words_;

  std::vector<BitmapState> states_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeDistinctBitmap(TypeId arg, uint64_t base, uint64_t bits) {
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_floating_point_v<T>) {
      return nullptr;
    } else {
      return std::make_unique<DistinctBitmapFunction<T>>(base, bits);
    }
  });
}

}  // namespace granite::core

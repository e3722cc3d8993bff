// groupArray(x), groupArray(N)(x), groupUniqArray(x): a group's values gathered into one array.
// The state is a column of the argument's type holding the values (for groupUniqArray also the
// set of their quoted texts, so a value is kept once); it travels between threads and workers
// as the column's wire form (core/block_codec.h), so merging partial states by bucket works as
// for every other generic aggregate. Merge appends in arrival order, as ClickHouse's does: the
// order of values from different workers is unspecified.
#include <cstring>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/generic_aggregate_function.h"
#include "core/block_codec.h"
#include "core/quoted_text.h"

namespace granite::core {
namespace {

class GroupArrayOp {
 public:
  struct State {
    std::unique_ptr<Column> values;
    std::unique_ptr<absl::flat_hash_set<std::string>> seen;  // groupUniqArray only
  };

  GroupArrayOp(bool uniq, TypeId arg, uint64_t max_size)
      : uniq_(uniq), arg_(arg), max_size_(max_size) {}

  TypeId ResultType() const { return MakeArray(arg_); }

  void Add(State& state, const std::vector<ColumnPtr>& args, size_t row) const {
    Take(state, *args[0], row);
  }

  void Merge(State& state, State&& other) const {
    if (other.values == nullptr) return;
    if (state.values == nullptr && !uniq_ && max_size_ == 0) {
      state = std::move(other);
      return;
    }
    for (size_t i = 0; i < other.values->size(); ++i) Take(state, *other.values, i);
  }

  void Write(const State& state, std::string* out) const {
    const uint64_t rows = state.values == nullptr ? 0 : state.values->size();
    out->append(reinterpret_cast<const char*>(&rows), sizeof(rows));
    if (rows > 0) EncodeColumnData(*state.values, out);
  }

  bool Read(std::string_view in, State* out) const {
    uint64_t rows = 0;
    if (in.size() < sizeof(rows)) return false;
    std::memcpy(&rows, in.data(), sizeof(rows));
    in.remove_prefix(sizeof(rows));
    if (rows == 0) return in.empty();
    if (rows > in.size()) return false;
    auto values = std::make_unique<Column>(arg_);
    if (!DecodeColumnData(in, rows, values.get()).ok()) return false;
    if (uniq_) {
      out->seen = std::make_unique<absl::flat_hash_set<std::string>>();
      for (size_t i = 0; i < values->size(); ++i) out->seen->insert(KeyOf(*values, i));
    }
    out->values = std::move(values);
    return true;
  }

  void Final(State& state, Column* out) const {
    if (state.values != nullptr) {
      out->MutableNested().AppendRange(*state.values, 0, state.values->size());
    }
    out->AppendArrayEnd();
  }

 private:
  static std::string KeyOf(const Column& column, size_t row) {
    std::string key;
    AppendQuotedValueText(column, row, &key);
    return key;
  }

  // Appends row `row` of `from` unless the state is full (groupArray(N)) or, for
  // groupUniqArray, already holds the value.
  void Take(State& state, const Column& from, size_t row) const {
    if (state.values == nullptr) state.values = std::make_unique<Column>(arg_);
    if (max_size_ != 0 && state.values->size() >= max_size_) return;
    if (uniq_) {
      if (state.seen == nullptr) state.seen = std::make_unique<absl::flat_hash_set<std::string>>();
      if (!state.seen->insert(KeyOf(from, row)).second) return;
    }
    state.values->AppendFrom(from, row);
  }

  const bool uniq_;
  const TypeId arg_;
  const uint64_t max_size_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeGroupArray(bool uniq, TypeId arg, uint64_t max_size) {
  return MakeGenericAggregate(GroupArrayOp(uniq, arg, max_size));
}

}  // namespace granite::core

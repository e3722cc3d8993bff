#include "coordinator/exec/hash_join.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/join/row_keys.h"
#include "core/error.h"
#include "core/memory/memory_tracker.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using sql::JoinKind;
using sql::JoinStrictness;

// Chains the build side's rows by key: head[key] is the first row, next[row] the following one.
template <typename Key>
struct BuildTable {
  absl::flat_hash_map<Key, int64_t> head;
  std::vector<int64_t> next;
};

class Prober {
 public:
  Prober(const JoinSpec& spec, size_t right_rows)
      : spec_(spec), matched_(NeedsMatched(spec) ? right_rows : 0, 0) {}

  static bool NeedsMatched(const JoinSpec& spec) {
    return spec.kind == JoinKind::kRight || spec.kind == JoinKind::kFull;
  }

  // Emits the result rows of left row `l` whose first match is `first` (-1: none).
  absl::Status Probe(int64_t l, int64_t first, const std::vector<int64_t>& next) {
    const JoinStrictness strictness = spec_.strictness;
    if (strictness == JoinStrictness::kAnti) {
      if (first < 0) Emit(l, -1);
      return Check();
    }
    if (first < 0) {
      const bool keeps_left = spec_.kind == JoinKind::kLeft || spec_.kind == JoinKind::kFull;
      if (keeps_left && strictness != JoinStrictness::kSemi) Emit(l, -1);
      return Check();
    }
    if (strictness == JoinStrictness::kSemi || strictness == JoinStrictness::kAny) {
      Emit(l, first);
      return Check();
    }
    for (int64_t r = first; r >= 0; r = next[r]) {
      Emit(l, r);
      if (!matched_.empty()) matched_[r] = 1;
    }
    return Check();
  }

  JoinRows Finish() {
    for (size_t r = 0; r < matched_.size(); ++r) {
      if (!matched_[r]) Emit(-1, static_cast<int64_t>(r));
    }
    return std::move(rows_);
  }

 private:
  void Emit(int64_t l, int64_t r) {
    rows_.left.push_back(l);
    rows_.right.push_back(r);
  }
  absl::Status Check() {
    if (spec_.max_rows > 0 && rows_.left.size() > spec_.max_rows) {
      return core::Error(core::ErrorCode::kTooManyRows,
                         "JOIN result has more than " + std::to_string(spec_.max_rows) +
                             " rows (max_rows_in_join)");
    }
    // The result's row lists are the join's big allocation: stop once the query is over its
    // memory limit (core/memory/memory_tracker.h), looking every 64Ki probes.
    if ((++probes_ & 0xFFFF) == 0) return core::CurrentMemoryLimitStatus();
    return absl::OkStatus();
  }

  const JoinSpec& spec_;
  std::vector<uint8_t> matched_;
  JoinRows rows_;
  uint64_t probes_ = 0;
};

std::vector<const core::Column*> KeyColumns(const core::Block& block,
                                            const std::vector<size_t>& keys) {
  std::vector<const core::Column*> columns;
  for (size_t key : keys) columns.push_back(block.columns[key].get());
  return columns;
}

absl::StatusOr<JoinRows> CrossJoin(const core::Block& left, const core::Block& right,
                                   const JoinSpec& spec) {
  const uint64_t total = static_cast<uint64_t>(left.rows()) * right.rows();
  if (spec.max_rows > 0 && total > spec.max_rows) {
    return core::Error(core::ErrorCode::kTooManyRows,
                       "CROSS JOIN would make " + std::to_string(total) + " rows, more than " +
                           std::to_string(spec.max_rows) + " (max_rows_in_join)");
  }
  JoinRows rows;
  rows.left.reserve(total);
  rows.right.reserve(total);
  for (size_t l = 0; l < left.rows(); ++l) {
    for (size_t r = 0; r < right.rows(); ++r) {
      rows.left.push_back(static_cast<int64_t>(l));
      rows.right.push_back(static_cast<int64_t>(r));
    }
  }
  return rows;
}

// Returns whether row `row` has a NULL key: it matches no row (NULL equals nothing).
bool HasNullKey(const std::vector<const core::Column*>& keys, int64_t row) {
  for (const core::Column* key : keys) {
    if (key->IsNullAt(static_cast<size_t>(row))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<JoinRows> HashJoin(const core::Block& left, const core::Block& right,
                                  const JoinSpec& spec) {
  if (spec.left_keys.empty()) return CrossJoin(left, right, spec);
  const std::vector<const core::Column*> left_keys = KeyColumns(left, spec.left_keys);
  const std::vector<const core::Column*> right_keys = KeyColumns(right, spec.right_keys);
  const size_t right_rows = right.rows();
  Prober prober(spec, right_rows);
  bool words = left_keys.size() == 1 &&
               core::WordKeysComparable(left_keys[0]->type(), right_keys[0]->type());
  if (words) {
    BuildTable<uint64_t> table;
    table.next.assign(right_rows, -1);
    table.head.reserve(right_rows);
    for (int64_t r = static_cast<int64_t>(right_rows) - 1; r >= 0; --r) {
      if (HasNullKey(right_keys, r)) continue;
      auto [it, inserted] = table.head.try_emplace(core::KeyWord(*right_keys[0], r), r);
      if (!inserted) {
        table.next[r] = it->second;
        it->second = r;
      }
    }
    for (size_t l = 0; l < left.rows(); ++l) {
      auto it = HasNullKey(left_keys, l) ? table.head.end() : table.head.find(core::KeyWord(*left_keys[0], l));
      RETURN_IF_ERROR(prober.Probe(static_cast<int64_t>(l),
                                   it == table.head.end() ? -1 : it->second, table.next));
    }
    return prober.Finish();
  }
  BuildTable<std::string> table;
  table.next.assign(right_rows, -1);
  table.head.reserve(right_rows);
  std::string key;
  for (int64_t r = static_cast<int64_t>(right_rows) - 1; r >= 0; --r) {
    if (HasNullKey(right_keys, r)) continue;
    key.clear();
    core::AppendRowKey(right_keys, r, &key);
    auto [it, inserted] = table.head.try_emplace(key, r);
    if (!inserted) {
      table.next[r] = it->second;
      it->second = r;
    }
  }
  for (size_t l = 0; l < left.rows(); ++l) {
    key.clear();
    core::AppendRowKey(left_keys, l, &key);
    auto it = HasNullKey(left_keys, l) ? table.head.end() : table.head.find(key);
    RETURN_IF_ERROR(prober.Probe(static_cast<int64_t>(l),
                                 it == table.head.end() ? -1 : it->second, table.next));
  }
  return prober.Finish();
}

}  // namespace granite::coordinator

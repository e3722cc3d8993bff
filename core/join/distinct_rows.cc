#include "core/join/distinct_rows.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "core/join/row_keys.h"

namespace granite::core {
namespace {

// When the words never decrease (as signed integers: any total order keeps equal words
// together), sets `*first` to the first row of each run of equal words and returns true: a
// sorted key set (exec/from_key_reduction.cc) or a table read in its key's order needs no hash
// set. Returns false, leaving `*first` empty, otherwise.
bool FirstOfEachRun(const std::vector<uint64_t>& words, std::vector<uint32_t>* first) {
  for (size_t i = 1; i < words.size(); ++i) {
    if (static_cast<int64_t>(words[i]) < static_cast<int64_t>(words[i - 1])) return false;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (i == 0 || words[i] != words[i - 1]) first->push_back(static_cast<uint32_t>(i));
  }
  return true;
}

}  // namespace

std::vector<uint32_t> FirstOfEachValue(const Column& column, bool skip_nulls) {
  std::vector<uint32_t> first;
  // A NULL's key is its default value's: NULL gets a slot of its own.
  bool null_seen = skip_nulls;
  auto keep_null = [&](size_t row) {
    if (!null_seen) first.push_back(static_cast<uint32_t>(row));
    null_seen = true;
  };
  if (IsWordKey(column.type())) {
    const std::vector<uint64_t> words = KeyWords(column, 0, column.size());
    if (!column.nullable() && FirstOfEachRun(words, &first)) return first;
    // Not reserved: a result repeating few keys (a foreign key column) would get a table sized
    // for all its rows, slower to clear and to probe than one grown to its distinct values.
    absl::flat_hash_set<uint64_t> seen;
    for (size_t row = 0; row < words.size(); ++row) {
      if (column.IsNullAt(row)) {
        keep_null(row);
      } else if (seen.insert(words[row]).second) {
        first.push_back(static_cast<uint32_t>(row));
      }
    }
    return first;
  }
  absl::flat_hash_set<std::string> seen;
  std::string key;
  for (size_t row = 0; row < column.size(); ++row) {
    if (column.IsNullAt(row)) {
      keep_null(row);
      continue;
    }
    key.clear();
    AppendRowKey({&column}, row, &key);
    if (seen.insert(key).second) first.push_back(static_cast<uint32_t>(row));
  }
  return first;
}

std::vector<uint32_t> FirstOfEachRow(const std::vector<const Column*>& columns, bool skip_nulls) {
  if (columns.size() == 1) return FirstOfEachValue(*columns[0], skip_nulls);
  std::vector<uint32_t> first;
  absl::flat_hash_set<std::string> seen;
  std::string key;
  const size_t rows = columns.empty() ? 0 : columns[0]->size();
  for (size_t row = 0; row < rows; ++row) {
    key.clear();
    // A NULL's encoded value is its default's: a mask of the NULL columns tells them apart.
    bool any_null = false;
    for (const Column* column : columns) {
      const bool null = column->IsNullAt(row);
      any_null = any_null || null;
      key.push_back(null ? '\1' : '\0');
    }
    if (any_null && skip_nulls) continue;
    AppendRowKey(columns, row, &key);
    if (seen.insert(key).second) first.push_back(static_cast<uint32_t>(row));
  }
  return first;
}

}  // namespace granite::core

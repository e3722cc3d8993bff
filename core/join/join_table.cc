#include "core/join/join_table.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "core/hash.h"
#include "core/join/row_keys.h"

namespace granite::core {
namespace {

// Hash-table slots are prefetched this many keys ahead of their lookup.
constexpr size_t kPrefetchAhead = 8;

// The words of rows [begin, end) of one word key, or of a pair packed (PairKeyWord).
std::vector<uint64_t> KeyWords(const std::vector<const Column*>& keys, bool pair, size_t begin,
                               size_t end) {
  std::vector<uint64_t> words = KeyWords(*keys[0], begin, end);
  if (pair) {
    const std::vector<uint64_t> second = KeyWords(*keys[1], begin, end);
    for (size_t i = 0; i < words.size(); ++i) words[i] = PairKeyWord(words[i], second[i]);
  }
  return words;
}

bool NullKey(const std::vector<const Column*>& keys, size_t row) {
  for (const Column* key : keys) {
    if (key->IsNullAt(row)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<JoinTable> JoinTable::Build(Block build, std::vector<uint32_t> keys,
                                           const std::vector<TypeId>& probe_types,
                                           bool track_matches) {
  JoinTable table;
  std::vector<const Column*> columns;
  for (size_t k = 0; k < keys.size(); ++k) {
    const Column* column = build.columns[keys[k]].get();
    if (k >= probe_types.size() || !KeysComparable(probe_types[k], column->type())) {
      return Error(ErrorCode::kNoCommonType,
                   "JOIN key types cannot be compared: " +
                       std::string(TypeName(k < probe_types.size() ? probe_types[k]
                                                                   : TypeId::kNothing)) +
                       " and " + std::string(TypeName(column->type())));
    }
    columns.push_back(column);
  }
  const size_t rows = build.rows();
  table.pair_words_ = keys.size() == 2 &&
                     PairWordKeysComparable(probe_types[0], probe_types[1], columns[0]->type(),
                                            columns[1]->type());
  table.words_ = table.pair_words_ ||
                 (keys.size() == 1 && WordKeysComparable(probe_types[0], columns[0]->type()));
  std::vector<int64_t> group_of(rows, -1);
  size_t groups = 0;
  if (table.words_) {
    std::vector<uint64_t> words = KeyWords(columns, table.pair_words_, 0, rows);
    if (!table.pair_words_) table.BuildKeyBits(words);
    table.word_groups_.Reserve(rows);
    std::vector<uint64_t> hashes(rows);
    for (size_t r = 0; r < rows; ++r) hashes[r] = HashIntKey(words[r]);
    for (size_t r = 0; r < rows; ++r) {
      if (r + kPrefetchAhead < rows) table.word_groups_.Prefetch(hashes[r + kPrefetchAhead]);
      if (NullKey(columns, r)) continue;
      const uint32_t group =
          table.word_groups_.FindOrInsert(words[r], hashes[r], static_cast<uint32_t>(groups));
      if (group == groups) ++groups;
      group_of[r] = group;
    }
    table.word_heads_ = table.GroupRows(group_of, groups);
    table.heads_are_groups_ = table.unique_ && groups == rows;
  } else {
    table.bytes_head_.reserve(rows);
    std::string key;
    for (size_t r = 0; r < rows; ++r) {
      if (NullKey(columns, r)) continue;
      key.clear();
      AppendRowKey(columns, r, &key);
      auto [it, inserted] = table.bytes_head_.try_emplace(key, groups);
      if (inserted) ++groups;
      group_of[r] = it->second;
    }
    const std::vector<int64_t> heads = table.GroupRows(group_of, groups);
    for (auto& [key, head] : table.bytes_head_) head = heads[head];
  }
  if (track_matches) table.matched_ = std::make_unique<std::atomic<uint8_t>[]>(rows);
  table.build_ = std::move(build);
  table.keys_ = std::move(keys);
  return table;
}

void JoinTable::BuildKeyBits(const std::vector<uint64_t>& words) {
  if (words.empty()) return;
  // Keys compare as signed words: an Int64 key's span is taken over its signed order.
  const auto [low, high] = std::minmax_element(
      words.begin(), words.end(),
      [](uint64_t a, uint64_t b) { return static_cast<int64_t>(a) < static_cast<int64_t>(b); });
  const uint64_t span = *high - *low;
  const uint64_t limit =
      std::min<uint64_t>(kMaxBits, std::max<uint64_t>(kSmallSpanBits, words.size() * kBitsPerKey));
  if (span >= limit) return;
  key_min_ = *low;
  key_range_ = span + 1;
  key_bits_.assign((key_range_ + 63) / 64, 0);
  for (uint64_t w : words) {
    const uint64_t offset = w - key_min_;
    key_bits_[offset >> 6] |= uint64_t{1} << (offset & 63);
  }
}

std::vector<int64_t> JoinTable::GroupRows(const std::vector<int64_t>& group_of, size_t groups) {
  size_t keyed = 0;
  for (int64_t g : group_of) keyed += g >= 0;
  unique_ = keyed == groups;
  std::vector<int64_t> start(groups + 1, 0);
  if (unique_) {
    // Groups are numbered in row order, each with its one row.
    for (size_t r = 0; r < group_of.size(); ++r) {
      if (group_of[r] >= 0) start[group_of[r]] = static_cast<int64_t>(r);
    }
  } else {
    // A counting sort by group: the sizes, their prefix sums, then each row at its group's next
    // slot (rows in build order), the last of each group flagged.
    for (int64_t g : group_of) {
      if (g >= 0) ++start[g + 1];
    }
    for (size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
    group_rows_.resize(start[groups]);
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (size_t r = 0; r < group_of.size(); ++r) {
      if (group_of[r] >= 0) group_rows_[next[group_of[r]]++] = static_cast<int64_t>(r);
    }
    for (size_t g = 0; g < groups; ++g) {
      int64_t& last = group_rows_[start[g + 1] - 1];
      last = ~last;
    }
  }
  start.resize(groups);
  return start;
}

template <typename Emit>
void JoinTable::Lookup(const std::vector<const Column*>& probe_keys, size_t begin, size_t end,
                       bool misses, Emit&& emit) const {
  // A probe row with no build row: emitted as -1 only when the caller asked for misses.
  auto found = [&](size_t p, int64_t head) {
    if (head >= 0 && !NullKey(probe_keys, p)) {
      emit(p, head);
    } else if (misses) {
      emit(p, -1);
    }
  };
  if (words_) {
    std::vector<uint64_t> words = KeyWords(probe_keys, pair_words_, begin, end);
    if (!key_bits_.empty()) {
      // Most rows of a fact table probed by a filtered dimension miss the bitmap: one load each,
      // no branch. The rows that pass (all of them when the probe was already narrowed to the
      // build's keys) look their slots up with the slot of the kPrefetchAhead-th next passing row
      // loaded first.
      const uint64_t* bits = key_bits_.data();
      std::vector<uint32_t> passing(words.size());
      size_t kept = 0;
      for (size_t i = 0; i < words.size(); ++i) {
        const uint64_t offset = words[i] - key_min_;
        const uint64_t word = bits[std::min(offset, key_range_ - 1) >> 6];  // in bounds
        passing[kept] = static_cast<uint32_t>(i);
        kept += offset < key_range_ && ((word >> (offset & 63)) & 1) != 0;
      }
      passing.resize(kept);
      std::vector<uint64_t> hashes(kept);
      for (size_t c = 0; c < kept; ++c) hashes[c] = HashIntKey(words[passing[c]]);
      // Only the passing rows can join; with misses, the rows between them are emitted as -1.
      size_t next = begin;  // the first row not emitted yet
      for (size_t c = 0; c < kept; ++c) {
        const size_t p = begin + passing[c];
        for (; misses && next < p; ++next) emit(next, -1);
        if (c + kPrefetchAhead < kept) word_groups_.Prefetch(hashes[c + kPrefetchAhead]);
        found(p, WordHead(words[passing[c]], hashes[c]));
        next = p + 1;
      }
      for (; misses && next < end; ++next) emit(next, -1);
      return;
    }
    // Every row looks its slot up: the slot of the kPrefetchAhead-th next row is loaded first.
    std::vector<uint64_t> hashes(words.size());
    for (size_t i = 0; i < words.size(); ++i) hashes[i] = HashIntKey(words[i]);
    for (size_t p = begin; p < end; ++p) {
      const size_t i = p - begin;
      if (i + kPrefetchAhead < hashes.size()) word_groups_.Prefetch(hashes[i + kPrefetchAhead]);
      found(p, WordHead(words[i], hashes[i]));
    }
    return;
  }
  std::string key;
  for (size_t p = begin; p < end; ++p) {
    key.clear();
    AppendRowKey(probe_keys, p, &key);
    auto it = bytes_head_.find(key);
    found(p, it == bytes_head_.end() ? -1 : it->second);
  }
}

void JoinTable::AddRows(Kind kind, size_t p, int64_t head, ProbedRows* out) const {
  auto add = [out](size_t probe, int64_t b) {
    out->probe.push_back(static_cast<int64_t>(probe));
    out->build.push_back(b);
  };
  // Calls fn(build_row) for each build row of `head`'s key.
  auto each = [&](auto&& fn) {
    if (unique_) {
      fn(head);
      return;
    }
    for (const int64_t* slot = group_rows_.data() + head;; ++slot) {
      if (*slot < 0) {
        fn(~*slot);
        return;
      }
      fn(*slot);
    }
  };
  switch (kind) {
    case Kind::kInner:
      if (head >= 0) each([&](int64_t b) { add(p, b); });
      break;
    case Kind::kLeft:
      if (head < 0) {
        add(p, -1);
      } else {
        each([&](int64_t b) { add(p, b); });
      }
      break;
    case Kind::kSemi:
      if (head >= 0) add(p, unique_ ? head : std::max(group_rows_[head], ~group_rows_[head]));
      break;
    case Kind::kAnti:
      if (head < 0) add(p, -1);
      break;
    case Kind::kFull:
      if (head < 0) add(p, -1);
      [[fallthrough]];
    case Kind::kRight:
      if (head < 0) break;
      each([&](int64_t b) {
        add(p, b);
        if (matched_[b].load(std::memory_order_relaxed) == 0) {
          matched_[b].store(1, std::memory_order_relaxed);
        }
      });
      break;
  }
}

ProbedRows JoinTable::Probe(Kind kind, const std::vector<const Column*>& probe_keys,
                            size_t rows) const {
  size_t stopped = 0;
  return ProbeRange(kind, probe_keys, 0, rows, 0, &stopped);
}

ProbedRows JoinTable::ProbeRange(Kind kind, const std::vector<const Column*>& probe_keys,
                                 size_t begin, size_t end, size_t max_rows,
                                 size_t* stopped) const {
  ProbedRows out;
  out.probe.reserve(end - begin);
  out.build.reserve(end - begin);
  const size_t stride = max_rows == 0 ? end - begin : kProbeStride;
  // Only these kinds add a row for a probe row that matched nothing.
  const bool misses = kind == Kind::kLeft || kind == Kind::kAnti || kind == Kind::kFull;
  size_t at = begin;
  while (at < end && (max_rows == 0 || out.probe.size() < max_rows)) {
    const size_t until = std::min(end, at + stride);
    Lookup(probe_keys, at, until, misses,
           [&](size_t p, int64_t head) { AddRows(kind, p, head, &out); });
    at = until;
  }
  *stopped = at;
  return out;
}

std::vector<int64_t> JoinTable::Unmatched() const {
  std::vector<int64_t> rows;
  for (size_t r = 0; r < build_.rows(); ++r) {
    if (matched_[r].load(std::memory_order_relaxed) == 0) rows.push_back(static_cast<int64_t>(r));
  }
  return rows;
}

}  // namespace granite::core

// Writes one row of the synthetic `hits` table: given the row's sort key (day, user, time, watch
// id) and its counter, draws every other column from the row's own random stream and writes all
// 105 fields in table order. See bench/clickbench/README.md for the distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/field_writer.h"
#include "tools/hits_layout.h"
#include "tools/hits_user_model.h"
#include "tools/weighted_picker.h"

namespace granite::tools {

// The part of a row decided before sorting a counter's rows into key order.
struct RowKey {
  int64_t user_id = 0;
  int64_t watch_id = 0;
  uint64_t row_seed = 0;
  uint64_t user_index = 0;  // pool index of an ordinary user (picks the client IP)
  uint32_t event_time = 0;  // seconds since the epoch, UTC
  uint16_t day = 0;         // 0 = 2013-07-02
  int16_t robot = -1;       // index into HitsLayout::robots(), or -1
};

// Writes rows. Thread-safety: none (keeps scratch buffers and a per-user cache).
class HitsRowWriter {
 public:
  explicit HitsRowWriter(const HitsLayout* layout);

  // Starts the rows of `counter` (derives its host and special strings).
  void BeginCounter(const CounterPlan& counter);
  // Writes the row of `key` of the current counter. REQUIRES: BeginCounter() was called.
  void WriteRow(const RowKey& key, FieldWriter* out);

 private:
  enum class RefererKind { kEmpty, kHost, kInternal, kTailHost, kMalformed, kSpecial };
  // One entry of the referer distribution.
  struct RefererSource {
    RefererKind kind;
    std::string host;   // for kHost
    int search_engine;  // SearchEngineID of rows coming from this host (0: not a search engine)
    bool long_paths;
  };

  void MakeUrl(uint64_t page, bool has_phrase, SplitMixRng& rng);
  RefererKind MakeReferer(const RowKey& key, SplitMixRng& rng, int* search_engine);
  void MakeTitle(uint64_t page, bool has_phrase, SplitMixRng& rng);
  void MakeParams(SplitMixRng& rng);
  int16_t TraficSource(RefererKind kind, int search_engine, int adv_engine, SplitMixRng& rng);

  const HitsLayout* const layout_;
  HitsUserModel users_;
  std::vector<RefererSource> sources_;
  WeightedPicker source_picker_;
  WeightedPicker head_phrase_picker_;
  WeightedPicker adv_picker_;
  WeightedPicker charset_picker_;
  WeightedPicker other_trafic_picker_;

  // The current counter.
  const CounterPlan* counter_ = nullptr;
  std::string host_;
  std::string special_url_;      // counter 62's top page: URLHash = kSpecialUrlHash
  std::string special_referer_;  // counter 62's home page as a referer: RefererHash = kSpecial...

  // Cached traits of the last user (rows come sorted by user within a day).
  int64_t cached_user_ = 0;
  bool cache_valid_ = false;
  UserTraits traits_;

  // Scratch strings of the current row.
  std::string url_, referer_, title_, phrase_, params_, scratch_;
};

}  // namespace granite::tools

// What a chunked parse of input text (coordinator/formats/input_parser.h) carries from one chunk
// to the next, so that headers are read once and errors name global rows and lines.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <vector>

namespace granite::coordinator {

// Where a chunked parse stands.
struct InputProgress {
  bool started = false;              // the first chunk was parsed (headers, '[' of JSON)
  std::vector<int> field_to_column;  // from the *WithNames header, else the identity
  size_t rows = 0;                   // data rows parsed so far
  size_t lines = 0;                  // lines consumed so far (as the format counts them)
  bool in_array = false;             // JSONEachRow wrapped in [ ]
};

// How much one chunk may hold: it ends after max_rows rows, or after the row that reaches
// max_bytes of text, whichever comes first. A row is never split.
struct InputLimits {
  size_t max_rows = std::numeric_limits<size_t>::max();
  size_t max_bytes = std::numeric_limits<size_t>::max();
  // The text is exactly one chunk as the format's cut found it beforehand (InputParser::CutAhead):
  // the parser takes all of it as whole rows without looking for a cut, and `last` says whether
  // the chunk ends the text (only then are trailing blank lines dropped).
  bool precut = false;

  bool unlimited() const {
    return max_rows == std::numeric_limits<size_t>::max() &&
           max_bytes == std::numeric_limits<size_t>::max();
  }
};

// What a text format's row finder returns to CutChunk besides an offset past a row.
inline constexpr size_t kNoCompleteRow = std::numeric_limits<size_t>::max();  // need more text
inline constexpr size_t kWholeText = kNoCompleteRow - 1;  // give the parser all the text there is

// Returns where the chunk of `data` ends: after max_rows rows or the row reaching max_bytes, never
// inside a row; 0 while the `headers` header lines are not all there (they are read in one piece).
// Sets *final when the cut is the end of all the text (`last`: no more text will come). Rows are
// found by next_row(pos, is_header) -> the offset just past the row starting at pos, or
// kNoCompleteRow / kWholeText; `text_end` is where trailing blank lines begin (they are no rows).
template <typename NextRow>
size_t CutChunk(std::string_view data, size_t text_end, bool last, const InputLimits& limits,
                int headers, bool* final, NextRow next_row) {
  *final = false;
  if (limits.precut) {
    *final = last;
    return data.size();
  }
  if (last && limits.unlimited()) {
    *final = true;
    return data.size();
  }
  size_t pos = 0, rows = 0;
  while (pos < text_end) {
    const size_t next = next_row(pos, headers > 0);
    if (next == kWholeText) {
      *final = last;
      return data.size();
    }
    if (next == kNoCompleteRow) break;  // the last row of the text so far
    pos = next;
    if (headers > 0) {
      --headers;
      continue;
    }
    if (++rows >= limits.max_rows || pos >= limits.max_bytes) return pos;
  }
  if (last) {
    *final = true;
    return data.size();
  }
  return headers > 0 ? 0 : pos;
}

}  // namespace granite::coordinator

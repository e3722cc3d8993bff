// What a chunked parse of input text (coordinator/formats/input_parser.h) carries from one chunk
// to the next, so that headers are read once and errors name global rows and lines.
#pragma once

#include <cstddef>
#include <limits>
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

  bool unlimited() const {
    return max_rows == std::numeric_limits<size_t>::max() &&
           max_bytes == std::numeric_limits<size_t>::max();
  }
};

}  // namespace granite::coordinator

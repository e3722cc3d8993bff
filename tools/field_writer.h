// Writes rows of text data (TabSeparated or CSV, ClickHouse conventions) into a large buffer that
// is flushed to an std::ostream in big blocks: no per-field iostream formatting. Used by the data
// generators (granite gen) whose output is piped into INSERT ... FORMAT TabSeparated / CSV.
//
// TabSeparated: fields separated by '\t', rows end with '\n'; in strings '\\', '\t', '\n', '\r' and
// NUL are escaped as \\ \t \n \r \0 (ClickHouse's TSV escaping).
// CSV: fields separated by ',', rows end with '\n'; every string is quoted with '"' and an
// embedded '"' is doubled; numbers, dates and date-times are written bare.
// Dates are YYYY-MM-DD and date-times YYYY-MM-DD hh:mm:ss (UTC).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace granite::tools {

enum class TextFormat { kTabSeparated, kCsv };

// Buffers formatted rows and flushes them to `out` whenever more than `flush_bytes` are pending
// at a row end. Thread-safety: none.
class FieldWriter {
 public:
  FieldWriter(TextFormat format, std::ostream* out, size_t flush_bytes = 4 << 20);
  FieldWriter(const FieldWriter&) = delete;
  FieldWriter& operator=(const FieldWriter&) = delete;

  void Int(int64_t value);
  void String(std::string_view value);
  // days: days since 1970-01-01.
  void Date(int64_t days);
  // seconds: seconds since 1970-01-01 00:00:00 UTC.
  void DateTime(int64_t seconds);
  // Ends the current row; may flush.
  void EndRow();

  // Writes out everything pending. Returns an error if the stream failed (e.g. a closed pipe).
  absl::Status Flush();
  // Returns the stream's error status so far (sticky).
  absl::Status status() const { return status_; }

  // Exposed for tests and callers that format dates themselves: "YYYY-MM-DD" of `days`.
  static std::string FormatDate(int64_t days);

 private:
  // Writes the field separator unless the field is the first of its row.
  void BeginField() {
    if (row_started_) {
      *Reserve(1) = format_ == TextFormat::kCsv ? ',' : '\t';
      ++size_;
    }
    row_started_ = true;
  }
  // Returns room for `bytes` more bytes at the end of the buffer (size_ is not advanced).
  char* Reserve(size_t bytes) {
    if (size_ + bytes > buffer_.size()) Grow(bytes);
    return buffer_.data() + size_;
  }
  void Grow(size_t bytes);
  void AppendDate(int64_t days);

  const TextFormat format_;
  std::ostream* const out_;
  const size_t flush_bytes_;
  std::string buffer_;
  size_t size_ = 0;  // bytes of buffer_ in use
  bool row_started_ = false;
  absl::Status status_;
};

}  // namespace granite::tools

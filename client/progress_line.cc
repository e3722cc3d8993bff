#include "client/progress_line.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_format.h"

namespace granite::client {

namespace {

// "12.35 million", "1.00 thousand", "999" as ClickHouse's formatReadableQuantity.
std::string Quantity(double value) {
  static const char* const kUnits[] = {"", " thousand", " million", " billion", " trillion",
                                       " quadrillion"};
  size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f", value);
  return absl::StrFormat("%.2f%s", value, kUnits[unit]);
}

// "98.76 MB" as ClickHouse's formatReadableSizeWithDecimalSuffix.
std::string Size(double bytes) {
  static const char* const kUnits[] = {" B", " KB", " MB", " GB", " TB", " PB"};
  size_t unit = 0;
  while (bytes >= 1000 && unit + 1 < std::size(kUnits)) {
    bytes /= 1000;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f%s", bytes, kUnits[unit]);
  return absl::StrFormat("%.2f%s", bytes, kUnits[unit]);
}

}  // namespace

std::string ProgressLine::Text(uint64_t rows, uint64_t bytes, uint64_t total_rows,
                               double seconds) {
  std::string text = absl::StrFormat("Progress: %s rows, %s", Quantity(rows), Size(bytes));
  if (seconds > 0) {
    text += absl::StrFormat(" (%s rows/s., %s/s.)", Quantity(rows / seconds),
                            Size(bytes / seconds));
  }
  if (total_rows > 0) {
    const uint64_t percent = std::min<uint64_t>(100, rows * 100 / total_rows);
    text += absl::StrFormat(" %d%%", percent);
  }
  return text;
}

void ProgressLine::Add(const clickhouse::grpc::Progress& increment, Clock::time_point now) {
  rows_ += increment.read_rows();
  bytes_ += increment.read_bytes();
  total_rows_ += increment.total_rows_to_read();
  const auto elapsed = now - start_;
  if (elapsed < kDelay) return;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  *err_ << "\r\033[K" << Text(rows_, bytes_, total_rows_, seconds) << std::flush;
  drawn_ = true;
}

void ProgressLine::Clear() {
  if (!drawn_) return;
  *err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace granite::client

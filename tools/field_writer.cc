#include "tools/field_writer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>

namespace granite::tools {
namespace {

// Two-digit pairs "00".."99" for integer formatting.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes the decimal digits of v ending just before `end`; returns the first digit.
char* WriteDigitsBackward(uint64_t v, char* end) {
  while (v >= 100) {
    uint64_t pair = v % 100;
    v /= 100;
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * pair, 2);
  }
  if (v >= 10) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * v, 2);
  } else {
    *--end = static_cast<char>('0' + v);
  }
  return end;
}

// Bytes that need escaping: TabSeparated escapes \\ \t \n \r and NUL; CSV doubles '"'.
constexpr std::array<bool, 256> MakeSpecial(bool csv) {
  std::array<bool, 256> table{};
  if (csv) {
    table['"'] = true;
  } else {
    table['\\'] = table['\t'] = table['\n'] = table['\r'] = table[0] = true;
  }
  return table;
}
constexpr std::array<bool, 256> kTsvSpecial = MakeSpecial(false);
constexpr std::array<bool, 256> kCsvSpecial = MakeSpecial(true);

void Put2(char* p, int v) { std::memcpy(p, kDigitPairs + 2 * v, 2); }

// Converts days since 1970-01-01 to a civil date (Howard Hinnant's algorithm, proleptic Gregorian).
void CivilFromDays(int64_t z, int* year, int* month, int* day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  *year = static_cast<int>(y + (m <= 2));
  *month = static_cast<int>(m);
  *day = static_cast<int>(d);
}

}  // namespace

FieldWriter::FieldWriter(TextFormat format, std::ostream* out, size_t flush_bytes)
    : format_(format), out_(out), flush_bytes_(flush_bytes) {
  buffer_.resize(flush_bytes + (64 << 10));
}

void FieldWriter::Grow(size_t bytes) {
  buffer_.resize(std::max(buffer_.size() * 2, size_ + bytes));
}

void FieldWriter::Int(int64_t value) {
  BeginField();
  char* p = Reserve(20);
  char* const start = p;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (value < 0) *p++ = '-';
  if (magnitude < 10) {
    *p++ = static_cast<char>('0' + magnitude);  // most fields are small flags
  } else {
    int digits = 2;
    for (uint64_t bound = 100; digits < 20 && magnitude >= bound; bound *= 10) ++digits;
    p += digits;
    WriteDigitsBackward(magnitude, p);
  }
  size_ += p - start;
}

void FieldWriter::String(std::string_view value) {
  BeginField();
  // Worst case every byte doubles, plus two quotes.
  char* p = Reserve(2 * value.size() + 2);
  char* const start = p;
  const bool csv = format_ == TextFormat::kCsv;
  const bool* special = csv ? kCsvSpecial.data() : kTsvSpecial.data();
  if (csv) *p++ = '"';
  const char* in = value.data();
  const char* const end = in + value.size();
  while (in < end) {
    // Copies the run of ordinary bytes in one go, then escapes one special byte.
    const char* run = in;
    while (in < end && !special[static_cast<unsigned char>(*in)]) ++in;
    std::memcpy(p, run, in - run);
    p += in - run;
    if (in == end) break;
    char c = *in++;
    if (csv) {
      *p++ = '"';
      *p++ = '"';
      continue;
    }
    *p++ = '\\';
    switch (c) {
      case '\t': *p++ = 't'; break;
      case '\n': *p++ = 'n'; break;
      case '\r': *p++ = 'r'; break;
      case '\0': *p++ = '0'; break;
      default: *p++ = c;  // the backslash itself
    }
  }
  if (csv) *p++ = '"';
  size_ += p - start;
}

void FieldWriter::AppendDate(int64_t days) {
  int year, month, day;
  CivilFromDays(days, &year, &month, &day);
  char* p = Reserve(10);
  Put2(p, year / 100 % 100);
  Put2(p + 2, year % 100);
  p[4] = '-';
  Put2(p + 5, month);
  p[7] = '-';
  Put2(p + 8, day);
  size_ += 10;
}

void FieldWriter::Date(int64_t days) {
  BeginField();
  AppendDate(days);
}

void FieldWriter::DateTime(int64_t seconds) {
  BeginField();
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t rest = seconds - days * 86400;
  AppendDate(days);
  char* p = Reserve(9);
  p[0] = ' ';
  Put2(p + 1, static_cast<int>(rest / 3600));
  p[3] = ':';
  Put2(p + 4, static_cast<int>(rest / 60 % 60));
  p[6] = ':';
  Put2(p + 7, static_cast<int>(rest % 60));
  size_ += 9;
}

void FieldWriter::EndRow() {
  *Reserve(1) = '\n';
  ++size_;
  row_started_ = false;
  if (size_ >= flush_bytes_) status_.Update(Flush());
}

absl::Status FieldWriter::Flush() {
  if (!status_.ok()) return status_;
  if (size_ > 0) {
    out_->write(buffer_.data(), static_cast<std::streamsize>(size_));
    size_ = 0;
  }
  out_->flush();
  if (!*out_) status_ = absl::DataLossError("Cannot write generated data: output stream failed");
  return status_;
}

std::string FieldWriter::FormatDate(int64_t days) {
  std::ostringstream unused;
  FieldWriter writer(TextFormat::kTabSeparated, &unused, 64);
  writer.AppendDate(days);
  return writer.buffer_.substr(0, writer.size_);
}

}  // namespace granite::tools

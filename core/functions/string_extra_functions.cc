// More string functions, ClickHouse's names and semantics:
//   lengthUTF8 (char_length, character_length) -> UInt64; lowerUTF8, upperUTF8, reverse,
//   reverseUTF8, initcap, initcapUTF8, trimLeft (ltrim), trimRight (rtrim), trimBoth (trim) (s[,
//   characters]: spaces without them), base64Encode (TO_BASE64), base64Decode (FROM_BASE64; invalid input fails with
//   INCORRECT_DATA), tryBase64Decode ('' when invalid), unhex, toValidUTF8 -> String;
//   substringUTF8(s, offset[, length]), left / right / leftUTF8 / rightUTF8(s, n), repeat(s, n),
//   space(n), leftPad / rightPad / leftPadUTF8 / rightPadUTF8(s, length[, fill]) (lpad, rpad),
//   concatWithSeparator(sep, ...) (concat_ws), format(pattern, ...) ({} and {N}, {{ and }}),
//   substringIndex(s, delim, count) -> String;
//   positionCaseInsensitive, positionUTF8, positionCaseInsensitiveUTF8, countSubstrings,
//   countSubstringsCaseInsensitive, editDistance (levenshteinDistance) -> UInt64; ascii -> Int32;
//   isValidUTF8, startsWithUTF8, endsWithUTF8 -> UInt8; hex(x), bin(x) of a String or a number.
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/functions/simple_function.h"
#include "core/functions/utf8.h"
#include "core/functions/function_errors.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using A = Arg;
constexpr TypeId kStr = TypeId::kString;
constexpr TypeId kU64 = TypeId::kUInt64;
constexpr TypeId kU8 = TypeId::kUInt8;

template <void (*G)(std::string_view, std::string*)>
void MapString(const Operand* ops, size_t i, Column* out) {
  std::string result;
  G(Str(ops[0], i), &result);
  out->AppendString(result);
}

template <bool kUpper>
void CaseUtf8(std::string_view s, std::string* out) {
  out->reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    const uint32_t cp = DecodeUtf8(s, &pos);
    if (cp < 0x80 || pos - start == 1) {
      char c = s[start];
      if (cp < 0x80) c = kUpper ? absl::ascii_toupper(c) : absl::ascii_tolower(c);
      out->push_back(c);
      continue;
    }
    AppendUtf8(kUpper ? UpperCodePoint(cp) : LowerCodePoint(cp), out);
  }
}

void Reverse(std::string_view s, std::string* out) { out->assign(s.rbegin(), s.rend()); }

void ReverseUtf8(std::string_view s, std::string* out) {
  out->resize(s.size());
  size_t end = s.size();
  for (size_t pos = 0; pos < s.size();) {
    const size_t n = std::min(Utf8SequenceLength(static_cast<unsigned char>(s[pos])),
                              s.size() - pos);
    end -= n;
    std::memcpy(out->data() + end, s.data() + pos, n);
    pos += n;
  }
}

template <bool kUtf8>
void Initcap(std::string_view s, std::string* out) {
  bool word_start = true;
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    uint32_t cp = kUtf8 ? DecodeUtf8(s, &pos) : static_cast<unsigned char>(s[pos++]);
    const bool alnum = cp < 0x80 ? absl::ascii_isalnum(static_cast<char>(cp)) : kUtf8;
    if (cp < 0x80 || !kUtf8 || pos - start == 1) {
      char c = s[start];
      if (cp < 0x80) c = word_start ? absl::ascii_toupper(c) : absl::ascii_tolower(c);
      out->push_back(c);
    } else {
      AppendUtf8(word_start ? UpperCodePoint(cp) : LowerCodePoint(cp), out);
    }
    word_start = !alnum;
  }
}

// trimLeft / trimRight / trimBoth(s[, characters]): strips the bytes of `characters` (a space
// without it) from the chosen ends.
template <bool kLeft, bool kRight>
void Trim(const Operand* ops, size_t i, Column* out) {
  const std::string_view s = Str(ops[0], i);
  const std::string_view set = ops[1].column != nullptr ? Str(ops[1], i) : std::string_view(" ");
  size_t b = 0, e = s.size();
  if (kLeft) {
    while (b < e && set.find(s[b]) != std::string_view::npos) ++b;
  }
  if (kRight) {
    while (e > b && set.find(s[e - 1]) != std::string_view::npos) --e;
  }
  out->AppendString(s.substr(b, e - b));
}

void Base64Encode(std::string_view s, std::string* out) {
  absl::Base64Escape(absl::string_view(s.data(), s.size()), out);
}

bool DecodeBase64(std::string_view s, std::string* out) {
  return absl::Base64Unescape(absl::string_view(s.data(), s.size()), out);
}

void Base64Decode(const Operand* ops, size_t i, Column* out) {
  std::string result;
  std::string_view s = Str(ops[0], i);
  if (!DecodeBase64(s, &result)) {
    FailRow(Error(ErrorCode::kIncorrectData,
                  absl::StrCat("Failed to decode base64 string '", std::string(s), "'")));
  }
  out->AppendString(result);
}

void TryBase64Decode(std::string_view s, std::string* out) {
  if (!DecodeBase64(s, out)) out->clear();
}

// A hex digit's value; -1 for any other character, which unhex adds in as ClickHouse's table
// does (unhex('2.') is 0x1F), so that invalid input gives ClickHouse's bytes.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// unhex: pairs of hex digits; an odd count takes the first digit alone, as ClickHouse.
void Unhex(std::string_view s, std::string* out) {
  size_t i = 0;
  if (s.size() % 2 == 1) out->push_back(static_cast<char>(HexValue(s[i++])));
  for (; i + 1 < s.size(); i += 2) {
    out->push_back(static_cast<char>(HexValue(s[i]) * 16 + HexValue(s[i + 1])));
  }
}

void ToValidUtf8(std::string_view s, std::string* out) {
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    DecodeUtf8(s, &pos);
    const size_t n = Utf8SequenceLength(static_cast<unsigned char>(s[start]));
    if (pos - start == n && !(n == 1 && static_cast<unsigned char>(s[start]) >= 0x80)) {
      out->append(s.substr(start, pos - start));
    } else {
      out->append("\xEF\xBF\xBD");
      // ClickHouse replaces a whole run of invalid bytes by one replacement character.
      while (pos < s.size()) {
        size_t probe = pos;
        DecodeUtf8(s, &probe);
        const size_t m = Utf8SequenceLength(static_cast<unsigned char>(s[pos]));
        if (probe - pos == m && !(m == 1 && static_cast<unsigned char>(s[pos]) >= 0x80)) break;
        pos = probe;
      }
    }
  }
}

bool IsValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    const uint32_t cp = DecodeUtf8(s, &pos);
    const size_t n = Utf8SequenceLength(static_cast<unsigned char>(s[start]));
    if (pos - start != n || (n == 1 && static_cast<unsigned char>(s[start]) >= 0x80)) return false;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return false;
  }
  return true;
}

void LengthUtf8(const Operand* ops, size_t i, Column* out) {
  out->Append<uint64_t>(Utf8Length(Str(ops[0], i)));
}
void IsValidUtf8Row(const Operand* ops, size_t i, Column* out) {
  out->Append<uint8_t>(IsValidUtf8(Str(ops[0], i)));
}
void Ascii(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  out->Append<int32_t>(s.empty() ? 0 : static_cast<unsigned char>(s[0]));
}

// substringUTF8(s, offset[, length]) with substring's rules in code points.
void SubstringUtf8(const Operand* ops, size_t i, Column* out, bool has_length) {
  std::string_view s = Str(ops[0], i);
  const int64_t offset = I64(ops[1], i);
  const int64_t n = static_cast<int64_t>(Utf8Length(s));
  int64_t start;
  if (offset > 0) {
    start = offset - 1;
  } else if (offset < 0) {
    start = n + offset;
  } else {
    out->AppendString("");
    return;
  }
  int64_t end = n;
  if (has_length) {
    const int64_t length = I64(ops[2], i);
    end = length >= 0 ? start + length : n + length;
  }
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  const size_t b = Utf8Offset(s, start);
  const size_t e = Utf8Offset(s, end);
  out->AppendString(s.substr(b, e - b));
}
void SubstringUtf8Row(const Operand* ops, size_t i, Column* out) {
  // The kernel sees 2 or 3 operands; a third is present when its column exists.
  SubstringUtf8(ops, i, out, ops[2].column != nullptr);
}

template <bool kLeft, bool kUtf8>
void LeftRight(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  const int64_t k = I64(ops[1], i);
  const int64_t n = kUtf8 ? static_cast<int64_t>(Utf8Length(s)) : static_cast<int64_t>(s.size());
  // left(s, -k): all but the last k; right(s, -k): all but the first k.
  int64_t begin, end;
  if (kLeft) {
    begin = 0;
    end = k >= 0 ? std::min(k, n) : std::max<int64_t>(0, n + k);
  } else {
    end = n;
    begin = k >= 0 ? std::max<int64_t>(0, n - k) : std::min(n, -k);
  }
  if (kUtf8) {
    const size_t b = Utf8Offset(s, begin);
    out->AppendString(s.substr(b, Utf8Offset(s, end) - b));
  } else {
    out->AppendString(s.substr(begin, end - begin));
  }
}

void Repeat(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  const double count = F64(ops[1], i);
  if (count > 0 && static_cast<double>(s.size()) * count > static_cast<double>(1 << 30)) {
    FailRow(Error(ErrorCode::kTooLargeStringSize,
                  absl::StrCat("Too large string size (", static_cast<uint64_t>(count),
                               ") in function repeat")));
    out->AppendString("");
    return;
  }
  const int64_t n = static_cast<int64_t>(count);
  std::string result;
  for (int64_t k = 0; k < n; ++k) result.append(s);
  out->AppendString(result);
}

void Space(const Operand* ops, size_t i, Column* out) {
  const double count = F64(ops[0], i);
  if (count > static_cast<double>(1 << 30)) {
    FailRow(Error(ErrorCode::kTooLargeStringSize,
                  absl::StrCat("Too large string size (", static_cast<uint64_t>(count),
                               ") in function space")));
    out->AppendString("");
    return;
  }
  out->AppendString(std::string(count > 0 ? static_cast<size_t>(count) : 0, ' '));
}

template <bool kLeft, bool kUtf8>
void Pad(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  const int64_t length = I64(ops[1], i);
  std::string_view fill = ops[2].column != nullptr ? Str(ops[2], i) : std::string_view(" ");
  if (length < 0 || length > (int64_t{1} << 30)) {
    FailRow(Error(ErrorCode::kArgumentOutOfBound,
                  absl::StrCat("Too large or negative padding length ", length)));
    out->AppendString("");
    return;
  }
  const size_t n = kUtf8 ? Utf8Length(s) : s.size();
  const size_t target = static_cast<size_t>(length);
  if (n >= target) {
    out->AppendString(s.substr(0, kUtf8 ? Utf8Offset(s, target) : target));
    return;
  }
  std::string padding;
  if (!fill.empty()) {
    const size_t need = target - n;
    const size_t fill_n = kUtf8 ? Utf8Length(fill) : fill.size();
    for (size_t k = 0; k < need / fill_n; ++k) padding.append(fill);
    const size_t rest = need % fill_n;
    padding.append(fill.substr(0, kUtf8 ? Utf8Offset(fill, rest) : rest));
  }
  out->AppendString(kLeft ? padding + std::string(s) : std::string(s) + padding);
}

void ConcatWithSeparator(const Operand* ops, size_t i, Column* out) {
  // The row kernel does not know the operand count: the list ends at a null column.
  std::string result;
  std::string_view sep = Str(ops[0], i);
  for (size_t k = 1; ops[k].column != nullptr; ++k) {
    if (k > 1) result.append(sep);
    result.append(Str(ops[k], i));
  }
  out->AppendString(result);
}

void Format(const Operand* ops, size_t i, Column* out) {
  std::string_view pattern = Str(ops[0], i);
  size_t args = 0;
  while (ops[1 + args].column != nullptr) ++args;
  std::string result;
  size_t next = 0;
  for (size_t p = 0; p < pattern.size(); ++p) {
    const char c = pattern[p];
    if (c == '{' && p + 1 < pattern.size() && pattern[p + 1] == '{') {
      result.push_back('{');
      ++p;
    } else if (c == '}' && p + 1 < pattern.size() && pattern[p + 1] == '}') {
      result.push_back('}');
      ++p;
    } else if (c == '{') {
      const size_t close = pattern.find('}', p);
      if (close == std::string_view::npos) {
        FailRow(Error(ErrorCode::kBadArguments, "Unclosed '{' in format pattern"));
        break;
      }
      std::string_view index = pattern.substr(p + 1, close - p - 1);
      size_t k = next++;
      if (!index.empty()) {
        k = 0;
        for (char d : index) k = k * 10 + static_cast<size_t>(d - '0');
      }
      if (k >= args) {
        FailRow(Error(ErrorCode::kBadArguments,
                      absl::StrCat("Argument ", k, " is out of range in format pattern")));
        break;
      }
      result.append(Str(ops[1 + k], i));
      p = close;
    } else {
      result.push_back(c);
    }
  }
  out->AppendString(result);
}

void SubstringIndex(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i);
  std::string_view delim = Str(ops[1], i);
  const int64_t count = I64(ops[2], i);
  if (delim.empty() || count == 0) {
    out->AppendString("");
    return;
  }
  if (count > 0) {
    size_t pos = 0;
    for (int64_t k = 0; k < count; ++k) {
      size_t at = s.find(delim, pos);
      if (at == std::string_view::npos) return out->AppendString(s);
      pos = at + delim.size();
      if (k + 1 == count) return out->AppendString(s.substr(0, at));
    }
  }
  size_t end = s.size();
  for (int64_t k = 0; k < -count; ++k) {
    if (end < delim.size()) return out->AppendString(s);
    size_t at = s.rfind(delim, end - delim.size());
    if (at == std::string_view::npos) return out->AppendString(s);
    if (k + 1 == -count) return out->AppendString(s.substr(at + delim.size()));
    if (at == 0) return out->AppendString(s);
    end = at;
  }
  out->AppendString(s);
}

std::string Folded(std::string_view s, bool utf8) {
  std::string out;
  if (utf8) {
    CaseUtf8<false>(s, &out);
  } else {
    out = absl::AsciiStrToLower(absl::string_view(s.data(), s.size()));
  }
  return out;
}

// position variants: 1-based; UTF8 variants count code points.
template <bool kCaseInsensitive, bool kUtf8>
void Position(const Operand* ops, size_t i, Column* out) {
  std::string_view h = Str(ops[0], i);
  std::string_view n = Str(ops[1], i);
  std::string hf, nf;
  if (kCaseInsensitive) {
    hf = Folded(h, kUtf8);
    nf = Folded(n, kUtf8);
    h = hf;
    n = nf;
  }
  const size_t at = h.find(n);
  if (at == std::string_view::npos) return out->Append<uint64_t>(0);
  out->Append<uint64_t>((kUtf8 ? Utf8Length(h.substr(0, at)) : at) + 1);
}

template <bool kCaseInsensitive>
void CountSubstrings(const Operand* ops, size_t i, Column* out) {
  std::string h(Str(ops[0], i)), n(Str(ops[1], i));
  if (kCaseInsensitive) {
    absl::AsciiStrToLower(&h);
    absl::AsciiStrToLower(&n);
  }
  uint64_t count = 0;
  if (!n.empty()) {
    for (size_t pos = h.find(n); pos != std::string::npos; pos = h.find(n, pos + n.size())) {
      ++count;
    }
  }
  out->Append<uint64_t>(count);
}

void EditDistance(const Operand* ops, size_t i, Column* out) {
  std::string_view a = Str(ops[0], i), b = Str(ops[1], i);
  if (a.size() * b.size() > (size_t{1} << 26)) {
    FailRow(Error(ErrorCode::kTooManyBytes, "The string size is too big for function editDistance"));
    return out->Append<uint64_t>(0);
  }
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t x = 1; x <= a.size(); ++x) {
    size_t diagonal = row[0];
    row[0] = x;
    for (size_t y = 1; y <= b.size(); ++y) {
      const size_t up = row[y];
      row[y] = std::min({row[y] + 1, row[y - 1] + 1, diagonal + (a[x - 1] != b[y - 1])});
      diagonal = up;
    }
  }
  out->Append<uint64_t>(row[b.size()]);
}

template <bool kStarts>
void StartsEndsUtf8(const Operand* ops, size_t i, Column* out) {
  std::string_view s = Str(ops[0], i), x = Str(ops[1], i);
  out->Append<uint8_t>(kStarts ? s.starts_with(x) : s.ends_with(x));
}

// hex / bin of a String (its bytes) or a number (its value; integers without leading zero bytes,
// floats and dates by their bytes in memory order for floats).
absl::StatusOr<TypeId> ResolveHex(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (!HasStringLayout(args[0].type) && !IsNumeric(args[0].type)) {  // FixedString: N bytes
    return IllegalArgumentType(name, 0, args[0].type);
  }
  return TypeId::kString;
}

class HexKernel : public ScalarKernel {
 public:
  explicit HexKernel(bool binary) : binary_(binary) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& in = *args[0].column;
    auto out = std::make_shared<Column>(TypeId::kString);
    out->Reserve(rows);
    std::string text;
    for (size_t i = 0; i < rows; ++i) {
      const size_t row = args[0].is_constant ? 0 : i;
      text.clear();
      if (HasStringLayout(in.type())) {
        Bytes(in.StringAt(row), &text);
      } else {
        DispatchFixed(in.type(), [&](auto tag) {
          using T = typename decltype(tag)::Type;
          const T v = in.Data<T>()[row];
          unsigned char bytes[sizeof(T)];
          std::memcpy(bytes, &v, sizeof(T));
          if constexpr (std::is_floating_point_v<T>) {
            Bytes(std::string_view(reinterpret_cast<const char*>(bytes), sizeof(T)), &text);
          } else {
            // Big-endian digits without leading zero bytes (at least one byte).
            size_t top = sizeof(T);
            while (top > 1 && bytes[top - 1] == 0) --top;
            std::string be;
            for (size_t k = top; k-- > 0;) be.push_back(static_cast<char>(bytes[k]));
            Bytes(be, &text);
          }
        });
      }
      out->AppendString(text);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  void Bytes(std::string_view s, std::string* out) const {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    for (unsigned char c : s) {
      if (binary_) {
        for (int b = 7; b >= 0; --b) out->push_back((c >> b) & 1 ? '1' : '0');
      } else {
        out->push_back(kDigits[c >> 4]);
        out->push_back(kDigits[c & 15]);
      }
    }
  }
  const bool binary_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileHex(std::string_view name,
                                                         const std::vector<ArgumentInfo>&,
                                                         TypeId) {
  return std::make_unique<HexKernel>(name == "bin");
}

}  // namespace

void RegisterStringExtraFunctions(FunctionTable& table) {
  AddSimpleFunctions(table, {
      {"lengthUTF8", {A::kString}, 1, 1, false, kU64, MakeRowKernel<LengthUtf8>},
      {"lowerUTF8", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<CaseUtf8<false>>>},
      {"upperUTF8", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<CaseUtf8<true>>>},
      {"reverse", {A::kString}, 1, 1, true, kStr, MakeRowKernel<MapString<Reverse>>},
      {"reverseUTF8", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<ReverseUtf8>>},
      {"initcap", {A::kString}, 1, 1, true, kStr, MakeRowKernel<MapString<Initcap<false>>>},
      {"initcapUTF8", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<Initcap<true>>>},
      {"trimLeft", {A::kString}, 1, 2, false, kStr, MakeRowKernel<Trim<true, false>>},
      {"trimRight", {A::kString}, 1, 2, false, kStr, MakeRowKernel<Trim<false, true>>},
      {"trimBoth", {A::kString}, 1, 2, false, kStr, MakeRowKernel<Trim<true, true>>},
      {"base64Encode", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<Base64Encode>>},
      {"base64Decode", {A::kString}, 1, 1, false, kStr, MakeRowKernel<Base64Decode>},
      {"tryBase64Decode", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<MapString<TryBase64Decode>>},
      {"unhex", {A::kString}, 1, 1, true, kStr, MakeRowKernel<MapString<Unhex>>},
      {"toValidUTF8", {A::kString}, 1, 1, false, kStr, MakeRowKernel<MapString<ToValidUtf8>>},
      {"isValidUTF8", {A::kString}, 1, 1, false, kU8, MakeRowKernel<IsValidUtf8Row>},
      {"ascii", {A::kString}, 1, 1, true, TypeId::kInt32, MakeRowKernel<Ascii>},
      {"substringUTF8", {A::kString, A::kInt}, 2, 3, false, kStr,
       MakeRowKernel<SubstringUtf8Row>},
      {"left", {A::kString, A::kInt}, 2, 2, true, kStr, MakeRowKernel<LeftRight<true, false>>},
      {"right", {A::kString, A::kInt}, 2, 2, true, kStr, MakeRowKernel<LeftRight<false, false>>},
      {"leftUTF8", {A::kString, A::kInt}, 2, 2, false, kStr,
       MakeRowKernel<LeftRight<true, true>>},
      {"rightUTF8", {A::kString, A::kInt}, 2, 2, false, kStr,
       MakeRowKernel<LeftRight<false, true>>},
      {"repeat", {A::kString, A::kCount}, 2, 2, true, kStr, MakeRowKernel<Repeat>},
      {"space", {A::kCount}, 1, 1, true, kStr, MakeRowKernel<Space>},
      {"leftPad", {A::kString, A::kInt, A::kString}, 2, 3, false, kStr,
       MakeRowKernel<Pad<true, false>>},
      {"rightPad", {A::kString, A::kInt, A::kString}, 2, 3, false, kStr,
       MakeRowKernel<Pad<false, false>>},
      {"leftPadUTF8", {A::kString, A::kInt, A::kString}, 2, 3, false, kStr,
       MakeRowKernel<Pad<true, true>>},
      {"rightPadUTF8", {A::kString, A::kInt, A::kString}, 2, 3, false, kStr,
       MakeRowKernel<Pad<false, true>>},
      {"concatWithSeparator", {A::kString, A::kAny}, 1, kVariadic, false, kStr,
       MakeRowKernel<ConcatWithSeparator>},
      {"format", {A::kString, A::kAny}, 1, kVariadic, false, kStr, MakeRowKernel<Format>},
      {"substringIndex", {A::kString, A::kString, A::kInt}, 3, 3, false, kStr,
       MakeRowKernel<SubstringIndex>},
      {"positionCaseInsensitive", {A::kString}, 2, 2, false, kU64,
       MakeRowKernel<Position<true, false>>},
      {"positionUTF8", {A::kString}, 2, 2, false, kU64, MakeRowKernel<Position<false, true>>},
      {"positionCaseInsensitiveUTF8", {A::kString}, 2, 2, false, kU64,
       MakeRowKernel<Position<true, true>>},
      {"countSubstrings", {A::kString}, 2, 2, true, kU64, MakeRowKernel<CountSubstrings<false>>},
      {"countSubstringsCaseInsensitive", {A::kString}, 2, 2, false, kU64,
       MakeRowKernel<CountSubstrings<true>>},
      {"editDistance", {A::kString}, 2, 2, false, kU64, MakeRowKernel<EditDistance>},
      {"startsWithUTF8", {A::kString}, 2, 2, false, kU8, MakeRowKernel<StartsEndsUtf8<true>>},
      {"endsWithUTF8", {A::kString}, 2, 2, false, kU8, MakeRowKernel<StartsEndsUtf8<false>>},
  });
  table.Add({"hex", 1, 1, true, ResolveHex, CompileHex});
  table.Add({"bin", 1, 1, true, ResolveHex, CompileHex});
  table.AddAlias("CHAR_LENGTH", "lengthUTF8", true);
  table.AddAlias("CHARACTER_LENGTH", "lengthUTF8", true);
  table.AddAlias("ltrim", "trimLeft", false);
  table.AddAlias("rtrim", "trimRight", false);
  table.AddAlias("trim", "trimBoth", false);
  table.AddAlias("TO_BASE64", "base64Encode", true);
  table.AddAlias("FROM_BASE64", "base64Decode", true);
  table.AddAlias("lpad", "leftPad", true);
  table.AddAlias("rpad", "rightPad", true);
  table.AddAlias("concat_ws", "concatWithSeparator", true);
  table.AddAlias("SUBSTRING_INDEX", "substringIndex", true);
  table.AddAlias("levenshteinDistance", "editDistance", false);
}

}  // namespace granite::core

// JSON functions over String documents, with a small validating scanner (no JSON library is
// linked): 
//   simpleJSONHas, simpleJSONExtractUInt, simpleJSONExtractInt, simpleJSONExtractFloat,
//   simpleJSONExtractBool, simpleJSONExtractRaw, simpleJSONExtractString (json, field): the first
//   "field": anywhere in the text, as ClickHouse's fast scanner (aliases visitParam*);
//   JSONHas, JSONLength, JSONExtractString, JSONExtractInt, JSONExtractUInt, JSONExtractFloat,
//   JSONExtractBool, JSONExtractRaw (json[, key or 1-based index ...]): a real path through
//   objects and arrays (negative indexes count from the end); isValidJSON. A missing path or a
//   value of another kind gives the type's default.
#include <charconv>
#include <cmath>
#include <string>

#include "core/functions/function_errors.h"
#include "core/functions/simple_function.h"
#include "core/functions/utf8.h"

namespace granite::core {
namespace {

using A = Arg;

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view s) : s_(s) {}

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' ||
                                s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // Skips one value; returns false if malformed.
  bool SkipValue(int depth = 0) {
    if (depth > 64) return false;
    SkipSpace();
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == '"') return SkipString();
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == close) {
        ++pos_;
        return true;
      }
      while (true) {
        if (c == '{') {
          SkipSpace();
          if (!SkipString()) return false;
          SkipSpace();
          if (pos_ >= s_.size() || s_[pos_] != ':') return false;
          ++pos_;
        }
        if (!SkipValue(depth + 1)) return false;
        SkipSpace();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] != close) return false;
        ++pos_;
        return true;
      }
    }
    for (std::string_view word : {"true", "false", "null"}) {
      if (s_.substr(pos_).starts_with(word)) {
        pos_ += word.size();
        return true;
      }
    }
    return SkipNumber();
  }
  // Skips a number of JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
  bool SkipNumber() {
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (SkipDigits() == 0) {
      return false;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (SkipDigits() == 0) return false;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (SkipDigits() == 0) return false;
    }
    return true;
  }
  size_t SkipDigits() {
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return pos_ - start;
  }
  bool SkipString() {
    if (pos_ >= s_.size() || s_[pos_] != '"') return false;
    for (++pos_; pos_ < s_.size(); ++pos_) {
      if (s_[pos_] == '\\') {
        ++pos_;
      } else if (s_[pos_] == '"') {
        ++pos_;
        return true;
      }
    }
    return false;
  }
  // Descends into member `key` of the object at the cursor. Returns false if absent.
  bool Member(std::string_view key) {
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '{') return false;
    ++pos_;
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] == '}') return false;
      const size_t start = pos_;
      if (!SkipString()) return false;
      std::string name;
      Unescape(s_.substr(start, pos_ - start), &name);
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return false;
      ++pos_;
      SkipSpace();
      if (name == key) return true;
      if (!SkipValue()) return false;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
    }
  }
  // Descends into element `index` (1-based; negative from the end) of an array, or the
  // index-th member of an object.
  bool Element(int64_t index) {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '[' && s_[pos_] != '{') || index == 0) return false;
    const bool object = s_[pos_] == '{';
    const size_t open = pos_;
    if (index < 0) {
      const int64_t count = Length();
      pos_ = open;
      index = count + index + 1;
      if (index <= 0) return false;
    }
    ++pos_;
    for (int64_t k = 1;; ++k) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] == ']' || s_[pos_] == '}') return false;
      if (object) {
        if (!SkipString()) return false;
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != ':') return false;
        ++pos_;
        SkipSpace();
      }
      if (k == index) return true;
      if (!SkipValue()) return false;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
    }
  }
  // Returns the number of elements of the array or object at the cursor (0 for other values).
  int64_t Length() {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '[' && s_[pos_] != '{')) return 0;
    const bool object = s_[pos_] == '{';
    ++pos_;
    int64_t n = 0;
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size()) return n;
      if (s_[pos_] == ']' || s_[pos_] == '}') return n;
      if (object) {
        if (!SkipString()) return n;
        SkipSpace();
        ++pos_;
      }
      if (!SkipValue()) return n;
      ++n;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
    }
  }
  // Returns the text of the value at the cursor.
  std::string_view Raw() {
    SkipSpace();
    const size_t start = pos_;
    if (!SkipValue()) return {};
    return s_.substr(start, pos_ - start);
  }

  static void Unescape(std::string_view quoted, std::string* out) {
    if (quoted.size() < 2) return;
    std::string_view s = quoted.substr(1, quoted.size() - 2);
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\\' || i + 1 >= s.size()) {
        out->push_back(s[i]);
        continue;
      }
      const char e = s[++i];
      switch (e) {
        case 'n': out->push_back('\n'); break;
        case 't': out->push_back('\t'); break;
        case 'r': out->push_back('\r'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'u': {
          uint32_t cp = 0;
          for (int k = 0; k < 4 && i + 1 < s.size(); ++k) {
            const char h = s[++i];
            cp = cp * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                                         : (h | 32) - 'a' + 10);
          }
          if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < s.size() + 0 && s[i + 1] == '\\' &&
              s[i + 2] == 'u') {
            uint32_t low = 0;
            i += 2;
            for (int k = 0; k < 4 && i + 1 < s.size(); ++k) {
              const char h = s[++i];
              low = low * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                                             : (h | 32) - 'a' + 10);
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default: out->push_back(e);
      }
    }
  }

  bool AtEnd() {
    SkipSpace();
    return pos_ == s_.size();
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// Follows the path arguments (from operand 1 on). Returns false when it does not exist.
bool Follow(JsonScanner* scanner, const Operand* ops, size_t i) {
  {
    JsonScanner check = *scanner;
    if (!check.SkipValue() || !check.AtEnd()) return false;  // not one valid document
  }
  for (size_t k = 1; ops[k].column != nullptr; ++k) {
    const bool found = ops[k].type() == TypeId::kString ? scanner->Member(Str(ops[k], i))
                                                        : scanner->Element(I64(ops[k], i));
    if (!found) return false;
  }
  return true;
}

// Returns a value's text without the white space between its tokens, as ClickHouse prints the
// objects and arrays JSONExtractRaw and JSONExtractString return.
std::string Minified(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < raw.size()) {
        out.push_back(raw[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out.push_back(c);
    }
  }
  return out;
}

enum class Kind { kString, kInt, kUInt, kFloat, kBool, kRaw, kHas, kLength };

void AppendNumber(std::string_view raw, Kind kind, Column* out) {
  double d = 0;
  bool ok = false;
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') raw = raw.substr(1, raw.size() - 2);
  if (!raw.empty()) {
    auto [p, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
    ok = ec == std::errc() && p == raw.data() + raw.size();
  }
  if (raw == "true") d = 1, ok = true;
  if (kind == Kind::kFloat) return out->Append<double>(ok ? d : 0);
  if (kind == Kind::kBool) return out->Append<uint8_t>(raw == "true" ? 1 : 0);
  if (!ok || !std::isfinite(d)) d = 0;
  if (kind == Kind::kInt) return out->Append<int64_t>(static_cast<int64_t>(d));
  out->Append<uint64_t>(d < 0 ? 0 : static_cast<uint64_t>(d));
}

template <Kind kKind>
void Extract(const Operand* ops, size_t i, Column* out) {
  JsonScanner scanner(Str(ops[0], i));
  const bool found = Follow(&scanner, ops, i);
  switch (kKind) {
    case Kind::kHas: return out->Append<uint8_t>(found);
    case Kind::kLength: return out->Append<uint64_t>(found ? scanner.Length() : 0);
    case Kind::kRaw: return out->AppendString(found ? Minified(scanner.Raw()) : "");
    case Kind::kString: {
      std::string text;
      std::string_view raw = found ? scanner.Raw() : "";
      if (raw.starts_with('"')) {
        JsonScanner::Unescape(raw, &text);
      } else {
        text = Minified(raw);  // a number, literal, object or array: its text, as ClickHouse
      }
      return out->AppendString(text);
    }
    default: AppendNumber(found ? scanner.Raw() : "", kKind, out);
  }
}

void IsValidJson(const Operand* ops, size_t i, Column* out) {
  JsonScanner scanner(Str(ops[0], i));
  out->Append<uint8_t>(scanner.SkipValue() && scanner.AtEnd());
}

// simpleJSON*: the value after the first "field": in the text.
std::string_view SimpleValue(std::string_view json, std::string_view field, bool* found) {
  std::string needle = "\"" + std::string(field) + "\":";
  const size_t at = json.find(needle);
  *found = at != std::string_view::npos;
  if (!*found) return {};
  JsonScanner scanner(json.substr(at + needle.size()));
  return scanner.Raw();
}

template <Kind kKind>
void Simple(const Operand* ops, size_t i, Column* out) {
  bool found;
  std::string_view raw = SimpleValue(Str(ops[0], i), Str(ops[1], i), &found);
  switch (kKind) {
    case Kind::kHas: return out->Append<uint8_t>(found);
    case Kind::kRaw: return out->AppendString(raw);
    case Kind::kString: {
      std::string text;
      if (raw.starts_with('"')) JsonScanner::Unescape(raw, &text);
      return out->AppendString(text);
    }
    default: AppendNumber(raw, kKind, out);
  }
}

// The path arguments are Strings (keys) or integers (indexes), passed through unconverted.
absl::StatusOr<TypeId> ResolveJson(std::string_view name, const std::vector<ArgumentInfo>& args);

struct JsonFunction {
  std::string_view name;
  TypeId result;
  RowFn row;
};

template <RowFn F>
void Apply(const Operand* ops, size_t i, Column* out) {
  F(ops, i, out);
}

const JsonFunction kJsonFunctions[] = {
    {"JSONHas", TypeId::kUInt8, Extract<Kind::kHas>},
    {"JSONLength", TypeId::kUInt64, Extract<Kind::kLength>},
    {"JSONExtractString", TypeId::kString, Extract<Kind::kString>},
    {"JSONExtractInt", TypeId::kInt64, Extract<Kind::kInt>},
    {"JSONExtractUInt", TypeId::kUInt64, Extract<Kind::kUInt>},
    {"JSONExtractFloat", TypeId::kFloat64, Extract<Kind::kFloat>},
    {"JSONExtractBool", TypeId::kUInt8, Extract<Kind::kBool>},
    {"JSONExtractRaw", TypeId::kString, Extract<Kind::kRaw>},
};

absl::StatusOr<TypeId> ResolveJson(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  for (size_t k = 1; k < args.size(); ++k) {
    if (!IsString(args[k].type) && !(IsInteger(args[k].type) && !IsDateOrDateTime(args[k].type))) {
      return IllegalArgumentType(name, k, args[k].type);
    }
  }
  for (const JsonFunction& f : kJsonFunctions) {
    if (f.name == name) return f.result;
  }
  return TypeId::kString;
}

// Runs a path function: keys stay Strings, indexes become Int64.
class JsonKernel : public ScalarKernel {
 public:
  JsonKernel(RowFn row, OperandCaster caster, TypeId result)
      : row_(row), caster_(std::move(caster)), result_(result) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    absl::StatusOr<std::vector<Operand>> ops = caster_.CastAll(args);
    if (!ops.ok()) return ops.status();
    ops->push_back(Operand{});
    auto out = std::make_shared<Column>(result_);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) row_(ops->data(), i, out.get());
    return ColumnPtr(std::move(out));
  }

 private:
  const RowFn row_;
  const OperandCaster caster_;
  const TypeId result_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileJson(std::string_view name,
                                                          const std::vector<ArgumentInfo>& args,
                                                          TypeId result) {
  std::vector<TypeId> targets;
  for (const ArgumentInfo& a : args) {
    targets.push_back(IsString(a.type) ? TypeId::kString : TypeId::kInt64);
  }
  absl::StatusOr<OperandCaster> caster = OperandCaster::Create(args, targets);
  if (!caster.ok()) return caster.status();
  for (const JsonFunction& f : kJsonFunctions) {
    if (f.name == name) return std::make_unique<JsonKernel>(f.row, std::move(*caster), result);
  }
  return IllegalArgumentType(name, 0, args[0].type);
}

}  // namespace

void RegisterJsonFunctions(FunctionTable& table) {
  for (const JsonFunction& f : kJsonFunctions) {
    table.Add({f.name, 1, kVariadic, false, ResolveJson, CompileJson});
  }
  AddSimpleFunctions(table, {
      {"isValidJSON", {A::kString}, 1, 1, false, TypeId::kUInt8, MakeRowKernel<IsValidJson>},
      {"simpleJSONHas", {A::kString}, 2, 2, false, TypeId::kUInt8,
       MakeRowKernel<Simple<Kind::kHas>>},
      {"simpleJSONExtractUInt", {A::kString}, 2, 2, false, TypeId::kUInt64,
       MakeRowKernel<Simple<Kind::kUInt>>},
      {"simpleJSONExtractInt", {A::kString}, 2, 2, false, TypeId::kInt64,
       MakeRowKernel<Simple<Kind::kInt>>},
      {"simpleJSONExtractFloat", {A::kString}, 2, 2, false, TypeId::kFloat64,
       MakeRowKernel<Simple<Kind::kFloat>>},
      {"simpleJSONExtractBool", {A::kString}, 2, 2, false, TypeId::kUInt8,
       MakeRowKernel<Simple<Kind::kBool>>},
      {"simpleJSONExtractRaw", {A::kString}, 2, 2, false, TypeId::kString,
       MakeRowKernel<Simple<Kind::kRaw>>},
      {"simpleJSONExtractString", {A::kString}, 2, 2, false, TypeId::kString,
       MakeRowKernel<Simple<Kind::kString>>},
  });
  table.AddAlias("visitParamHas", "simpleJSONHas", false);
  table.AddAlias("visitParamExtractUInt", "simpleJSONExtractUInt", false);
  table.AddAlias("visitParamExtractInt", "simpleJSONExtractInt", false);
  table.AddAlias("visitParamExtractFloat", "simpleJSONExtractFloat", false);
  table.AddAlias("visitParamExtractBool", "simpleJSONExtractBool", false);
  table.AddAlias("visitParamExtractRaw", "simpleJSONExtractRaw", false);
  table.AddAlias("visitParamExtractString", "simpleJSONExtractString", false);
}

}  // namespace granite::core

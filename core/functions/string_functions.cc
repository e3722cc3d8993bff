// String functions (byte-wise, like ClickHouse's non-UTF8 variants):
//   length -> UInt64; empty, notEmpty, startsWith, endsWith -> UInt8; lower, upper (ASCII);
//   substring(s, offset[, length]) (1-based; negative offset counts from the end; offset 0 gives
//   ''; negative length drops that many bytes from the end); concat(a, b, ...) (non-String
//   arguments are converted with toString); position(haystack, needle) -> UInt64 (1-based, 0 when
//   absent); replaceAll / replaceOne(s, from, to) with constant from and to.
#include <algorithm>
#include <memory>
#include <string>

#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/operand_caster.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

absl::Status RequireString(std::string_view name, const std::vector<ArgumentInfo>& args,
                           size_t index) {
  if (!IsString(args[index].type)) return IllegalArgumentType(name, index, args[index].type);
  return absl::OkStatus();
}

absl::StatusOr<TypeId> ResolveStringPredicate(std::string_view name,
                                              const std::vector<ArgumentInfo>& args) {
  // length(FixedString(N)) is N: the kernel reads the offsets of either layout.
  if (name == "length" && IsFixedString(args[0].type)) return TypeId::kUInt64;
  for (size_t i = 0; i < args.size(); ++i) RETURN_IF_ERROR(RequireString(name, args, i));
  if (name == "length" || name == "position") return TypeId::kUInt64;
  if (name == "lower" || name == "upper") return TypeId::kString;
  return TypeId::kUInt8;
}

// length, empty, notEmpty: read only the offsets.
class SizeKernel : public ScalarKernel {
 public:
  enum class Kind { kLength, kEmpty, kNotEmpty };
  explicit SizeKernel(Kind kind) : kind_(kind) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const uint64_t* offsets = args[0].column->Offsets().data();
    auto out = NewColumn(kind_ == Kind::kLength ? TypeId::kUInt64 : TypeId::kUInt8, rows);
    if (kind_ == Kind::kLength) {
      uint64_t* result = out->Data<uint64_t>();
      for (size_t i = 0; i < rows; ++i) result[i] = offsets[i] - (i == 0 ? 0 : offsets[i - 1]);
    } else {
      uint8_t* result = out->Data<uint8_t>();
      const bool want_empty = kind_ == Kind::kEmpty;
      for (size_t i = 0; i < rows; ++i) {
        result[i] = (offsets[i] == (i == 0 ? 0 : offsets[i - 1])) == want_empty;
      }
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const Kind kind_;
};

// lower, upper: maps the chars buffer byte by byte and keeps the offsets.
class CaseKernel : public ScalarKernel {
 public:
  explicit CaseKernel(bool upper) : upper_(upper) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& in = *args[0].column;
    auto out = std::make_shared<Column>(TypeId::kString);
    out->MutableOffsets() = in.Offsets();
    std::string& chars = out->MutableChars();
    chars.resize(in.Chars().size());
    const char* src = in.Chars().data();
    const unsigned char first = upper_ ? 'a' : 'A';
    const int shift = upper_ ? -32 : 32;
    for (size_t i = 0; i < chars.size(); ++i) {
      const unsigned char c = src[i];
      chars[i] = static_cast<char>(static_cast<unsigned char>(c - first) < 26 ? c + shift : c);
    }
    out->SetSize(in.size());
    return ColumnPtr(std::move(out));
  }

 private:
  const bool upper_;
};

// startsWith, endsWith, position: a haystack and a needle, either constant or column.
class SearchKernel : public ScalarKernel {
 public:
  enum class Kind { kStartsWith, kEndsWith, kPosition };
  explicit SearchKernel(Kind kind) : kind_(kind) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    if (kind_ == Kind::kPosition) {
      auto out = NewColumn(TypeId::kUInt64, rows);
      uint64_t* result = out->Data<uint64_t>();
      for (size_t i = 0; i < rows; ++i) {
        size_t at = StringOf(args[0], i).find(StringOf(args[1], i));
        result[i] = at == std::string_view::npos ? 0 : at + 1;
      }
      return ColumnPtr(std::move(out));
    }
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      std::string_view s = StringOf(args[0], i);
      std::string_view x = StringOf(args[1], i);
      result[i] = kind_ == Kind::kStartsWith ? s.starts_with(x) : s.ends_with(x);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const Kind kind_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileStringPredicate(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  if (name == "length") return std::make_unique<SizeKernel>(SizeKernel::Kind::kLength);
  if (name == "empty") return std::make_unique<SizeKernel>(SizeKernel::Kind::kEmpty);
  if (name == "notEmpty") return std::make_unique<SizeKernel>(SizeKernel::Kind::kNotEmpty);
  if (name == "lower" || name == "upper") return std::make_unique<CaseKernel>(name == "upper");
  if (name == "startsWith") return std::make_unique<SearchKernel>(SearchKernel::Kind::kStartsWith);
  if (name == "endsWith") return std::make_unique<SearchKernel>(SearchKernel::Kind::kEndsWith);
  return std::make_unique<SearchKernel>(SearchKernel::Kind::kPosition);
}

// substring(s, offset[, length]).
absl::StatusOr<TypeId> ResolveSubstring(std::string_view name,
                                        const std::vector<ArgumentInfo>& args) {
  RETURN_IF_ERROR(RequireString(name, args, 0));
  for (size_t i = 1; i < args.size(); ++i) {
    if (!IsInteger(args[i].type) || IsDateOrDateTime(args[i].type)) {
      return IllegalArgumentType(name, i, args[i].type);
    }
  }
  return TypeId::kString;
}

// Returns the byte range of substring(s, offset, length) in a string of n bytes.
std::string_view SubstringOf(std::string_view s, int64_t offset, bool has_length, int64_t length) {
  const __int128 n = s.size();
  __int128 start;
  if (offset > 0) {
    start = __int128{offset} - 1;
  } else if (offset < 0) {
    start = n + offset;
  } else {
    return {};
  }
  __int128 end = n;
  if (has_length) end = length >= 0 ? start + length : n + length;
  const __int128 begin = std::clamp<__int128>(start, 0, n);
  end = std::clamp<__int128>(end, begin, n);
  return s.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
}

class SubstringKernel : public ScalarKernel {
 public:
  explicit SubstringKernel(OperandCaster caster) : caster_(std::move(caster)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    const bool has_length = ops.size() == 3;
    const int64_t* offsets = ops[1].column->Data<int64_t>();
    const size_t offset_step = ops[1].is_constant ? 0 : 1;
    const int64_t* lengths = has_length ? ops[2].column->Data<int64_t>() : nullptr;
    const size_t length_step = has_length && !ops[2].is_constant ? 1 : 0;
    auto out = std::make_shared<Column>(TypeId::kString);
    out->Reserve(rows);
    for (size_t i = 0; i < rows; ++i) {
      out->AppendString(SubstringOf(StringOf(ops[0], i), offsets[i * offset_step], has_length,
                                    has_length ? lengths[i * length_step] : 0));
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileSubstring(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  std::vector<TypeId> targets(args.size(), TypeId::kInt64);
  targets[0] = TypeId::kString;
  ASSIGN_OR_RETURN(OperandCaster caster, OperandCaster::Create(args, targets));
  return std::make_unique<SubstringKernel>(std::move(caster));
}

// concat(a, b, ...): any types, converted to String.
absl::StatusOr<TypeId> ResolveConcat(std::string_view, const std::vector<ArgumentInfo>&) {
  return TypeId::kString;
}

class ConcatKernel : public ScalarKernel {
 public:
  explicit ConcatKernel(OperandCaster caster) : caster_(std::move(caster)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    ASSIGN_OR_RETURN(std::vector<Operand> ops, caster_.CastAll(args));
    auto out = std::make_shared<Column>(TypeId::kString);
    size_t bytes = 0;
    for (const Operand& op : ops) {
      bytes += op.is_constant ? op.column->Chars().size() * rows : op.column->Chars().size();
    }
    std::string& chars = out->MutableChars();
    chars.reserve(bytes);
    std::vector<uint64_t>& offsets = out->MutableOffsets();
    offsets.resize(rows);
    for (size_t i = 0; i < rows; ++i) {
      for (const Operand& op : ops) chars.append(StringOf(op, i));
      offsets[i] = chars.size();
    }
    out->SetSize(rows);
    return ColumnPtr(std::move(out));
  }

 private:
  const OperandCaster caster_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileConcat(std::string_view name,
                                                            const std::vector<ArgumentInfo>& args,
                                                            TypeId result_type) {
  ASSIGN_OR_RETURN(OperandCaster caster,
                   OperandCaster::Create(args, std::vector<TypeId>(args.size(), TypeId::kString)));
  return std::make_unique<ConcatKernel>(std::move(caster));
}

// replaceAll / replaceOne(s, from, to) with constant from and to.
absl::StatusOr<TypeId> ResolveReplace(std::string_view name,
                                      const std::vector<ArgumentInfo>& args) {
  for (size_t i = 0; i < 3; ++i) RETURN_IF_ERROR(RequireString(name, args, i));
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  if (!args[2].constant) return ArgumentMustBeConstant(name, 2);
  return TypeId::kString;
}

class ReplaceKernel : public ScalarKernel {
 public:
  ReplaceKernel(std::string from, std::string to, bool all)
      : from_(std::move(from)), to_(std::move(to)), all_(all) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    if (from_.empty()) return args[0].column;
    auto out = std::make_shared<Column>(TypeId::kString);
    std::string& chars = out->MutableChars();
    std::vector<uint64_t>& offsets = out->MutableOffsets();
    chars.reserve(args[0].column->Chars().size());
    offsets.resize(rows);
    for (size_t i = 0; i < rows; ++i) {
      std::string_view s = StringOf(args[0], i);
      size_t pos = 0;
      while (true) {
        size_t at = s.find(from_, pos);
        if (at == std::string_view::npos) break;
        chars.append(s.substr(pos, at - pos));
        chars.append(to_);
        pos = at + from_.size();
        if (!all_) break;
      }
      chars.append(s.substr(pos));
      offsets[i] = chars.size();
    }
    out->SetSize(rows);
    return ColumnPtr(std::move(out));
  }

 private:
  const std::string from_;
  const std::string to_;
  const bool all_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileReplace(std::string_view name,
                                                             const std::vector<ArgumentInfo>& args,
                                                             TypeId result_type) {
  return std::make_unique<ReplaceKernel>(ValueToText(*args[1].constant),
                                         ValueToText(*args[2].constant), name == "replaceAll");
}

}  // namespace

void RegisterStringFunctions(FunctionTable& table) {
  table.Add({"length", 1, 1, true, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"empty", 1, 1, false, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"notEmpty", 1, 1, false, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"lower", 1, 1, true, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"upper", 1, 1, true, ResolveStringPredicate, CompileStringPredicate});
  table.AddAlias("lcase", "lower", true);
  table.AddAlias("ucase", "upper", true);
  table.Add({"startsWith", 2, 2, false, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"endsWith", 2, 2, false, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"position", 2, 2, true, ResolveStringPredicate, CompileStringPredicate});
  table.Add({"substring", 2, 3, true, ResolveSubstring, CompileSubstring});
  table.AddAlias("substr", "substring", true);
  table.AddAlias("mid", "substring", true);
  table.Add({"concat", 1, kVariadic, true, ResolveConcat, CompileConcat});
  table.Add({"replaceAll", 3, 3, false, ResolveReplace, CompileReplace});
  table.AddAlias("replace", "replaceAll", true);
  table.Add({"replaceOne", 3, 3, false, ResolveReplace, CompileReplace});
}

}  // namespace granite::core

#include "storage/key_expression.h"

#include <cctype>
#include <set>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;
using core::TypeId;
// Functions that never decrease as their (first) argument grows.
const std::set<std::string, std::less<>>& MonotonicFunctions() {
  static const auto* names = new std::set<std::string, std::less<>>{
      "toYear",          "toYYYYMM",          "toYYYYMMDD",     "toMonday",
      "toStartOfMonth",  "toStartOfQuarter",  "toStartOfYear",  "toStartOfDay",
      "toDate",          "toDateTime",        "toStartOfHour",  "toStartOfMinute",
      "toStartOfFiveMinutes", "toStartOfFifteenMinutes"};
  return *names;
}

// Parses the display form of a key expression into a plan expression over the schema's columns.
// Grammar: expr := literal | name | name '(' [expr {',' expr}] ')'.
class KeyParser {
 public:
  KeyParser(std::string_view text, const TableSchema& schema) : text_(text), schema_(schema) {}

  absl::StatusOr<core::plan::Expr> ParseAll() {
    ASSIGN_OR_RETURN(core::plan::Expr expr, ParseExpr());
    SkipSpaces();
    if (at_ != text_.size()) return Unexpected();
    return expr;
  }

  // Columns read and whether the expression is monotonic in its one column.
  std::set<int> columns;
  bool monotonic = true;

 private:
  void SkipSpaces() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  absl::Status Unexpected() const {
    std::string what = at_ < text_.size() ? absl::StrCat("'", std::string(1, text_[at_]), "'")
                                          : std::string("end");
    return Error(ErrorCode::kSyntaxError,
                 absl::StrCat("Cannot parse key expression \"", std::string(text_),
                              "\": unexpected ", what, " at position ", at_ + 1));
  }

  absl::StatusOr<core::plan::Expr> ParseExpr() {
    SkipSpaces();
    if (at_ >= text_.size()) return Unexpected();
    char c = text_[at_];
    if (c == '\'') return ParseString();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') return ParseNumber();
    size_t begin = at_;
    while (at_ < text_.size() && text_[at_] != '(' && text_[at_] != ')' && text_[at_] != ',' &&
           !std::isspace(static_cast<unsigned char>(text_[at_]))) {
      ++at_;
    }
    if (at_ == begin) return Unexpected();
    std::string name(text_.substr(begin, at_ - begin));
    SkipSpaces();
    if (at_ < text_.size() && text_[at_] == '(') return ParseCall(name);
    int index = schema_.ColumnIndex(name);
    if (index < 0) {
      return Error(ErrorCode::kUnknownIdentifier,
                   absl::StrCat("Missing column ", name, " in key expression \"",
                                std::string(text_), "\" of table ", schema_.name));
    }
    columns.insert(index);
    return core::Col(static_cast<uint32_t>(index), schema_.columns[index].type);
  }

  absl::StatusOr<core::plan::Expr> ParseCall(const std::string& name) {
    ++at_;  // '('
    std::vector<core::plan::Expr> args;
    SkipSpaces();
    if (at_ < text_.size() && text_[at_] == ')') {
      ++at_;
    } else {
      while (true) {
        ASSIGN_OR_RETURN(core::plan::Expr arg, ParseExpr());
        args.push_back(std::move(arg));
        SkipSpaces();
        if (at_ < text_.size() && text_[at_] == ',') {
          ++at_;
          continue;
        }
        if (at_ < text_.size() && text_[at_] == ')') {
          ++at_;
          break;
        }
        return Unexpected();
      }
    }
    bool positive_divisor = name == "intDiv" && args.size() == 2 &&
                            args[1].is_literal() &&
                            std::holds_alternative<uint64_t>(args[1].literal) &&
                            std::get<uint64_t>(args[1].literal) > 0;
    bool unary = args.size() == 1 && MonotonicFunctions().count(name);
    if (!unary && !positive_divisor) monotonic = false;
    if (!args.empty() && !args[0].is_column() &&
        !args[0].is_call()) {
      monotonic = false;
    }
    return core::TypedCall(name, std::move(args));
  }

  absl::StatusOr<core::plan::Expr> ParseNumber() {
    size_t begin = at_;
    if (text_[at_] == '-') ++at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    std::string digits(text_.substr(begin, at_ - begin));
    if (digits == "-") return Unexpected();
    if (digits[0] == '-') {
      int64_t v = 0;
      if (!core::ParseIntegerText(digits, &v)) return Unexpected();
      return core::Lit(core::Value(v));
    }
    uint64_t v = 0;
    if (!core::ParseIntegerText(digits, &v)) return Unexpected();
    return core::Lit(core::Value(v));
  }

  absl::StatusOr<core::plan::Expr> ParseString() {
    ++at_;  // opening quote
    std::string value;
    while (at_ < text_.size() && text_[at_] != '\'') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
      value.push_back(text_[at_++]);
    }
    if (at_ >= text_.size()) return Unexpected();
    ++at_;  // closing quote
    return core::Lit(core::Value(std::move(value)));
  }

  std::string_view text_;
  const TableSchema& schema_;
  size_t at_ = 0;
};

// Rewrites references to column `from` as column 0.
void Rebase(core::plan::Expr* expr, uint32_t from) {
  if (expr->is_column() && expr->column == from) expr->column = 0;
  for (core::plan::Expr& arg : expr->args) Rebase(&arg, from);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const KeyExpression>> KeyExpression::Parse(
    std::string_view text, const TableSchema& schema) {
  KeyParser parser(text, schema);
  ASSIGN_OR_RETURN(core::plan::Expr expr, parser.ParseAll());
  std::shared_ptr<KeyExpression> key(new KeyExpression());
  key->text_ = std::string(text);
  key->type_ = expr.type;
  if (expr.is_column()) key->plain_column_ = static_cast<int>(expr.column);
  ASSIGN_OR_RETURN(std::unique_ptr<core::Expression> over_table, core::Expression::Compile(expr));
  key->over_table_ = std::move(over_table);
  if (parser.columns.size() == 1) {
    key->source_column_ = *parser.columns.begin();
    key->source_type_ = schema.columns[key->source_column_].type;
    // Functions of strings (toDate('...')) parse text, which does not sort like the values.
    key->monotonic_ = parser.monotonic &&
                      (key->plain_column_ >= 0 || !core::HasStringLayout(key->source_type_));
    core::plan::Expr rebased = expr;
    Rebase(&rebased, static_cast<uint32_t>(key->source_column_));
    ASSIGN_OR_RETURN(std::unique_ptr<core::Expression> over_source,
                     core::Expression::Compile(rebased));
    key->over_source_ = std::move(over_source);
  }
  return key;
}

absl::StatusOr<core::ColumnPtr> KeyExpression::Evaluate(const core::Block& table_block) const {
  return over_table_->Evaluate(table_block);
}

absl::StatusOr<core::Value> KeyExpression::EvaluateAt(const core::Value& value) const {
  if (over_source_ == nullptr) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Key expression ", text_, " does not read exactly one column"));
  }
  auto column = std::make_shared<core::Column>(source_type_);
  if (core::IsDateTime64(source_type_) && std::holds_alternative<int64_t>(value)) {
    column->Append(std::get<int64_t>(value));  // bounds hold ticks, not a literal's seconds
  } else {
    RETURN_IF_ERROR(core::AppendValue(value, source_type_, column.get()));
  }
  core::Block block;
  block.rows_without_columns = 1;
  block.columns.push_back(std::move(column));
  ASSIGN_OR_RETURN(core::ColumnPtr result, over_source_->Evaluate(block));
  return ValueAt(*result, 0);
}

core::Value ValueAt(const core::Column& column, size_t row) {
  if (core::HasStringLayout(column.type())) return std::string(column.StringAt(row));
  // A UUID does not fit a 64-bit Value: its 16 bytes, which compare equal exactly when it does.
  if (core::IsUuid(column.type())) return std::string(column.RawData() + row * 16, 16);
  return core::DispatchFixed(column.type(), [&](auto tag) -> core::Value {
    using T = typename decltype(tag)::Type;
    T v = column.Get<T>(row);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<double>(v);
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<int64_t>(v);
    } else {
      return static_cast<uint64_t>(v);
    }
  });
}

}  // namespace granite::storage

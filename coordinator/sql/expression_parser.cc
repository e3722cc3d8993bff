#include "coordinator/sql/expression_parser.h"

#include "coordinator/sql/parser.h"

#include <charconv>
#include <cstdint>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator::sql {
namespace {

// Adds to a depth counter for the lifetime of the guard.
class DepthGuard {
 public:
  explicit DepthGuard(int* counter, int initial = 1) : counter_(*counter), added_(initial) {
    counter_ += initial;
  }
  ~DepthGuard() { counter_ -= added_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

  // Counts one more link of an operator chain (a + b + c), which deepens the tree by one.
  void Add() {
    ++counter_;
    ++added_;
  }

 private:
  int& counter_;
  int added_;
};

ExprPtr MakeFunction(std::string name, std::vector<ExprPtr> args, size_t position) {
  auto expr = std::make_shared<Expr>();
  expr->kind = ExprKind::kFunction;
  expr->name = std::move(name);
  expr->args = std::move(args);
  expr->position = position;
  return expr;
}

ExprPtr MakeLiteral(core::Value value, size_t position) {
  auto expr = std::make_shared<Expr>();
  expr->kind = ExprKind::kLiteral;
  expr->value = std::move(value);
  expr->position = position;
  return expr;
}

ExprPtr MakeNull(size_t position) {
  ExprPtr expr = MakeLiteral(core::Value(uint64_t{0}), position);
  expr->is_null = true;
  return expr;
}

ExprPtr MakeBinary(const char* name, ExprPtr left, ExprPtr right) {
  const size_t position = left->position;
  return MakeFunction(name, {std::move(left), std::move(right)}, position);
}

// The interval units of INTERVAL n UNIT, singular, as ClickHouse's toInterval<Unit> names them.
constexpr std::string_view kIntervalUnits[] = {"Second", "Minute", "Hour",    "Day",
                                               "Week",   "Month",  "Quarter", "Year"};

// Returns "Day" for DAY / DAYS / day (any case), or "" if `word` is no interval unit.
std::string IntervalUnit(std::string_view word) {
  std::string upper(word);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.size() > 1 && upper.back() == 'S') upper.pop_back();
  for (std::string_view unit : kIntervalUnits) {
    std::string unit_upper(unit);
    for (char& c : unit_upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == unit_upper) return std::string(unit);
  }
  return "";
}

// date + INTERVAL n UNIT -> addUnits(date, n); date - INTERVAL ... -> subtractUnits(date, n).
ExprPtr MakeAdditive(const char* name, ExprPtr left, ExprPtr right) {
  const std::string_view prefix = "toInterval";
  const bool additive = std::string_view(name) == "plus" || std::string_view(name) == "minus";
  if (additive && right->kind == ExprKind::kFunction && right->args.size() == 1 &&
      right->name.rfind(prefix, 0) == 0) {
    std::string unit = right->name.substr(prefix.size());
    std::string function = (std::string_view(name) == "plus" ? "add" : "subtract") + unit + "s";
    const size_t position = left->position;
    return MakeFunction(std::move(function), {std::move(left), right->args[0]}, position);
  }
  return MakeBinary(name, std::move(left), std::move(right));
}

// Maps a comparison symbol to its ClickHouse function; nullptr if `token` is not one.
const char* ComparisonFunction(const Token& token) {
  if (token.kind != TokenKind::kPunctuation) return nullptr;
  if (token.text == "=" || token.text == "==") return "equals";
  if (token.text == "!=" || token.text == "<>") return "notEquals";
  if (token.text == "<") return "less";
  if (token.text == ">") return "greater";
  if (token.text == "<=") return "lessOrEquals";
  if (token.text == ">=") return "greaterOrEquals";
  return nullptr;
}

// Maps the unit of extract(UNIT FROM x) to its ClickHouse function; nullptr if unknown.
const char* ExtractFunction(const Token& unit) {
  static constexpr std::pair<std::string_view, const char*> kUnits[] = {
      {"SECOND", "toSecond"}, {"MINUTE", "toMinute"}, {"HOUR", "toHour"},
      {"DAY", "toDayOfMonth"}, {"MONTH", "toMonth"},   {"QUARTER", "toQuarter"},
      {"YEAR", "toYear"}};
  for (const auto& [word, function] : kUnits) {
    if (unit.Is(word)) return function;
  }
  return nullptr;
}

}  // namespace

// Nesting beyond the parser's limits is refused before the parser's recursion (or a later pass
// over the tree) could overflow the stack, with ClickHouse's codes and the position a syntax error
// names: TOO_DEEP_RECURSION for nested parentheses and calls (its max_parser_depth),
// TOO_DEEP_AST for a tree made deep by operator chains (its max_ast_depth).
absl::Status ExpressionParser::CheckDepth() {
  if (recursion_ > kMaxRecursion) {
    absl::Status error =
        tokens_.Error(absl::StrCat("Maximum parse depth (", kMaxRecursion, ") exceeded"));
    return core::Error(core::ErrorCode::kTooDeepRecursion, std::string(error.message()));
  }
  if (tree_depth_ > kMaxTreeDepth) {
    absl::Status error =
        tokens_.Error(absl::StrCat("Maximum expression depth (", kMaxTreeDepth, ") exceeded"));
    return core::Error(core::ErrorCode::kTooDeepAst, std::string(error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExprPtr> ExpressionParser::Parse() {
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  ASSIGN_OR_RETURN(ExprPtr expr, ParseOr());
  if (!tokens_.Peek().IsSymbol("->")) return expr;
  return ParseLambda(std::move(expr));
}

// A lambda binds loosest of all, as in ClickHouse: `x -> x > 1 AND x < 5` is one body. Its
// parameters are what was parsed before the arrow: a bare name, or a parenthesized list of
// them (already a tuple call). Anything else before `->` is a syntax error at the arrow.
absl::StatusOr<ExprPtr> ExpressionParser::ParseLambda(ExprPtr parameters) {
  auto is_name = [](const Expr& e) {
    return e.kind == ExprKind::kIdentifier && e.qualifier.empty() && e.alias.empty();
  };
  std::vector<ExprPtr> names;
  if (is_name(*parameters)) {
    names.push_back(parameters);
  } else if (parameters->kind == ExprKind::kFunction && parameters->name == "tuple" &&
             parameters->alias.empty() && !parameters->args.empty()) {
    for (const ExprPtr& arg : parameters->args) {
      if (!is_name(*arg)) return tokens_.Error("Expected a lambda parameter name before ->");
    }
    names = parameters->args;
  } else {
    return tokens_.Error("Expected a lambda parameter name before ->");
  }
  tokens_.Take();  // ->
  ASSIGN_OR_RETURN(ExprPtr body, Parse());
  const size_t position = parameters->position;
  return MakeFunction("lambda", {MakeFunction("tuple", std::move(names), position), std::move(body)},
                      position);
}

absl::StatusOr<std::vector<ExprPtr>> ExpressionParser::ParseList(bool aliases) {
  std::vector<ExprPtr> list;
  do {
    ASSIGN_OR_RETURN(ExprPtr expr, Parse());
    // `f(x AS y)`, `[x AS y]`, `(x AS y)`: y names x everywhere in the query, as in ClickHouse.
    const Token name = tokens_.Peek(1);
    if (aliases && tokens_.Peek().Is("AS") &&
        (name.kind == TokenKind::kBareWord || name.kind == TokenKind::kQuotedIdentifier)) {
      tokens_.Take();
      tokens_.Take();
      auto named = std::make_shared<Expr>(*expr);
      named->alias = name.kind == TokenKind::kBareWord ? std::string(name.text) : Unquote(name.text);
      expr = std::move(named);
    }
    list.push_back(std::move(expr));
  } while (tokens_.TakeSymbol(","));
  return list;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseOr() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseAnd());
  if (!tokens_.Peek().Is("OR")) return first;
  std::vector<ExprPtr> args{first};
  while (tokens_.TakeKeyword("OR")) {
    ASSIGN_OR_RETURN(ExprPtr next, ParseAnd());
    args.push_back(std::move(next));
  }
  return MakeFunction("or", std::move(args), first->position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseAnd() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseNot());
  if (!tokens_.Peek().Is("AND")) return first;
  std::vector<ExprPtr> args{first};
  while (tokens_.TakeKeyword("AND")) {
    ASSIGN_OR_RETURN(ExprPtr next, ParseNot());
    args.push_back(std::move(next));
  }
  return MakeFunction("and", std::move(args), first->position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseNot() {
  if (!tokens_.Peek().Is("NOT")) return ParseComparison();
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  const Token not_token = tokens_.Take();
  ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
  return MakeFunction("not", {std::move(operand)}, not_token.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseComparison() {
  ASSIGN_OR_RETURN(ExprPtr left, ParseAdditive());
  DepthGuard links(&tree_depth_, 0);
  while (true) {
    links.Add();
    RETURN_IF_ERROR(CheckDepth());
    const Token token = tokens_.Peek();
    if (const char* function = ComparisonFunction(token)) {
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      left = MakeBinary(function, std::move(left), std::move(right));
      continue;
    }
    bool negated = false;
    if (token.Is("GLOBAL") && (tokens_.Peek(1).Is("IN") || tokens_.Peek(1).Is("NOT"))) {
      tokens_.Take();  // GLOBAL IN: a subquery's set is always computed once on the coordinator
      if (!tokens_.Peek().Is("NOT")) {
        tokens_.Take();
        ASSIGN_OR_RETURN(ExprPtr list, ParseInList());
        left = MakeBinary("in", std::move(left), std::move(list));
        continue;
      }
    }
    if (tokens_.Peek().Is("NOT")) {
      const Token next = tokens_.Peek(1);
      if (!next.Is("LIKE") && !next.Is("ILIKE") && !next.Is("IN") && !next.Is("BETWEEN")) break;
      tokens_.Take();
      negated = true;
    }
    const Token op = tokens_.Peek();
    if (op.Is("LIKE") || op.Is("ILIKE")) {
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr pattern, ParseAdditive());
      const char* function = op.Is("LIKE") ? (negated ? "notLike" : "like")
                                           : (negated ? "notILike" : "ilike");
      left = MakeBinary(function, std::move(left), std::move(pattern));
    } else if (op.Is("IN")) {
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr list, ParseInList());
      left = MakeBinary(negated ? "notIn" : "in", std::move(left), std::move(list));
    } else if (op.Is("BETWEEN")) {
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr low, ParseAdditive());
      RETURN_IF_ERROR(tokens_.ExpectKeyword("AND"));
      ASSIGN_OR_RETURN(ExprPtr high, ParseAdditive());
      const size_t position = left->position;
      if (negated) {
        left = MakeFunction(
            "or", {MakeBinary("less", left, std::move(low)), MakeBinary("greater", left, high)},
            position);
      } else {
        left = MakeFunction("and",
                            {MakeBinary("greaterOrEquals", left, std::move(low)),
                             MakeBinary("lessOrEquals", left, std::move(high))},
                            position);
      }
    } else if (op.Is("IS")) {
      tokens_.Take();
      const bool is_not = tokens_.TakeKeyword("NOT");
      RETURN_IF_ERROR(tokens_.ExpectKeyword("NULL"));
      const size_t position = left->position;
      left = MakeFunction(is_not ? "isNotNull" : "isNull", {std::move(left)}, position);
    } else {
      break;
    }
  }
  return left;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseAdditive() {
  ASSIGN_OR_RETURN(ExprPtr left, ParseMultiplicative());
  DepthGuard links(&tree_depth_, 0);
  while (true) {
    const Token token = tokens_.Peek();
    const char* function = token.IsSymbol("+")    ? "plus"
                           : token.IsSymbol("-")  ? "minus"
                           : token.IsSymbol("||") ? "concat"
                                                  : nullptr;
    if (function == nullptr) break;
    links.Add();
    RETURN_IF_ERROR(CheckDepth());
    tokens_.Take();
    ASSIGN_OR_RETURN(ExprPtr right, ParseMultiplicative());
    left = MakeAdditive(function, std::move(left), std::move(right));
  }
  return left;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseMultiplicative() {
  ASSIGN_OR_RETURN(ExprPtr left, ParseUnary());
  DepthGuard links(&tree_depth_, 0);
  while (true) {
    const Token token = tokens_.Peek();
    const char* function = token.IsSymbol("*")   ? "multiply"
                           : token.IsSymbol("/") ? "divide"
                           : token.IsSymbol("%") ? "modulo"
                           : token.Is("DIV")     ? "intDiv"
                           : token.Is("MOD")     ? "modulo"
                                                 : nullptr;
    if (function == nullptr) break;
    links.Add();
    RETURN_IF_ERROR(CheckDepth());
    tokens_.Take();
    ASSIGN_OR_RETURN(ExprPtr right, ParseUnary());
    left = MakeBinary(function, std::move(left), std::move(right));
  }
  return left;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseUnary() {
  if (!tokens_.Peek().IsSymbol("-")) {
    ASSIGN_OR_RETURN(ExprPtr primary, ParsePrimary());
    return ParsePostfix(std::move(primary));
  }
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  const Token minus = tokens_.Take();
  if (tokens_.Peek().kind == TokenKind::kNumber) {
    ASSIGN_OR_RETURN(ExprPtr literal, ParseNumber(tokens_.Take(), true, minus.position));
    return ParsePostfix(std::move(literal));
  }
  ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
  return MakeFunction("negate", {std::move(operand)}, minus.position);
}

namespace {

// True for the `.N` of `t.N` (tupleElement(t, N)), which the lexer reads as a number ".N".
bool IsTupleIndex(const Token& token) {
  if (token.kind != TokenKind::kNumber || token.text.size() < 2 || token.text[0] != '.') {
    return false;
  }
  for (char c : token.text.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<ExprPtr> ExpressionParser::ParsePostfix(ExprPtr operand) {
  DepthGuard links(&tree_depth_, 0);
  while (tokens_.Peek().IsSymbol("::") || tokens_.Peek().IsSymbol("[") ||
         IsTupleIndex(tokens_.Peek())) {
    links.Add();
    RETURN_IF_ERROR(CheckDepth());
    if (IsTupleIndex(tokens_.Peek())) {  // t.2 is tupleElement(t, 2)
      const Token index = tokens_.Take();
      uint64_t n = 0;
      for (char c : index.text.substr(1)) {
        n = n > UINT64_MAX / 10 - 1 ? UINT64_MAX : n * 10 + static_cast<uint64_t>(c - '0');
      }
      const size_t position = operand->position;
      operand = MakeFunction(
          "tupleElement", {std::move(operand), MakeLiteral(core::Value(n), index.position + 1)},
          position);
      continue;
    }
    if (tokens_.Peek().IsSymbol("[")) {  // arr[i] is arrayElement(arr, i)
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr index, Parse());
      RETURN_IF_ERROR(tokens_.ExpectSymbol("]"));
      const size_t position = operand->position;
      operand = MakeFunction("arrayElement", {std::move(operand), std::move(index)}, position);
      continue;
    }
    tokens_.Take();
    const size_t type_position = tokens_.Peek().position;
    ASSIGN_OR_RETURN(std::string type, ParseTypeText());
    const size_t position = operand->position;
    operand = MakeFunction(
        "CAST", {std::move(operand), MakeLiteral(core::Value(std::move(type)), type_position)},
        position);
  }
  return operand;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseQueryParameter() {
  const Token open = tokens_.Take();  // {
  const Token name = tokens_.Peek();
  if (name.kind != TokenKind::kBareWord && name.kind != TokenKind::kQuotedIdentifier) {
    return tokens_.Error("Expected query parameter name");
  }
  tokens_.Take();
  RETURN_IF_ERROR(tokens_.ExpectSymbol(":"));
  ASSIGN_OR_RETURN(std::string type, ParseTypeText());
  RETURN_IF_ERROR(tokens_.ExpectSymbol("}"));
  std::string parameter =
      name.kind == TokenKind::kBareWord ? std::string(name.text) : Unquote(name.text);
  return MakeFunction(std::string(kQueryParameterFunction),
                      {MakeLiteral(core::Value(std::move(parameter)), name.position),
                       MakeLiteral(core::Value(std::move(type)), name.position)},
                      open.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParsePrimary() {
  const Token token = tokens_.Peek();
  switch (token.kind) {
    case TokenKind::kNumber:
      tokens_.Take();
      return ParseNumber(token, false, token.position);
    case TokenKind::kString:
      tokens_.Take();
      return MakeLiteral(core::Value(Unquote(token.text)), token.position);
    case TokenKind::kQuotedIdentifier:
      return ParseIdentifier();
    case TokenKind::kPunctuation:
      if (token.IsSymbol("(") && StartsSelect(1)) return ParseSubquery();
      if (token.IsSymbol("(")) return ParseParenthesized();
      if (token.IsSymbol("{")) {
        // {name:Type} is a query parameter; {k: v, ...} and {} a map literal.
        const Token name = tokens_.Peek(1);
        const bool parameter =
            (name.kind == TokenKind::kBareWord || name.kind == TokenKind::kQuotedIdentifier) &&
            tokens_.Peek(2).IsSymbol(":");
        return parameter ? ParseQueryParameter() : ParseMapLiteral();
      }
      if (token.IsSymbol("[")) return ParseArrayLiteral();
      break;
    case TokenKind::kBareWord: {
      const Token next = tokens_.Peek(1);
      if (token.Is("CASE")) return ParseCase();
      if (token.Is("EXISTS") && next.IsSymbol("(") && StartsSelect(2)) {
        tokens_.Take();
        ASSIGN_OR_RETURN(ExprPtr subquery, ParseSubquery());
        return MakeFunction("exists", {std::move(subquery)}, token.position);
      }
      if (next.IsSymbol("(")) {
        if (token.Is("CAST")) return ParseCast();
        if (token.Is("SUBSTRING") || token.Is("SUBSTR")) return ParseSubstring();
        if (token.Is("EXTRACT")) return ParseExtract();
        return ParseFunctionCall();
      }
      if (token.Is("NULL")) {
        tokens_.Take();
        return MakeNull(token.position);
      }
      if (token.Is("TRUE") || token.Is("FALSE")) {
        tokens_.Take();
        ExprPtr literal = MakeLiteral(core::Value(uint64_t{token.Is("TRUE") ? 1u : 0u}), token.position);
        literal->literal_type = core::TypeId::kBool;  // ClickHouse types true / false as Bool
        return literal;
      }
      if (token.Is("INF") || token.Is("NAN")) {
        tokens_.Take();
        const double value = token.Is("INF") ? std::numeric_limits<double>::infinity()
                                             : std::numeric_limits<double>::quiet_NaN();
        return MakeLiteral(core::Value(value), token.position);
      }
      if (token.Is("INTERVAL")) return ParseInterval();
      if ((token.Is("DATE") || token.Is("TIMESTAMP")) && next.kind == TokenKind::kString) {
        tokens_.Take();
        tokens_.Take();
        return MakeFunction(token.Is("DATE") ? "toDate" : "toDateTime",
                            {MakeLiteral(core::Value(Unquote(next.text)), next.position)},
                            token.position);
      }
      if (IsReservedWord(token.text)) break;
      return ParseIdentifier();
    }
    default:
      break;
  }
  return tokens_.Error("Expected expression");
}

// [a, b, ...] is array(a, b, ...), as in ClickHouse; [] is array().
absl::StatusOr<ExprPtr> ExpressionParser::ParseArrayLiteral() {
  const Token open = tokens_.Take();  // [
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  ExprPtr call = MakeFunction("array", {}, open.position);
  if (tokens_.TakeSymbol("]")) return call;
  ASSIGN_OR_RETURN(call->args, ParseList(/*aliases=*/true));
  RETURN_IF_ERROR(tokens_.ExpectSymbol("]"));
  return call;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseMapLiteral() {
  const Token open = tokens_.Take();  // {
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  ExprPtr call = MakeFunction("map", {}, open.position);
  if (tokens_.TakeSymbol("}")) return call;
  while (true) {
    ASSIGN_OR_RETURN(ExprPtr key, Parse());
    RETURN_IF_ERROR(tokens_.ExpectSymbol(":"));
    ASSIGN_OR_RETURN(ExprPtr value, Parse());
    call->args.push_back(std::move(key));
    call->args.push_back(std::move(value));
    if (tokens_.TakeSymbol("}")) return call;
    RETURN_IF_ERROR(tokens_.ExpectSymbol(","));
  }
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseSubstring() {
  const Token name = tokens_.Take();
  tokens_.Take();  // '('
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  ASSIGN_OR_RETURN(ExprPtr text, Parse());
  std::vector<ExprPtr> args = {std::move(text)};
  if (tokens_.TakeSymbol(",")) {
    ASSIGN_OR_RETURN(std::vector<ExprPtr> rest, ParseList());
    for (ExprPtr& arg : rest) args.push_back(std::move(arg));
  } else if (tokens_.TakeKeyword("FROM")) {
    // SQL's substring(s FROM start [FOR length]).
    ASSIGN_OR_RETURN(ExprPtr start, Parse());
    args.push_back(std::move(start));
    if (tokens_.TakeKeyword("FOR")) {
      ASSIGN_OR_RETURN(ExprPtr length, Parse());
      args.push_back(std::move(length));
    }
  }
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  return MakeFunction(std::string(name.text), std::move(args), name.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseInterval() {
  const Token interval = tokens_.Take();
  const Token value = tokens_.Peek();
  ExprPtr amount;
  std::string unit;
  if (value.kind == TokenKind::kString) {
    // INTERVAL '90' DAY, or INTERVAL '90 day' with the unit inside the string.
    tokens_.Take();
    std::string text = Unquote(value.text);
    size_t space = text.find(' ');
    std::string number = space == std::string::npos ? text : text.substr(0, space);
    if (space != std::string::npos) unit = IntervalUnit(text.substr(space + 1));
    char* end = nullptr;
    long long parsed = std::strtoll(number.c_str(), &end, 10);
    if (number.empty() || *end != '\0' || (space != std::string::npos && unit.empty())) {
      return tokens_.ErrorAt(value, "Expected an interval such as INTERVAL '90' DAY");
    }
    amount = parsed < 0 ? MakeLiteral(core::Value(int64_t{parsed}), value.position)
                        : MakeLiteral(core::Value(uint64_t(parsed)), value.position);
  } else {
    ASSIGN_OR_RETURN(amount, ParseUnary());
  }
  if (unit.empty()) {
    const Token word = tokens_.Peek();
    if (word.kind == TokenKind::kBareWord) unit = IntervalUnit(word.text);
    if (unit.empty()) {
      return tokens_.Error("Expected one of: SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR");
    }
    tokens_.Take();
  }
  return MakeFunction("toInterval" + unit, {std::move(amount)}, interval.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseIdentifier() {
  Token part = tokens_.Take();
  auto expr = std::make_shared<Expr>();
  expr->kind = ExprKind::kIdentifier;
  expr->position = part.position;
  auto text = [](const Token& token) {
    return token.kind == TokenKind::kQuotedIdentifier ? Unquote(token.text)
                                                      : std::string(token.text);
  };
  expr->name = text(part);
  while (tokens_.Peek().IsSymbol(".")) {
    const Token next = tokens_.Peek(1);
    if (next.kind != TokenKind::kBareWord && next.kind != TokenKind::kQuotedIdentifier) {
      tokens_.Take();
      return tokens_.Error("Expected identifier");
    }
    tokens_.Take();
    tokens_.Take();
    if (!expr->qualifier.empty()) expr->qualifier.push_back('.');
    expr->qualifier += expr->name;
    expr->name = text(next);
  }
  return expr;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseParenthesized() {
  const Token open = tokens_.Take();
  if (tokens_.TakeSymbol(")")) return MakeFunction("tuple", {}, open.position);
  ASSIGN_OR_RETURN(std::vector<ExprPtr> items, ParseList(/*aliases=*/true));
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  if (items.size() == 1) return items.front();
  return MakeFunction("tuple", std::move(items), open.position);
}

bool ExpressionParser::StartsSelect(size_t offset) {
  if (!subquery_parser_) return false;
  // Skips extra opening parentheses: IN ((SELECT ...)).
  while (offset + 1 < TokenStream::kMaxLookahead && tokens_.Peek(offset).IsSymbol("(")) ++offset;
  const Token token = tokens_.Peek(offset);
  return token.Is("SELECT") || token.Is("WITH");
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseSubquery() {
  DepthGuard recursion(&recursion_);
  DepthGuard tree(&tree_depth_);
  RETURN_IF_ERROR(CheckDepth());
  const Token open = tokens_.Take();  // '('
  ExprPtr node;
  if (tokens_.Peek().IsSymbol("(")) {
    ASSIGN_OR_RETURN(node, ParseSubquery());
  } else {
    node = std::make_shared<Expr>();
    node->kind = ExprKind::kSubquery;
    node->position = open.position;
    ASSIGN_OR_RETURN(node->subquery, subquery_parser_());
  }
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  return node;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseInList() {
  const Token open = tokens_.Peek();
  if (open.IsSymbol("(") && StartsSelect(1)) return ParseSubquery();
  RETURN_IF_ERROR(tokens_.ExpectSymbol("("));
  std::vector<ExprPtr> items;
  if (!tokens_.Peek().IsSymbol(")")) {
    ASSIGN_OR_RETURN(items, ParseList());
  }
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  return MakeFunction("tuple", std::move(items), open.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseFunctionCall() {
  const Token name = tokens_.Take();
  tokens_.Take();  // '('
  ExprPtr call = MakeFunction(std::string(name.text), {}, name.position);
  RETURN_IF_ERROR(ParseCallArguments(call.get()));
  if (call->name == "lambda") RETURN_IF_ERROR(CheckLambdaCall(name, call.get()));
  if (tokens_.Peek().IsSymbol("(")) {
    ASSIGN_OR_RETURN(call, ParseParametricCall(std::move(call)));
  } else {
    UnitArgumentAsString(call.get());
  }
  RETURN_IF_ERROR(ParseOver(call.get()));
  return call;
}

// `lambda(tuple(x, y), body)` written out is the form `(x, y) -> body` parses to, and every later
// step relies on that shape: two arguments, the first a tuple of plain names (a bare name is
// taken as a tuple of one, as ClickHouse does).
absl::Status ExpressionParser::CheckLambdaCall(const Token& name, Expr* call) const {
  auto is_name = [](const Expr& e) {
    return e.kind == ExprKind::kIdentifier && e.qualifier.empty() && e.alias.empty();
  };
  if (call->args.size() != 2 || call->distinct) {
    return tokens_.ErrorAt(name, "lambda takes two arguments: a tuple of parameter names and the body");
  }
  ExprPtr& parameters = call->args[0];
  if (is_name(*parameters)) {
    parameters = MakeFunction("tuple", {parameters}, parameters->position);
    return absl::OkStatus();
  }
  bool names = parameters->kind == ExprKind::kFunction && parameters->name == "tuple" &&
               parameters->alias.empty() && !parameters->args.empty() && !parameters->over;
  for (size_t i = 0; names && i < parameters->args.size(); ++i) {
    names = is_name(*parameters->args[i]);
  }
  if (!names) {
    return tokens_.ErrorAt(name, "The first argument of lambda must be a tuple of parameter names");
  }
  return absl::OkStatus();
}

absl::Status ExpressionParser::ParseOver(Expr* call) {
  if (!tokens_.Peek().Is("OVER")) return absl::OkStatus();
  tokens_.Take();
  call->over = std::make_shared<WindowSpec>();
  return ParseWindowSpec(call->over.get());
}

absl::Status ExpressionParser::ParseOrderItems(std::vector<OrderItem>* items, bool allow_fill) {
  do {
    OrderItem item;
    ASSIGN_OR_RETURN(item.expr, Parse());
    if (tokens_.TakeKeyword("DESC") || tokens_.TakeKeyword("DESCENDING")) {
      item.descending = true;
    } else if (!tokens_.TakeKeyword("ASC")) {
      tokens_.TakeKeyword("ASCENDING");
    }
    if (tokens_.TakeKeyword("NULLS")) {
      if (tokens_.TakeKeyword("FIRST")) {
        item.nulls_first = true;
      } else if (tokens_.TakeKeyword("LAST")) {
        item.nulls_first = false;
      } else {
        return tokens_.Error("Expected one of: FIRST, LAST");
      }
    }
    if (allow_fill && tokens_.Peek().Is("WITH") && tokens_.Peek(1).Is("FILL")) {
      tokens_.Take();
      tokens_.Take();
      WithFill fill;
      if (tokens_.TakeKeyword("FROM")) {
        ASSIGN_OR_RETURN(fill.from, Parse());
      }
      if (tokens_.TakeKeyword("TO")) {
        ASSIGN_OR_RETURN(fill.to, Parse());
      }
      if (tokens_.TakeKeyword("STEP")) {
        ASSIGN_OR_RETURN(fill.step, Parse());
      }
      item.fill = std::move(fill);
    }
    items->push_back(std::move(item));
  } while (tokens_.TakeSymbol(","));
  return absl::OkStatus();
}

absl::Status ExpressionParser::ParseWindowSpec(WindowSpec* spec) {
  if (!tokens_.Peek().IsSymbol("(")) {
    const Token name = tokens_.Take();
    if (name.kind != TokenKind::kBareWord && name.kind != TokenKind::kQuotedIdentifier) {
      return tokens_.ErrorAt(name, "Expected window name or window definition");
    }
    spec->base = std::string(name.text);
    return absl::OkStatus();
  }
  tokens_.Take();  // (
  const Token first = tokens_.Peek();
  if ((first.kind == TokenKind::kBareWord && !IsReservedWord(first.text) && !first.Is("ROWS") &&
       !first.Is("RANGE")) ||
      first.kind == TokenKind::kQuotedIdentifier) {
    spec->base = std::string(tokens_.Take().text);
  }
  if (tokens_.Peek().Is("PARTITION")) {
    tokens_.Take();
    RETURN_IF_ERROR(tokens_.ExpectKeyword("BY"));
    ASSIGN_OR_RETURN(spec->partition_by, ParseList());
  }
  if (tokens_.Peek().Is("ORDER")) {
    tokens_.Take();
    RETURN_IF_ERROR(tokens_.ExpectKeyword("BY"));
    RETURN_IF_ERROR(ParseOrderItems(&spec->order_by));
  }
  if (tokens_.Peek().Is("ROWS") || tokens_.Peek().Is("RANGE")) {
    WindowFrame frame;
    frame.rows = tokens_.Take().Is("ROWS");
    if (tokens_.TakeKeyword("BETWEEN")) {
      ASSIGN_OR_RETURN(frame.begin, ParseFrameBound());
      RETURN_IF_ERROR(tokens_.ExpectKeyword("AND"));
      ASSIGN_OR_RETURN(frame.end, ParseFrameBound());
    } else {
      ASSIGN_OR_RETURN(frame.begin, ParseFrameBound());
      frame.end.kind = FrameBound::Kind::kCurrentRow;
    }
    spec->frame = std::move(frame);
  }
  return tokens_.ExpectSymbol(")");
}

absl::StatusOr<FrameBound> ExpressionParser::ParseFrameBound() {
  FrameBound bound;
  if (tokens_.TakeKeyword("CURRENT")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("ROW"));
    bound.kind = FrameBound::Kind::kCurrentRow;
    return bound;
  }
  const bool unbounded = tokens_.TakeKeyword("UNBOUNDED");
  if (!unbounded) {
    const Token token = tokens_.Peek();
    if (token.kind != TokenKind::kNumber) {
      return tokens_.Error("Expected one of: UNBOUNDED, CURRENT ROW, a number");
    }
    tokens_.Take();
    ASSIGN_OR_RETURN(bound.offset, ParseNumber(token, false, token.position));
  }
  if (tokens_.TakeKeyword("PRECEDING")) {
    bound.kind = unbounded ? FrameBound::Kind::kUnboundedPreceding : FrameBound::Kind::kPreceding;
  } else if (tokens_.TakeKeyword("FOLLOWING")) {
    bound.kind = unbounded ? FrameBound::Kind::kUnboundedFollowing : FrameBound::Kind::kFollowing;
  } else {
    return tokens_.Error("Expected one of: PRECEDING, FOLLOWING");
  }
  return bound;
}

// dateAdd(month, 1, d), dateDiff(day, a, b): ClickHouse takes the unit as a bare word; it becomes
// the string the date functions read ('month').
void ExpressionParser::UnitArgumentAsString(Expr* call) {
  static constexpr std::string_view kUnitFunctions[] = {
      "dateadd", "date_add", "datesub", "date_sub", "timestampadd", "timestamp_add",
      "timestampsub", "timestamp_sub", "datediff", "date_diff", "timestampdiff", "timestamp_diff"};
  if (call->args.empty() || call->args[0]->kind != ExprKind::kIdentifier ||
      !call->args[0]->qualifier.empty()) {
    return;
  }
  const std::string lower = absl::AsciiStrToLower(call->name);
  for (std::string_view name : kUnitFunctions) {
    if (lower == name) {
      call->args[0] = MakeLiteral(core::Value(call->args[0]->name), call->args[0]->position);
      return;
    }
  }
}

absl::Status ExpressionParser::ParseCallArguments(Expr* call) {
  if (tokens_.TakeSymbol(")")) return absl::OkStatus();
  if (tokens_.Peek().IsSymbol("*") && tokens_.Peek(1).IsSymbol(")")) {
    auto star = std::make_shared<Expr>();
    star->kind = ExprKind::kStar;
    star->position = tokens_.Take().position;
    tokens_.Take();
    call->args.push_back(std::move(star));
    return absl::OkStatus();
  }
  call->distinct = tokens_.TakeKeyword("DISTINCT");
  ASSIGN_OR_RETURN(call->args, ParseList(/*aliases=*/true));
  return tokens_.ExpectSymbol(")");
}

// ClickHouse's parametric aggregates, f(params)(args): the parameters (literals) become part of
// the function name, "quantile(0.9)", which the aggregate factory parses.
absl::StatusOr<ExprPtr> ExpressionParser::ParseParametricCall(ExprPtr params) {
  std::string name = params->name + "(";
  for (size_t i = 0; i < params->args.size(); ++i) {
    const Expr& param = *params->args[i];
    if (param.kind != ExprKind::kLiteral || params->distinct) {
      return tokens_.Error("Parameters of aggregate function " + params->name +
                           " must be literals");
    }
    name += (i == 0 ? "" : ", ") + ColumnName(param);
  }
  name += ")";
  tokens_.Take();  // '('
  ExprPtr call = MakeFunction(std::move(name), {}, params->position);
  RETURN_IF_ERROR(ParseCallArguments(call.get()));
  return call;
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseCase() {
  const Token case_token = tokens_.Take();
  std::vector<ExprPtr> args;
  const bool has_operand = !tokens_.Peek().Is("WHEN");
  if (has_operand) {
    ASSIGN_OR_RETURN(ExprPtr operand, Parse());
    args.push_back(std::move(operand));
  }
  if (!tokens_.Peek().Is("WHEN")) return tokens_.Error("Expected WHEN");
  while (tokens_.TakeKeyword("WHEN")) {
    ASSIGN_OR_RETURN(ExprPtr condition, Parse());
    RETURN_IF_ERROR(tokens_.ExpectKeyword("THEN"));
    ASSIGN_OR_RETURN(ExprPtr result, Parse());
    args.push_back(std::move(condition));
    args.push_back(std::move(result));
  }
  const bool has_else = tokens_.TakeKeyword("ELSE");
  if (has_else) {
    ASSIGN_OR_RETURN(ExprPtr otherwise, Parse());
    args.push_back(std::move(otherwise));
  } else {
    args.push_back(MakeNull(tokens_.Peek().position));
  }
  if (!tokens_.TakeKeyword("END")) {
    return tokens_.Error(has_else ? "Expected END" : "Expected one of: WHEN, ELSE, END");
  }
  return MakeFunction(has_operand ? "caseWithExpression" : "multiIf", std::move(args),
                      case_token.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseCast() {
  const Token name = tokens_.Take();
  tokens_.Take();  // '('
  ASSIGN_OR_RETURN(ExprPtr operand, Parse());
  ExprPtr type;
  if (tokens_.TakeKeyword("AS")) {
    const size_t type_position = tokens_.Peek().position;
    ASSIGN_OR_RETURN(std::string text, ParseTypeText());
    type = MakeLiteral(core::Value(std::move(text)), type_position);
  } else if (tokens_.TakeSymbol(",")) {
    ASSIGN_OR_RETURN(type, Parse());
  } else {
    return tokens_.Error("Expected one of: AS, ','");
  }
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  return MakeFunction("CAST", {std::move(operand), std::move(type)}, name.position);
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseExtract() {
  const char* function = ExtractFunction(tokens_.Peek(2));
  if (function == nullptr || !tokens_.Peek(3).Is("FROM")) return ParseFunctionCall();
  const Token name = tokens_.Take();
  for (int i = 0; i < 3; ++i) tokens_.Take();  // '(' UNIT FROM
  ASSIGN_OR_RETURN(ExprPtr operand, Parse());
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  return MakeFunction(function, {std::move(operand)}, name.position);
}

absl::StatusOr<std::string> ExpressionParser::ParseTypeText() {
  const Token first = tokens_.Peek();
  if (first.kind != TokenKind::kBareWord) return tokens_.Error("Expected data type");
  tokens_.Take();
  size_t end = first.end();
  for (Token word = tokens_.Peek(); word.Is("PRECISION") || word.Is("UNSIGNED") ||
                                    word.Is("SIGNED") || word.Is("VARYING");
       word = tokens_.Peek()) {
    end = tokens_.Take().end();
  }
  if (tokens_.Peek().IsSymbol("(")) {
    int open = 0;
    do {
      const Token token = tokens_.Peek();
      if (token.kind == TokenKind::kEnd || token.kind == TokenKind::kError) {
        return tokens_.Error("Expected ')'");
      }
      if (token.IsSymbol("(")) {
        ++open;
      } else if (token.IsSymbol(")")) {
        --open;
      }
      end = tokens_.Take().end();
    } while (open > 0);
  }
  return std::string(tokens_.query().substr(first.position, end - first.position));
}

absl::StatusOr<ExprPtr> ExpressionParser::ParseNumber(const Token& token, bool negative,
                                                      size_t position) {
  const std::string_view text = token.text;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string sign = negative ? "-" : "";
  if (!hex && text.find_first_of(".eE") != std::string_view::npos) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) {
      return tokens_.ErrorAt(token, absl::StrCat("Cannot parse number ", sign,
                                                 core::ToAbsl(text), ": out of range of Float64"));
    }
    ExprPtr literal = MakeLiteral(core::Value(negative ? -value : value), position);
    literal->number_text = sign + std::string(text);
    return literal;
  }
  uint64_t value = 0;
  auto [ptr, ec] = hex ? std::from_chars(begin + 2, end, value, 16)
                       : std::from_chars(begin, end, value, 10);
  constexpr uint64_t kInt64MinMagnitude = uint64_t{1} << 63;
  if (ec != std::errc() || ptr != end || (negative && value > kInt64MinMagnitude)) {
    return tokens_.ErrorAt(
        token, absl::StrCat("Integer literal ", sign, core::ToAbsl(text), " is out of range of ",
                            negative ? "Int64" : "UInt64"));
  }
  if (!negative) return MakeLiteral(core::Value(value), position);
  const int64_t signed_value = value == kInt64MinMagnitude
                                   ? std::numeric_limits<int64_t>::min()
                                   : -static_cast<int64_t>(value);
  return MakeLiteral(core::Value(signed_value), position);
}

}  // namespace granite::coordinator::sql

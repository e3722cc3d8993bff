// The expression half of the recursive-descent parser (parser.h is the statement half). It turns
// operators and special syntax into ClickHouse function calls as documented in ast.h.
//
// Precedence, lowest first; each level is one method:
//   lambda (x -> body, (x, y) -> body: lambda(tuple(x, y), body), as ClickHouse's AST has it)
//   < OR (flattened) < AND (flattened) < NOT < comparison (= != < LIKE IN BETWEEN IS NULL ...)
//   < additive (+ - ||) < multiplicative (* / % DIV MOD) < unary minus < postfix ::Type < primary.
// A unary minus directly before a number folds into a negative literal (-1 is Int64 -1, and
// -1::UInt8 casts the literal -1), as in ClickHouse.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "coordinator/sql/token_stream.h"

namespace granite::coordinator::sql {

// The function a query parameter {name:Type} parses into: __queryParameter('name', 'Type'). The
// executor replaces it by the parameter's value before binding (exec/query_parameters.h).
inline constexpr std::string_view kQueryParameterFunction = "__queryParameter";

// Parses expressions from a TokenStream, stopping before the first token that cannot continue one.
// Thread-safety: none; one per parse.
class ExpressionParser {
 public:
  // Limits like ClickHouse's max_parser_depth and max_ast_depth: deeper input fails with a
  // syntax error instead of overflowing the stack, here (about 2.5 KB per nesting level) or in
  // the recursive consumers of the tree.
  static constexpr int kMaxRecursion = 256;   // nested parentheses, calls, CASE, NOT, unary minus
  static constexpr int kMaxTreeDepth = 1000;  // also counts each link of an operator chain

  // REQUIRES: `tokens` outlives the parser.
  explicit ExpressionParser(TokenStream* tokens) : tokens_(*tokens) {}

  // Parses one full expression (OR level).
  absl::StatusOr<ExprPtr> Parse();
  // Parses `expr [, expr ...]`; stops before the first token after an expression that is not ','.
  // With `aliases` (a call's arguments, an array's or a tuple's elements) an element may be
  // `expr AS name`: the element carries the alias.
  absl::StatusOr<std::vector<ExprPtr>> ParseList(bool aliases = false);
  // Parses a data type and returns its text as written: a name, optional extra words
  // (DOUBLE PRECISION, INT UNSIGNED) and an optional balanced (argument list).
  absl::StatusOr<std::string> ParseTypeText();
  // Parses a number literal, folding a leading '-' into it when `negative`.
  absl::StatusOr<ExprPtr> ParseNumber(const Token& token, bool negative, size_t position);

  // Parses `expr [ASC|DESC] [NULLS FIRST|LAST] [WITH FILL [FROM e] [TO e] [STEP e]] [, ...]`
  // (ORDER BY's list, after ORDER BY); WITH FILL only when `allow_fill` (a statement's ORDER BY).
  absl::Status ParseOrderItems(std::vector<OrderItem>* items, bool allow_fill = false);
  // Parses a window after OVER or `w AS`: `name`, or `([name] [PARTITION BY ...] [ORDER BY ...]
  // [ROWS|RANGE frame])`.
  absl::Status ParseWindowSpec(WindowSpec* spec);

  // Parses a whole SELECT (with its set operators) at the current token; the statement parser
  // installs it so that `(SELECT ...)`, `IN (SELECT ...)` and `EXISTS (SELECT ...)` parse.
  using SubqueryParser = std::function<absl::StatusOr<SelectPtr>()>;
  void set_subquery_parser(SubqueryParser parser) { subquery_parser_ = std::move(parser); }

 private:
  // Parses the body after `->`; `parameters` is the expression before it.
  absl::StatusOr<ExprPtr> ParseLambda(ExprPtr parameters);
  absl::StatusOr<ExprPtr> ParseOr();
  absl::StatusOr<ExprPtr> ParseAnd();
  absl::StatusOr<ExprPtr> ParseNot();
  absl::StatusOr<ExprPtr> ParseComparison();
  absl::StatusOr<ExprPtr> ParseAdditive();
  absl::StatusOr<ExprPtr> ParseMultiplicative();
  absl::StatusOr<ExprPtr> ParseUnary();
  absl::StatusOr<ExprPtr> ParsePostfix(ExprPtr operand);
  absl::StatusOr<ExprPtr> ParsePrimary();
  absl::StatusOr<ExprPtr> ParseParenthesized();
  absl::StatusOr<ExprPtr> ParseArrayLiteral();
  // {k1: v1, k2: v2} (ClickHouse's map literal) is map(k1, v1, k2, v2); {} is map().
  absl::StatusOr<ExprPtr> ParseMapLiteral();
  absl::StatusOr<ExprPtr> ParseFunctionCall();
  // Parses the arguments after '(' up to and including ')': *, DISTINCT, a list.
  absl::Status ParseCallArguments(Expr* call);
  absl::StatusOr<ExprPtr> ParseParametricCall(ExprPtr params);
  void UnitArgumentAsString(Expr* call);
  // Attaches `OVER ...` to a just-parsed call, if it follows.
  absl::Status ParseOver(Expr* call);
  // SYNTAX_ERROR unless a written-out `lambda(...)` call has the shape `->` gives one.
  absl::Status CheckLambdaCall(const Token& name, Expr* call) const;
  absl::StatusOr<FrameBound> ParseFrameBound();
  absl::StatusOr<ExprPtr> ParseCase();
  absl::StatusOr<ExprPtr> ParseCast();
  absl::StatusOr<ExprPtr> ParseExtract();
  absl::StatusOr<ExprPtr> ParseIdentifier();
  // Parses substring(s, start[, length]) and SQL's substring(s FROM start [FOR length]).
  absl::StatusOr<ExprPtr> ParseSubstring();
  // Parses INTERVAL n UNIT / INTERVAL 'n' UNIT / INTERVAL 'n unit' into toInterval<Unit>(n).
  absl::StatusOr<ExprPtr> ParseInterval();
  // Parses `(expr, ...)` after IN / NOT IN into a tuple(...) call.
  absl::StatusOr<ExprPtr> ParseInList();
  // Parses a query parameter {name:Type} into a kQueryParameterFunction call.
  absl::StatusOr<ExprPtr> ParseQueryParameter();
  // True when the tokens at `offset` start a SELECT (SELECT or WITH).
  bool StartsSelect(size_t offset);
  // Parses `(SELECT ...)` into a kSubquery node.
  absl::StatusOr<ExprPtr> ParseSubquery();

  // Fails with a syntax error at the next token once a depth limit is passed.
  absl::Status CheckDepth();

  TokenStream& tokens_;
  SubqueryParser subquery_parser_;
  int recursion_ = 0;   // active recursive calls
  int tree_depth_ = 0;  // bound on the depth of the node being built
};

}  // namespace granite::coordinator::sql

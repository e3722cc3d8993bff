// Scalar function registry: the one place that knows every scalar function granite evaluates, its
// canonical name, which argument types it accepts and what it returns. The coordinator's binder asks
// it for result types (ResolveFunction); core::Expression asks it for compiled kernels
// (CompileFunction) when a plan fragment arrives.
//
// Names follow ClickHouse: SQL-standard functions (lower, upper, substring, if, abs, CAST,
// DATE_TRUNC, REGEXP_REPLACE, ...) match case-insensitively, ClickHouse's own camelCase functions
// (intDiv, toStartOfMinute, multiIf, ...) case-sensitively. Aliases resolve to one canonical name
// (date_trunc, DATE_TRUNC -> dateTrunc; REGEXP_REPLACE -> replaceRegexpAll; mod -> modulo), which is
// what plans carry.
//
// in / notIn: the binder passes x followed by the elements of the IN list, each a constant
// (ResolveFunction("in", {x, 1, 2, 3})). In a plan the list travels as in(x, tuple(1, 2, 3)).
// A long set (an IN subquery's values) is one argument instead: ArgumentInfo::set, a column of
// its values (in a plan a kSet node, core/plan/expr.h).
// tuple is not a function of its own: resolving it fails.
//
// Nullable (null_functions.h): a call with a Nullable argument resolves on the nested types and
// returns Nullable of the result, NULL where any argument is NULL (ClickHouse's default for
// ordinary functions); a NULL constant argument makes the whole call NULL. The functions that
// look at NULLs themselves (isNull, coalesce, ifNull, if, and/or/not, CAST, ...) are resolved by
// null_functions.cc.
//
// Result types follow ClickHouse; each functions/*.cc file opens with the rules of its functions
// (arithmetic.cc: integer promotion, modulo and Date arithmetic; type_rules.h: supertypes of
// if/multiIf branches and the common type of comparisons).
//
// Thread-safety: all functions are safe to call concurrently.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/functions/scalar_kernel.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::core {

// Describes one argument of a call: its type and, for literals and constant-folded arguments, its
// value (int64_t for signed types, uint64_t for unsigned, Date and DateTime, double for floats,
// std::string for String; other alternatives are accepted and converted).
struct ArgumentInfo {
  TypeId type;
  std::optional<Value> constant;
  // A constant that is NULL (`constant` then holds its type's default). Only with a Nullable type.
  bool constant_is_null = false;
  // The first argument of a higher-order call is a lambda (arrayMap(x -> f(x), arr)): `type` is
  // then Array(R), R the body's type, and at execution the operand holds the body's values over
  // the elements of the array arguments, with the first array's offsets (core/expression.h).
  bool lambda = false;
  // The set of in / notIn as one argument: a column of its distinct values, of `type` (never
  // Nullable). `constant` is then empty; at execution its operand is a placeholder.
  ColumnPtr set;
};

struct ResolvedFunction {
  std::string name;  // canonical name, e.g. "dateTrunc" for DATE_TRUNC
  TypeId result_type;
};

// Resolves a scalar function call: checks the number and types of the arguments and returns the
// canonical name and the result type. A lambda argument (ArgumentInfo::lambda) is accepted only by
// the higher-order functions (higher_order_functions.cc), others refuse it with
// ILLEGAL_TYPE_OF_ARGUMENT as ClickHouse does. Errors: unknown name -> kUnknownFunction ("Unknown function
// foo"); wrong argument count -> kNumberOfArgumentsDoesntMatch; an argument of a type the function
// does not accept -> kIllegalTypeOfArgument naming the function, the argument position and type; a
// non-constant argument where a constant is required (LIKE pattern, CAST type) -> kIllegalColumn.
absl::StatusOr<ResolvedFunction> ResolveFunction(std::string_view name,
                                                 const std::vector<ArgumentInfo>& args);

// The values of in(x, ...)'s list (`args`: x, then its constants or a set) converted to x's type
// as the kernel converts them, NULLs and values x's type cannot hold left out, as a column of x's
// type without Nullable; null when x's type is not one a set column holds here (integers,
// floats, String, Date, DateTime) or nothing is left. Errors: those of resolving in.
absl::StatusOr<ColumnPtr> InSetColumn(const std::vector<ArgumentInfo>& args);

// Whether an IN set of values of `type` may travel as one column (ArgumentInfo::set,
// plan::Expr::Kind::kSet): integers, floats, String, Date and DateTime, not Nullable.
bool IsSetColumnType(TypeId type);

// Returns OK when `name` is a higher-order function, one whose first argument may be a lambda
// (arrayMap, arrayFilter, ...); else UNKNOWN_FUNCTION, or ILLEGAL_TYPE_OF_ARGUMENT as ClickHouse
// words it ("Function plus can't have lambda-expressions as arguments").
absl::Status CheckTakesLambda(std::string_view name);

// Returns true if `name` (or an alias of it) is a scalar function known to the registry.
bool IsScalarFunction(std::string_view name);

// Names one row of system.functions: a canonical function (alias_to empty) or an alias of one.
struct FunctionListing {
  std::string name;
  bool case_insensitive = false;
  std::string alias_to;
};

// Returns every scalar function and alias of the registry, canonical ones first.
std::vector<FunctionListing> ListScalarFunctions();

// A resolved call together with its kernel, ready to run on blocks.
struct CompiledFunction {
  ResolvedFunction resolved;
  std::unique_ptr<ScalarKernel> kernel;
};

// Resolves a call like ResolveFunction and compiles its kernel: constant arguments are prepared
// once here (LIKE matchers, IN sets, regexes, CAST target types, constants converted to the
// operand type). At execution, argument i must be a constant operand exactly when
// args[i].constant is set.
absl::StatusOr<CompiledFunction> CompileFunction(std::string_view name,
                                                 const std::vector<ArgumentInfo>& args);

}  // namespace granite::core

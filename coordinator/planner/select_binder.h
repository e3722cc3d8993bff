// SelectBinder: the state of binding one SELECT — source columns used, select-list aliases, GROUP
// BY keys and aggregate calls — and its two binding modes: input (row level, over the source
// columns) and post-aggregation (over the stage block of keys, then aggregates). Binder::Bind
// drives it clause by clause; the free functions below are shared by both (plan expressions
// themselves are built with core/functions/expr_builder.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/enum_type.h"
#include "core/error.h"
#include "core/functions/function_registry.h"
#include "core/types.h"
#include "core/value.h"
#include "coordinator/sql/ast.h"
#include "core/plan/fragment.h"

namespace granite::coordinator {

// The type of a bound expression.
inline core::TypeId TypeOf(const core::plan::Expr& e) { return e.type; }
// Returns a copy of `e` whose SQL-standard aggregate names are spelled as ClickHouse shows them
// in column names (COUNT(*) is named "count()").
sql::ExprPtr CanonicalForName(const sql::Expr& e);
// Returns the values under an enum column's names (the first argument of __enumName), else `e`:
// ORDER BY sorts an enum by value, as ClickHouse (select_binder_enums.cc).
const core::plan::Expr& EnumValuesOrSelf(const core::plan::Expr& e);
// An error with `code` whose message ends with the 1-based query position.
absl::Status ErrorAt(core::ErrorCode code, const std::string& message, size_t position);

// Binds the expressions of one SELECT. Thread-safety: one per query, one thread.
class SelectBinder {
 public:
  SelectBinder(std::vector<std::string> names, std::vector<core::TypeId> types)
      : table_names_(std::move(names)), table_types_(std::move(types)),
        input_index_(table_names_.size(), -1) {}

  // Names the relation each source column comes from (a join's table aliases), so `t.x` picks
  // the right `x`; a bare `x` that two relations have is the first one's. Columns in `hidden`
  // answer only to a qualified name (the right copy of a USING column).
  // Without qualifiers (one relation), a qualifier is not checked.
  void SetQualifiers(std::vector<std::string> qualifiers, std::vector<bool> hidden) {
    qualifiers_ = std::move(qualifiers);
    hidden_ = std::move(hidden);
  }

  // For one relation: the names a qualified column may use (its alias, its table name, db.table);
  // `x.col` with another qualifier is an unknown identifier (a correlated reference to an outer
  // query, say).
  void SetSingleQualifiers(std::vector<std::string> accepted) {
    single_qualifiers_ = std::move(accepted);
  }

  // Columns computed from the others when read (a table's ALIAS columns): per table column, its
  // expression, or null for a column the source holds. Binding such a column binds its
  // expression over the table's columns (select-list aliases do not apply inside it), cast to the
  // column's type; the column itself is never read. A cycle is CYCLIC_ALIASES.
  void SetComputedColumns(std::vector<sql::ExprPtr> computed) { computed_ = std::move(computed); }

  // Per table column, the declared type name when it differs from its type's name
  // ("LowCardinality(String)"), else empty: toTypeName of the bare column answers it, as
  // ClickHouse does; expressions over the column have the plain type.
  void SetDeclaredTypeNames(std::vector<std::string> names) {
    declared_type_names_ = std::move(names);
  }

  // Per table column, its enum definition (an Enum8 / Enum16 column) or nullopt: such a column
  // binds as its names over its values (select_binder_enums.cc).
  void SetEnumTypes(std::vector<std::optional<core::EnumType>> types) {
    enum_types_ = std::move(types);
  }

  // Registers the alias of `item` and of every expression inside it written `expr AS name`
  // (a call's argument, an array's or a tuple's element; not inside lambdas), as ClickHouse
  // lets any of them name their expression in the whole query. The first one of a name wins.
  void AddAlias(const sql::Expr& item) {
    if (!item.alias.empty()) aliases_.emplace(item.alias, &item);
    if (item.kind != sql::ExprKind::kFunction || item.name == "lambda") return;
    for (const sql::ExprPtr& arg : item.args) {
      if (arg != nullptr) AddAlias(*arg);
    }
  }

  // Binds a row-level expression over the source columns.
  absl::StatusOr<core::plan::Expr> BindInput(const sql::Expr& e);

  // Binds an expression over the stage block (group keys, then aggregates).
  absl::StatusOr<core::plan::Expr> BindPostAggregation(const sql::Expr& e);

  // Rewrites sum(x + c), sum(c + x), sum(x - c), sum(c - x), sum(c * x), sum(x * c) for an integer
  // column expression x and an integer constant c into sum(x) and count(x): ninety sums of
  // `x + k` then cost one sum and one count, since identical aggregates are computed once.
  // Returns null when the pattern does not apply. Integers only: for floats the rewrite would
  // change rounding.
  absl::StatusOr<sql::ExprPtr> RewriteSumOfAffine(const sql::Expr& e);

  // Adds a GROUP BY key bound at row level.
  absl::Status AddKey(const sql::Expr& e);

  // GROUP BY key elimination (ClickHouse's optimize_group_by_function_keys; setting of the same
  // name, default 1, 0 turns it off). Rule: a key that is a deterministic scalar function of the
  // OTHER keys and constants (`ClientIP - 1` beside `ClientIP`, `lower(URL)` beside `URL`) or a
  // constant alone (`GROUP BY 1, URL`) is dropped from the hash key: the tuples (k, f(k)) form
  // exactly the groups of k, so such a key only widens the hash-table key (e.g. four
  // keys of 28 bytes serialized become one Int32). SELECT / HAVING / ORDER BY still see it:
  // post-aggregation binding computes it from the kept key columns (BindCall), with the same
  // function and types, so results (wrap-around of `k - 1` at the type's minimum included) do not
  // change. Limits: only functions whose every leaf is another key or a literal (a key reading a
  // column that is not a key stays); aggregates are refused in GROUP BY before this runs;
  // non-deterministic functions (IsNonDeterministic) never count; float keys
  // never count as sources (-0.0 and 0.0 are one group but may differ after a function); one key
  // always stays, so GROUP BY never turns into a keyless aggregate (which returns a row on empty
  // input). granite has no ARRAY JOIN or Nullable columns, so neither can make a key vary within
  // a group.
  // Returns whether it dropped a key.
  // REQUIRES: every AddKey call is done and nothing was bound post-aggregation yet.
  bool DropDependentKeys();

  // Turns RewriteSumOfAffine on or off (setting optimize_arithmetic_operations_in_aggregate_functions;
  // on by default) and tells whether it rewrote some call.
  void set_rewrite_sum_of_affine(bool on) { rewrite_sum_of_affine_ = on; }
  // Sets the zone of date-times without one (setting session_timezone; 0 = UTC, nothing to do):
  // BindCall then passes it to the calls that take a zone (ImplicitZoneArgument of
  // core/functions/time_zone_arguments.h), answers timezone() with it, and reads text compared
  // with a zoneless DateTime in it. Result text takes it in the result writer.
  void set_session_time_zone(uint32_t zone) { session_zone_ = zone; }
  bool rewrote_sum_of_affine() const { return rewrote_sum_of_affine_; }

  bool ContainsAggregate(const sql::Expr& e);

  const std::vector<core::plan::Expr>& keys() const { return keys_; }
  const std::vector<core::plan::AggregateCall>& aggregates() const { return aggregates_; }
  // Source columns in input order.
  std::vector<std::string> SourceColumns() const;
  // Source column positions in the table, in input order.
  std::vector<size_t> SourcePositions() const;

 private:
  // Applies the session zone to a call about to be resolved (set_session_time_zone).
  void ApplySessionTimeZone(const std::string& name, std::vector<core::plan::Expr>* args,
                            std::vector<core::ArgumentInfo>* infos) const;

  uint32_t session_zone_ = 0;
  // What FinishBindCall folded a call of constants to (nullopt: not foldable), by its syntax node,
  // with the call's function and type: AppendArgument takes it instead of compiling the argument's
  // whole tree again, which made a chain of n constant operations (1 + 1 + ... + 1) O(n^2).
  struct Folded {
    std::string function;
    core::TypeId type;
    std::optional<core::Value> value;
  };
  std::map<const sql::Expr*, Folded> folded_;
  // Post-aggregation binding of a call without aggregates first binds it as an input expression
  // (it may be a GROUP BY key); when that fails, it binds the call's arguments the same way, one
  // level down, so a chain of n calls that fails to bind (`1 + ... + x + 1` beside count(), x no
  // column) bound its input O(n^2) times: the sql_bind fuzzer's slowest inputs. Inside such a
  // subtree (aggregate_free_depth_ > 0, AggregateFreeScope) ContainsAggregate is known false and
  // the nodes that failed to bind as input are remembered with their error and the aliases being
  // expanded: met again under the same aliases, a node fails the same way without a second bind
  // (binding input is a function of the node and those aliases there; the columns it marked
  // used are marked already). BindSpecialCall binds trees it builds itself (lowerings), whose
  // addresses may be reused: it suspends the memory (InputFailureSuspension). Computed columns
  // (computing_ not empty) bind without it.
  struct InputFailure {
    absl::Status status;
    std::set<std::string> expanding;
  };
  class AggregateFreeScope;
  class InputFailureSuspension;
  int aggregate_free_depth_ = 0;
  std::map<const sql::Expr*, InputFailure> input_failures_;
  // The error binding `e` as input gave before in this subtree, or null.
  [[gnu::noinline]] const absl::Status* RememberedInputFailure(const sql::Expr& e) const;
  [[gnu::noinline]] void RememberInputFailure(const sql::Expr& e, const absl::Status& status);
  // BindInput as BindCall's argument binder: remembers the argument's failure.
  absl::StatusOr<core::plan::Expr> BindInputArgument(const sql::Expr& e);
  bool rewrite_sum_of_affine_ = true;
  bool rewrote_sum_of_affine_ = false;

  using ArgBinder = absl::FunctionRef<absl::StatusOr<core::plan::Expr>(const sql::Expr&)>;

  // True for functions whose value may differ between two calls with the same arguments (none
  // is registered today; listed so that adding one cannot silently break DropDependentKeys).
  static bool IsNonDeterministic(const std::string& name);

  // True if `e` (bound at input level) is a literal, another key than keys_[self] (when not at
  // the top), or a deterministic function call of such expressions.
  bool IsFunctionOfOtherKeys(const core::plan::Expr& e, size_t self, bool top) const;
  // Returns whether a GROUP BY key is a call over constants only (or a literal): it could stand
  // for a part of a constant expression bound post-aggregation.
  bool HasConstantKey() const;

  const sql::Expr* AliasTarget(const sql::Expr& e);
  // True for `call AS name` whose name is not being expanded yet (select_binder.cc).
  bool OwnAliasPending(const sql::Expr& e) const;

  template <typename F>
  absl::StatusOr<core::plan::Expr> WithAlias(const std::string& name, F&& bind) {
    expanding_.insert(name);
    absl::StatusOr<core::plan::Expr> result = bind();
    expanding_.erase(name);
    return result;
  }

  absl::StatusOr<core::plan::Expr> BindLiteral(const sql::Expr& e);

  absl::StatusOr<core::plan::Expr> BindColumn(const sql::Expr& e);
  // Returns the table column a (bare or qualified) name refers to, or -1.
  int FindColumn(const sql::Expr& e) const;
  // Binds table column `index`, computed by computed_[index]; `e` names it.
  absl::StatusOr<core::plan::Expr> BindComputedColumn(size_t index, const sql::Expr& e);

  // Binds a scalar function call; `bind_arg` binds each argument (input or post-aggregation).
  absl::StatusOr<core::plan::Expr> BindCall(const sql::Expr& e, ArgBinder bind_arg);
  // BindCall's parts outside its recursion (see there): window, tuple-IN, lambda and tuple
  // calls; toTypeName of a column with a declared type (LowCardinality, Enum); the IN list; one
  // argument; and the function's resolution once the arguments are bound.
  [[gnu::noinline]] absl::StatusOr<core::plan::Expr> BindSpecialCall(const sql::Expr& e,
                                                                     ArgBinder bind_arg);
  [[gnu::noinline]] std::optional<core::plan::Expr> DeclaredTypeName(const sql::Expr& e) const;
  [[gnu::noinline]] absl::Status AppendInList(const sql::Expr& arg,
                                              std::vector<core::plan::Expr>* args,
                                              std::vector<core::ArgumentInfo>* infos);
  [[gnu::noinline]] absl::Status AppendArgument(const sql::Expr& call, const sql::Expr& arg,
                                                ArgBinder bind_arg,
                                                std::vector<core::plan::Expr>* args,
                                                std::vector<core::ArgumentInfo>* infos);
  [[gnu::noinline]] absl::StatusOr<core::plan::Expr> FinishBindCall(
      const sql::Expr& e, bool is_in, std::vector<core::plan::Expr> args,
      std::vector<core::ArgumentInfo> infos);
  // Records in folded_ what call `e`, resolved as `resolved` over `args`, folds to, when every
  // argument's value is known (infos).
  void RememberFolded(const sql::Expr& e, const core::ResolvedFunction& resolved,
                      const std::vector<core::plan::Expr>& args,
                      const std::vector<core::ArgumentInfo>& infos);

  // Tuples (select_binder_tuples.cc). Returns the tuple call `e` is, directly or through
  // select-list aliases, else null.
  const sql::Expr* TupleOf(const sql::Expr& e);
  // True when `e` works on tuples the binder lowers: a comparison of two tuples, tupleElement of
  // a tuple, toTypeName of a tuple (planner/tuple_lowering.h).
  bool IsTupleOperation(const sql::Expr& e);
  // Binds such a call through `bind_arg` as the element expressions it means; any other use of
  // a tuple value is NOT_IMPLEMENTED (only the select list's top level holds one, and the
  // executor splits those: exec/tuple_results.h).
  [[gnu::noinline]] absl::StatusOr<core::plan::Expr> BindTupleOperation(const sql::Expr& e,
                                                                        ArgBinder bind_arg);
  // The type of a tuple call: its elements bound through `bind_arg` (core/tuple_type.h).
  absl::StatusOr<core::TypeId> BindTupleType(const sql::Expr& tuple, ArgBinder bind_arg);

  // Lambdas (select_binder_lambdas.cc). Binds f(x -> body, arr, ...): the arrays first, then
  // the body with x in scope as a parameter of arr's element type, both through `bind_arg`.
  absl::StatusOr<core::plan::Expr> BindHigherOrderCall(const sql::Expr& e, ArgBinder bind_arg);
  // Returns the parameter an unqualified name refers to inside a lambda body, innermost first.
  std::optional<core::plan::Expr> LambdaParameterOf(const sql::Expr& e) const;
  // The error for a lambda anywhere but the first argument of a higher-order function.
  static absl::Status MisplacedLambda(const sql::Expr& lambda, const sql::Expr* call);

  // Enums (select_binder_enums.cc). Returns __enumName(values, 'Enum8(...)').
  absl::StatusOr<core::plan::Expr> EnumNames(core::plan::Expr values,
                                             const core::EnumType& type) const;
  // Rewrites a call's arguments that are enum names to work on values (comparisons with names,
  // IN, CAST to numbers, toInt8, ...; CAST to an enum), or returns the call's whole result
  // when the lowering decides it (`e = 'unknown'` is 0).
  absl::StatusOr<std::optional<core::plan::Expr>> LowerEnumCall(
      const std::string& name, std::vector<core::plan::Expr>* args,
      std::vector<core::ArgumentInfo>* infos);
  // LowerEnumCall with its answer on the heap: BindCall recurses once per nesting level of an
  // expression, so it keeps no Expr-sized temporaries of its own (a 999-deep expression must fit
  // the coordinator's stack under ASan).
  [[gnu::noinline]] absl::StatusOr<std::unique_ptr<core::plan::Expr>> LowerEnumCallBoxed(
      const std::string& name, std::vector<core::plan::Expr>* args,
      std::vector<core::ArgumentInfo>* infos);

  absl::StatusOr<core::plan::Expr> BindAggregate(const sql::Expr& e);
  absl::StatusOr<core::plan::Expr> BindAggregateCall(const sql::Expr& e);

  // Constant after construction.
  std::vector<std::string> table_names_;
  std::vector<core::TypeId> table_types_;
  std::vector<std::string> qualifiers_;  // empty, or one per table column
  std::vector<bool> hidden_;
  std::vector<std::string> single_qualifiers_;  // empty: qualifiers are not checked

  std::vector<int> input_index_;  // per table column: its index among source columns, or -1
  size_t source_count_ = 0;
  std::map<std::string, const sql::Expr*> aliases_;
  std::set<std::string> expanding_;
  std::vector<sql::ExprPtr> computed_;  // empty, or one per table column (null: read)
  std::set<size_t> computing_;          // computed columns being bound (cycle check)
  std::vector<std::string> declared_type_names_;  // empty, or one per table column
  std::vector<std::optional<core::EnumType>> enum_types_;  // empty, or one per table column
  std::vector<core::plan::Expr> keys_;
  std::vector<std::string> key_signatures_;
  std::vector<core::plan::AggregateCall> aggregates_;
  std::vector<std::string> aggregate_signatures_;
  // The lambdas whose bodies are being bound, outermost first. A parameter's slot is its
  // position among all enclosing lambdas' parameters, so equal expressions bind equally (GROUP
  // BY matching compares encodings) and nested lambdas never share a slot.
  struct LambdaScope {
    std::vector<std::string> names;
    std::vector<core::plan::Expr> parameters;
  };
  std::vector<LambdaScope> lambda_scopes_;
};

}  // namespace granite::coordinator

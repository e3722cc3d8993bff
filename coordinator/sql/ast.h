// The SQL syntax tree produced by the parser (coordinator/sql/parser.h) and consumed by the binder.
// Operators are already turned into ClickHouse function names here (a + b -> plus(a, b)), so the
// binder sees one uniform shape: literals, identifiers, `*`, and function calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/column.h"
#include "core/types.h"
#include "core/value.h"

namespace granite::coordinator::sql {

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;
struct SelectStatement;
using SelectPtr = std::shared_ptr<SelectStatement>;
struct WindowSpec;

enum class ExprKind {
  kLiteral,     // value: int64_t (negative), uint64_t (non-negative), double, std::string; or NULL
  kIdentifier,  // name: column or alias; qualifier: optional table name (t.col)
  kStar,        // * in SELECT * or count(*); t.* has qualifier t
  kFunction,    // name + args (+ distinct for count(DISTINCT x))
  kSubquery,    // (SELECT ...) as a value: a scalar subquery, or the set of IN (SELECT ...),
                // or the argument of exists(...)
  kSet,         // never parsed: the set of a long IN (SELECT ...) once run, as the right side of
                // in / notIn (exec/subqueries.h): `set` holds its distinct values
};

// Holds one expression node.
//
// Operators and special syntax map to functions with ClickHouse names:
//   a + b plus, a - b minus, a * b multiply, a / b divide, a % b modulo, -a negate,
//   = / == equals, != / <> notEquals, < less, > greater, <= lessOrEquals, >= greaterOrEquals,
//   AND and (flattened: and(a, b, c)), OR or (flattened), NOT not,
//   a LIKE p like, NOT LIKE notLike, ILIKE ilike, NOT ILIKE notILike,
//   a IN (x, y) in(a, tuple(x, y)), NOT IN notIn(a, tuple(...)), a IN (x) in(a, tuple(x)),
//   a BETWEEN x AND y  and(greaterOrEquals(a, x), lessOrEquals(a, y)),
//   a IS NULL isNull(a), IS NOT NULL isNotNull(a),
//   CASE WHEN c1 THEN r1 [WHEN ...] [ELSE e] END  multiIf(c1, r1, ..., e) (missing ELSE: NULL literal),
//   CASE x WHEN v1 THEN r1 ... ELSE e END  caseWithExpression(x, v1, r1, ..., e),
//   CAST(x AS T) and x::T  CAST(x, 'T') (second argument: string literal with the type as written),
//   extract(minute FROM t)  toMinute(t) (likewise second/hour/day/month/year: toSecond, toHour,
//     toDayOfMonth, toMonth, toYear),
//   DATE 'yyyy-mm-dd'  toDate('yyyy-mm-dd'), TIMESTAMP '…'  toDateTime('…'),
//   substring(s FROM a FOR b)  substring(s, a, b),
//   INTERVAL n DAY (also '90' DAY, '90 day', any unit)  toIntervalDay(n);
//   x + INTERVAL n DAY  addDays(x, n), x - INTERVAL n DAY  subtractDays(x, n) (likewise per unit),
//   (a, b) with two or more elements: tuple(a, b),
//   count(*) has one argument of kind kStar.
//   x -> body  lambda(tuple(x), body), (x, y) -> body  lambda(tuple(x, y), body).
//   x IN (SELECT ...)  in(x, <kSubquery>), NOT IN notIn; GLOBAL IN / GLOBAL NOT IN likewise,
//   EXISTS (SELECT ...)  exists(<kSubquery>), (SELECT ...) in an expression  <kSubquery>.
// Function names keep the spelling of the query; the binder matches them case-insensitively where
// ClickHouse does.
struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  size_t position = 0;  // byte offset of the node's first token in the query, for error messages

  // kLiteral
  bool is_null = false;
  core::Value value;
  std::string number_text;  // a fractional number as written ("-0.07"): exact for Decimal columns
  // Set for a value taken from a result column (a subquery's): the literal keeps that type
  // instead of the one its value would be read as.
  std::optional<core::TypeId> literal_type;

  // kIdentifier, kFunction
  std::string name;
  std::string qualifier;  // kIdentifier only: "t" in t.col

  // kFunction
  std::vector<ExprPtr> args;
  bool distinct = false;  // count(DISTINCT x) / uniqExact-like spelling
  // tuple(...) standing for a named Tuple column: its element names (planner/compound_columns.h)
  std::vector<std::string> element_names;

  // kSubquery
  SelectPtr subquery;

  // kSet: distinct values, never Nullable, at least one (core::plan::Expr::Kind::kSet)
  core::ColumnPtr set;

  // kFunction called as a window function: f(args) OVER (...) or OVER name.
  std::shared_ptr<WindowSpec> over;

  // Any expression may carry an alias (expr AS name, or `expr name` in a select list).
  std::string alias;

  // Returns the query text of this node as the column name ClickHouse would show, e.g.
  // "count()", "plus(a, 1)", "number" (see ColumnName in parser.h).
};

// ORDER BY expr WITH FILL [FROM from] [TO to] [STEP step]: each null when not written. A step
// written as INTERVAL n UNIT is the call toIntervalUnit(n).
struct WithFill {
  ExprPtr from;
  ExprPtr to;
  ExprPtr step;
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  std::optional<bool> nulls_first;  // NULLS FIRST (true) / NULLS LAST (false); unset: default
  std::optional<WithFill> fill;     // WITH FILL (statement ORDER BY only)
};

// INTERPOLATE (column [AS expr], ...): a column without AS keeps the previous row's value in the
// rows WITH FILL adds.
struct InterpolateItem {
  std::string column;
  ExprPtr expr;  // null: the previous row's value
  size_t position = 0;
};

// One end of a window frame. An offset is a non-negative number literal.
struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  ExprPtr offset;  // kPreceding / kFollowing only
};

// ROWS | RANGE BETWEEN begin AND end; `ROWS n PRECEDING` is BETWEEN n PRECEDING AND CURRENT ROW.
struct WindowFrame {
  bool rows = false;  // ROWS; else RANGE
  FrameBound begin;
  FrameBound end;
};

// The window of OVER (...), OVER name, or an entry of the WINDOW clause. Without a frame,
// ClickHouse's default applies: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with an ORDER
// BY, the whole partition without one.
struct WindowSpec {
  std::string base;  // OVER w, or OVER (w ...): the named window of the WINDOW clause it extends
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;
};

// FROM: a table, a table function such as numbers(10) / numbers_mt(1e8), or a subquery.
// `[LEFT] ARRAY JOIN e1 [AS a1], e2 [AS a2]` after FROM's table: each row of the FROM becomes one
// row per element of the arrays (zipped: equal sizes, else SIZES_OF_ARRAYS_DONT_MATCH); LEFT
// keeps a row whose arrays are empty, with the elements' default values. An unaliased column
// name then names the element; an alias names the element and leaves the column the array.
struct ArrayJoinClause {
  bool left = false;
  std::vector<ExprPtr> arrays;
  size_t position = 0;
};

// A FROM subquery made from one ARRAY JOIN clause (exec/array_join.h): after the subquery runs,
// `columns` of its result expand together (a row per element); the columns named in
// `not_in_star` (aliases of the elements) are left out of SELECT *.
struct ArrayJoinExpansion {
  bool left = false;
  std::vector<std::string> columns;
  std::vector<std::string> not_in_star;
  size_t position = 0;  // of the ARRAY JOIN, for errors
};

struct TableRef {
  std::string database;  // optional "db" in db.table; "system" for system.tables
  std::string name;      // table or table-function name; empty for a subquery
  bool is_function = false;
  std::vector<ExprPtr> args;  // table-function arguments
  SelectPtr subquery;         // FROM (SELECT ...) [AS alias]
  // With `subquery`: rows expanded by ARRAY JOIN after it runs; null = none.
  std::shared_ptr<const ArrayJoinExpansion> array_join;
  std::string alias;
  size_t position = 0;
};

enum class JoinKind { kInner, kLeft, kRight, kFull, kCross };
// ClickHouse's strictness: ALL (every match), ANY (one match), SEMI / ANTI (LEFT or RIGHT).
enum class JoinStrictness { kAll, kAny, kSemi, kAnti };

// One `[GLOBAL] [kind] [strictness] JOIN table ON expr | USING (a, b)` after FROM's first table,
// or a comma (a cross join whose conditions sit in WHERE).
struct JoinClause {
  JoinKind kind = JoinKind::kInner;
  JoinStrictness strictness = JoinStrictness::kAll;
  bool comma = false;
  TableRef table;
  ExprPtr on;                        // null if absent
  std::vector<std::string> using_columns;
  size_t position = 0;
};

// WITH name AS (SELECT ...) (a common table expression), or ClickHouse's WITH expr AS name.
struct WithItem {
  std::string name;
  SelectPtr subquery;  // set for a common table expression
  ExprPtr expr;        // set for an expression alias
};

// INTERSECT and EXCEPT without DISTINCT keep the left side's duplicates (ClickHouse's ALL mode).
enum class SetOperator { kUnionAll, kUnionDistinct, kIntersect, kIntersectDistinct, kExcept, kExceptDistinct };

// One SELECT; `set_operands` chains further SELECTs with UNION / INTERSECT / EXCEPT (each operand
// keeps its own ORDER BY and LIMIT, as in ClickHouse; FORMAT and SETTINGS of the last one are
// moved to the first, the statement's).
struct SelectStatement {
  std::vector<WithItem> with;
  bool distinct = false;
  std::vector<ExprPtr> select;  // items; SELECT * gives one kStar item
  std::optional<TableRef> from;
  std::vector<JoinClause> joins;
  // ARRAY JOIN clauses between FROM's table and its joins, in order (each multiplies the rows
  // of those before it); exec/array_join.h folds them into a FROM subquery before planning.
  std::vector<ArrayJoinClause> array_joins;
  ExprPtr where;                // null if absent
  std::vector<ExprPtr> group_by;
  // GROUP BY ROLLUP(a, b) / CUBE(a, b) / a, b WITH ROLLUP|CUBE / GROUPING SETS ((a, b), (a), ()):
  // group_by holds every key once; grouping_sets the sets, in ClickHouse's output order.
  bool grouping_sets_written = false;  // the query named GROUPING SETS, ROLLUP or CUBE
  std::vector<std::vector<ExprPtr>> grouping_sets;
  bool with_totals = false;     // WITH TOTALS
  // GROUP BY ALL: the select items without aggregates; ORDER BY ALL [DESC]: every select item.
  bool group_by_all = false;
  bool order_by_all = false;
  bool order_by_all_descending = false;
  ExprPtr having;               // null if absent
  std::vector<std::pair<std::string, WindowSpec>> windows;  // WINDOW w AS (...), ...
  ExprPtr qualify;              // QUALIFY: a filter over window results; null if absent
  std::vector<OrderItem> order_by;
  // LIMIT n [OFFSET m] BY exprs: at most n rows (after skipping m) per distinct value of exprs,
  // applied after ORDER BY and before LIMIT.
  std::vector<ExprPtr> limit_by;
  uint64_t limit_by_limit = 0;
  uint64_t limit_by_offset = 0;
  // INTERPOLATE after ORDER BY ... WITH FILL: nullopt when absent; an empty list (INTERPOLATE
  // alone) keeps the previous row's value in every column that is not filled.
  std::optional<std::vector<InterpolateItem>> interpolate;
  std::optional<uint64_t> limit;
  std::optional<uint64_t> offset;  // LIMIT n OFFSET m, or LIMIT m, n
  std::string format;              // FORMAT x clause, empty if absent
  std::map<std::string, std::string> settings;  // SETTINGS k = v, ...
  std::vector<std::pair<SetOperator, SelectPtr>> set_operands;
  // Made or rewritten by the IN reduction (exec/in_reduction.h): not reduced again.
  bool in_reduced = false;
};

struct ColumnDef {
  std::string name;
  std::string type;       // as written, e.g. "BIGINT", "VARCHAR(255)", "UInt64"
  bool not_null = false;
  bool nullable = false;  // `col Type NULL`: ClickHouse makes the column Nullable(Type)
  std::string codec;      // inside CODEC(...) as written, e.g. "Delta, ZSTD(1)"; "" without one
  size_t codec_position = 0;
  size_t position = 0;
  // DEFAULT / MATERIALIZED / ALIAS expr: the kind (empty without one), the expression and its
  // text as written. `type` is empty when only the expression gives it (`c DEFAULT 1`).
  std::string default_kind;
  ExprPtr default_expr;
  std::string default_text;
  std::string comment;  // COMMENT 'text'
};

struct CreateTableStatement {
  std::string name;
  bool if_not_exists = false;
  bool or_replace = false;
  std::vector<ColumnDef> columns;
  std::string engine;                // e.g. "MergeTree" (arguments ignored); empty if absent
  std::vector<ExprPtr> order_by;     // ORDER BY x or ORDER BY (a, b); tuple() gives none
  std::vector<ExprPtr> primary_key;  // PRIMARY KEY (a, b) after the columns or after ENGINE
  ExprPtr partition_by;              // null if absent
  std::map<std::string, std::string> settings;
  // CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(c1, c2)] AS SELECT ...: the SELECT, its text
  // as written, and the optional column names (then `columns` is empty).
  SelectPtr view;
  std::string view_query;
  std::vector<std::string> view_columns;
};

struct DropTableStatement {
  std::string name;
  bool if_exists = false;
  bool view = false;  // DROP VIEW
};

// SHOW TABLES [FROM|IN d] [[NOT] [I]LIKE 'p'] [FORMAT f]
struct ShowTablesStatement {
  std::string format;
  std::string database;  // FROM d; empty: the current database
  std::string like;      // the LIKE pattern; empty with !has_like
  bool has_like = false;
  bool not_like = false;
  bool ilike = false;
};

struct DescribeStatement {
  std::string table;
  std::string format;
};

struct InsertStatement {
  std::string table;
  std::vector<std::string> columns;  // empty: all columns in table order
  // "Values" for INSERT ... VALUES (rows in `values`); otherwise the FORMAT name as written
  // (TabSeparated, TSV, CSV, JSONEachRow, ...) with the rows in `inline_data` and/or the request's
  // input_data; or empty with `select` set for INSERT ... SELECT.
  std::string format;
  std::vector<std::vector<ExprPtr>> values;
  std::string inline_data;  // text after "FORMAT x" and one whitespace character
  std::shared_ptr<SelectStatement> select;
};

struct OptimizeStatement {
  std::string table;
  bool final = false;
};

// KILL QUERY WHERE <expr> [SYNC|ASYNC]
struct KillQueryStatement {
  ExprPtr where;
};

// ALTER TABLE t MODIFY SETTING k = v[, ...] or ALTER TABLE t RESET SETTING k[, ...]
// One column command of ALTER TABLE.
struct AlterColumnCommand {
  enum class Kind { kAdd, kDrop, kRename, kModify, kComment };
  Kind kind = Kind::kAdd;
  bool if_exists = false;  // IF EXISTS (DROP, RENAME, MODIFY, COMMENT); IF NOT EXISTS (ADD)
  // ADD, MODIFY: the declaration (MODIFY: `type` empty keeps the type); DROP, RENAME, COMMENT:
  // column.name; COMMENT: column.comment.
  ColumnDef column;
  std::string new_name;  // RENAME ... TO new_name
  bool first = false;    // ADD ... FIRST
  std::string after;     // ADD ... AFTER name
};

// ALTER TABLE t MODIFY SETTING / RESET SETTING, or ALTER TABLE t followed by comma-separated
// column commands (`columns`; then `modify` and `reset` are empty), or ALTER TABLE t DELETE
// WHERE cond / DELETE FROM t WHERE cond (`delete_where`; nothing else set).
struct AlterSettingsStatement {
  std::string table;
  std::map<std::string, std::string> modify;  // MODIFY SETTING: name -> value
  std::vector<std::string> reset;             // RESET SETTING: names
  std::vector<AlterColumnCommand> columns;
  ExprPtr delete_where;
};

// ALTER TABLE t ATTACH PART 'name' or ALTER TABLE t DROP DETACHED PART 'name' [SETTINGS ...]
struct AlterPartStatement {
  std::string table;
  bool drop_detached = false;  // DROP DETACHED PART; else ATTACH PART
  std::string part;            // the directory name under detached/
  std::map<std::string, std::string> settings;
};

// CHECK TABLE t [FORMAT f] [SETTINGS k = v, ...]
struct CheckTableStatement {
  std::string table;
  std::string format;
  std::map<std::string, std::string> settings;
};

// SET k = v[, ...]: changes settings for the rest of the session.
struct SetStatement {
  std::map<std::string, std::string> changes;
};

// EXPLAIN [PLAN] [option = value, ...] SELECT ...: the typed plan after the planner rules.
// Options as ClickHouse names them for EXPLAIN PLAN (header, description, actions, indexes,
// json); granite acts on `indexes` (1: each table scan's parts and granules after pruning).
struct ExplainStatement {
  std::map<std::string, std::string> options;
  SelectStatement select;
};

// CREATE DATABASE [IF NOT EXISTS] d [ENGINE = e] / DROP DATABASE [IF EXISTS] d
struct DatabaseStatement {
  bool drop = false;
  std::string name;
  bool if_exists = false;      // DROP ... IF EXISTS
  bool if_not_exists = false;  // CREATE ... IF NOT EXISTS
};

// USE d: the session's current database.
struct UseStatement {
  std::string database;
};

// SHOW DATABASES [[NOT] LIKE 'p'], SHOW CREATE [TABLE] t, SHOW [FULL] PROCESSLIST, EXISTS [TABLE] t
// (statements answered with a result set of their own; tables named as in ParseTableName).
struct ShowStatement {
  enum class Kind { kDatabases, kCreateTable, kProcesslist, kExists };
  Kind kind = Kind::kDatabases;
  std::string table;
  std::string like;
  bool has_like = false;
  bool not_like = false;
  std::string format;
};

// TRUNCATE [TABLE] [IF EXISTS] t
struct TruncateStatement {
  std::string table;
  bool if_exists = false;
};

// RENAME TABLE a TO b [, c TO d ...]
struct RenameStatement {
  std::vector<std::pair<std::string, std::string>> renames;
};

// Access control, as ClickHouse spells it (parsed by access_statement_parser.h, run by
// coordinator/exec/access_statements.h):
//   GRANT priv[, ...] ON db.table|db.*|*.*|table TO user[, ...]
//   REVOKE priv[, ...] ON ... FROM user[, ...]
//   SHOW GRANTS [FOR user]
//   CREATE QUOTA [IF NOT EXISTS | OR REPLACE] q [KEYED BY user_name]
//     FOR INTERVAL n unit {MAX resource = n[, ...] | NO LIMITS | TRACKING ONLY}[, FOR ...]
//     TO user[, ...]
//   DROP QUOTA [IF EXISTS] q[, ...]
//   CREATE [ROW] POLICY [IF NOT EXISTS | OR REPLACE] p ON [db.]t [AS PERMISSIVE|RESTRICTIVE]
//     [FOR SELECT] USING condition [TO {name[, ...] | ALL [EXCEPT name[, ...]]}]
//   DROP [ROW] POLICY [IF EXISTS] p ON [db.]t
//   SHOW [ROW] POLICIES [ON [db.]t], SHOW CREATE [ROW] POLICY p ON [db.]t
//   SET ROLE {DEFAULT | NONE | ALL [EXCEPT r[, ...]] | r[, ...]}
//   SET DEFAULT ROLE {NONE | ALL [EXCEPT r[, ...]] | r[, ...]} TO {user | CURRENT_USER}[, ...]
struct AccessStatement {
  // kGrantRole / kRevokeRole: GRANT role[, ...] TO grantee[, ...] / REVOKE role[, ...] FROM ...
  enum class Kind {
    kGrant, kRevoke, kShowGrants, kCreateQuota, kDropQuota, kCreateRole, kDropRole, kGrantRole,
    kRevokeRole, kCreatePolicy, kDropPolicy, kShowPolicies, kShowCreatePolicy, kSetRole,
    kSetDefaultRole
  };
  Kind kind = Kind::kGrant;
  // GRANT / REVOKE: privilege names upper-cased with single spaces ("SELECT", "KILL QUERY",
  // "ALL"); the object: database and table as written, "*" for any, an empty database for the
  // current one.
  std::vector<std::string> privileges;
  std::string database;
  std::string table;
  std::vector<std::string> users;  // TO / FROM / FOR (users or roles); a quota's TO
  // CREATE / DROP QUOTA or ROLE; the roles of GRANT / REVOKE role
  std::vector<std::string> names;
  bool if_exists = false;      // DROP ... IF EXISTS
  bool if_not_exists = false;  // CREATE ... IF NOT EXISTS
  bool or_replace = false;
  struct Interval {
    uint64_t seconds = 0;
    std::map<std::string, uint64_t> max;  // resource name (lower case) -> limit
  };
  std::vector<Interval> intervals;
  std::string format;  // SHOW GRANTS ... FORMAT f
  // Row policies (names[0] the policy, database and table its object): the condition's text as
  // written (whitespace runs and comments folded into one space), whether it is RESTRICTIVE,
  // and whom it applies to: `users`, or everybody (to_all) but `except`.
  std::string condition;
  bool restrictive = false;
  bool to_all = false;
  std::vector<std::string> except;
  // SET ROLE / SET DEFAULT ROLE: the roles as a RoleSet (access/role_set.h) — `to_all` with
  // `except`, or `names` (none: NONE); `users` the TO list ("CURRENT_USER" as written);
  // role_default for SET ROLE DEFAULT.
  bool role_default = false;
};

using Statement = std::variant<SelectStatement, CreateTableStatement, DropTableStatement,
                               ShowTablesStatement, DescribeStatement, InsertStatement,
                               OptimizeStatement, KillQueryStatement, AlterSettingsStatement,
                               AlterPartStatement, CheckTableStatement, SetStatement,
                               ExplainStatement, DatabaseStatement, UseStatement,
                               ShowStatement, TruncateStatement, RenameStatement,
                               AccessStatement>;

}  // namespace granite::coordinator::sql

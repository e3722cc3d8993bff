#include "coordinator/exec/array_join.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::SelectStatement;

bool IsArrayJoinCall(const Expr& e) { return e.kind == ExprKind::kFunction && e.name == "arrayJoin"; }

// The first arrayJoin(...) call in `e` (not inside a subquery), or null.
const Expr* FirstCall(const Expr& e) {
  if (IsArrayJoinCall(e)) return &e;
  for (const ExprPtr& arg : e.args) {
    if (const Expr* call = FirstCall(*arg)) return call;
  }
  return nullptr;
}

// Calls `fn` on each expression of `select`'s own level that arrayJoin calls may sit in, in
// clause order. `Select` is SelectStatement or const SelectStatement.
template <typename Select, typename Fn>
void ForLevelExprs(Select& select, Fn fn) {
  for (auto& item : select.select) fn(item);
  if (select.where) fn(select.where);
  for (auto& key : select.group_by) fn(key);
  for (auto& set : select.grouping_sets) {
    for (auto& key : set) fn(key);
  }
  if (select.having) fn(select.having);
  if (select.qualify) fn(select.qualify);
  for (auto& order : select.order_by) fn(order.expr);
  for (auto& key : select.limit_by) fn(key);
}

std::vector<ExprPtr*> LevelExprs(SelectStatement* select) {
  std::vector<ExprPtr*> out;
  ForLevelExprs(*select, [&](ExprPtr& e) { out.push_back(&e); });
  return out;
}

// `e` with every arrayJoin call whose column name is `name` replaced by the column `name`
// (copy on write: untouched subtrees are shared).
ExprPtr ReplaceCalls(const ExprPtr& e, const std::string& name) {
  if (IsArrayJoinCall(*e) && sql::ColumnName(*e) == name) {
    ExprPtr column = sql::MakeColumn("", name, e->position);
    column->alias = e->alias;
    return column;
  }
  ExprPtr copy;
  for (size_t i = 0; i < e->args.size(); ++i) {
    ExprPtr arg = ReplaceCalls(e->args[i], name);
    if (arg == e->args[i]) continue;
    if (!copy) copy = std::make_shared<Expr>(*e);
    copy->args[i] = std::move(arg);
  }
  return copy ? copy : e;
}

// Adds the identifier names in `e` (and in the subqueries it holds) to `out`: bare names, and
// qualified ones whose qualifier is one of `qualifiers`.
void CollectNames(const Expr& e, const std::set<std::string>& qualifiers, std::set<std::string>* out);

void CollectStatementNames(const SelectStatement& select, const std::set<std::string>& qualifiers,
                           std::set<std::string>* out) {
  ForLevelExprs(select, [&](const ExprPtr& e) { CollectNames(*e, qualifiers, out); });
  for (const sql::WithItem& with : select.with) {
    if (with.expr) CollectNames(*with.expr, qualifiers, out);
    if (with.subquery) CollectStatementNames(*with.subquery, qualifiers, out);
  }
  for (const sql::ArrayJoinClause& clause : select.array_joins) {
    for (const ExprPtr& array : clause.arrays) CollectNames(*array, qualifiers, out);
  }
  for (const sql::JoinClause& join : select.joins) {
    if (join.on) CollectNames(*join.on, qualifiers, out);
    for (const std::string& column : join.using_columns) out->insert(column);
    if (join.table.subquery) CollectStatementNames(*join.table.subquery, qualifiers, out);
  }
  for (const auto& [op, operand] : select.set_operands) {
    CollectStatementNames(*operand, qualifiers, out);
  }
}

void CollectNames(const Expr& e, const std::set<std::string>& qualifiers, std::set<std::string>* out) {
  if (e.kind == ExprKind::kIdentifier && (e.qualifier.empty() || qualifiers.count(e.qualifier))) {
    out->insert(e.name);
  }
  if (e.kind == ExprKind::kSubquery && e.subquery) CollectStatementNames(*e.subquery, qualifiers, out);
  for (const ExprPtr& arg : e.args) CollectNames(*arg, qualifiers, out);
}

// True when `select` has a `*` item (bare, or naming one of `qualifiers`).
bool HasStar(const SelectStatement& select, const std::set<std::string>& qualifiers) {
  return std::any_of(select.select.begin(), select.select.end(), [&](const ExprPtr& item) {
    return item->kind == ExprKind::kStar &&
           (item->qualifier.empty() || qualifiers.count(item->qualifier));
  });
}

// Turns `select`'s first arrayJoin call into an ARRAY JOIN clause of its own.
absl::Status CallToClause(SelectStatement* select) {
  const Expr* call = nullptr;
  for (ExprPtr* e : LevelExprs(select)) {
    if ((call = FirstCall(**e)) != nullptr) break;
  }
  if (call == nullptr) return absl::OkStatus();
  if (call->args.size() != 1) {
    return core::Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                       "Function arrayJoin requires exactly one argument, " +
                           std::to_string(call->args.size()) + " given");
  }
  if (!select->joins.empty()) {
    return core::Error(ErrorCode::kNotImplemented,
                       "arrayJoin(...) in a SELECT with JOIN is not supported yet: use ARRAY JOIN "
                       "in a subquery");
  }
  const std::string name = sql::ColumnName(*call);
  sql::ArrayJoinClause clause;
  clause.position = call->position;
  ExprPtr array = std::make_shared<Expr>(*call->args[0]);
  array->alias = name;
  clause.arrays.push_back(std::move(array));
  for (ExprPtr* e : LevelExprs(select)) *e = ReplaceCalls(*e, name);
  select->array_joins.push_back(std::move(clause));
  return absl::OkStatus();
}

}  // namespace

bool HasArrayJoin(const SelectStatement& select) {
  if (!select.array_joins.empty()) return true;
  bool found = false;
  ForLevelExprs(select, [&](const ExprPtr& e) { found = found || FirstCall(*e) != nullptr; });
  return found;
}

absl::StatusOr<SelectStatement> FoldArrayJoin(
    const SelectStatement& select,
    const std::function<absl::StatusOr<RelationColumns>(const sql::TableRef&)>& columns_of) {
  SelectStatement outer = select;
  if (outer.array_joins.empty()) RETURN_IF_ERROR(CallToClause(&outer));
  if (outer.array_joins.empty()) return outer;
  const sql::ArrayJoinClause clause = outer.array_joins.front();
  outer.array_joins.erase(outer.array_joins.begin());

  // What the FROM offers: a table's (or table function's) columns; a subquery's are read as *.
  // Without FROM, the arrays are constants over one row.
  std::optional<std::vector<std::string>> columns;
  std::set<std::string> qualifiers;
  if (outer.from) {
    if (!outer.from->subquery) {
      absl::StatusOr<RelationColumns> read = columns_of(*outer.from);
      if (read.ok()) columns = std::move(read->names);
      qualifiers.insert(outer.from->name);
    }
    if (!outer.from->alias.empty()) qualifiers.insert(outer.from->alias);
  } else {
    columns.emplace();
  }

  // The arrays: an unaliased column (or one aliased as itself) expands in place; any other
  // array is computed under its alias (or its column name) and expands there.
  auto expansion = std::make_shared<sql::ArrayJoinExpansion>();
  expansion->left = clause.left;
  expansion->position = clause.position;
  std::vector<ExprPtr> computed;
  std::set<std::string> element_names;
  for (const ExprPtr& array : clause.arrays) {
    const bool column = array->kind == ExprKind::kIdentifier &&
                        (array->alias.empty() || array->alias == array->name) &&
                        (array->qualifier.empty() || qualifiers.count(array->qualifier));
    if (column) {
      expansion->columns.push_back(array->name);
      element_names.insert(array->name);
      continue;
    }
    ExprPtr value = std::make_shared<Expr>(*array);
    if (value->alias.empty()) value->alias = sql::ColumnName(*array);
    expansion->columns.push_back(value->alias);
    expansion->not_in_star.push_back(value->alias);
    element_names.insert(value->alias);
    computed.push_back(std::move(value));
  }

  SelectStatement inner;
  inner.from = outer.from;
  inner.settings = outer.settings;
  for (const sql::WithItem& with : outer.with) {
    if (with.expr) inner.with.push_back(with);
  }
  // WHERE conjuncts on the table's columns alone, none an element nor a select alias, filter
  // before the rows multiply (not into a table that an outer join may give default rows).
  std::set<std::string> select_aliases;
  for (const ExprPtr& item : outer.select) {
    if (!item->alias.empty()) select_aliases.insert(item->alias);
  }
  for (const sql::WithItem& with : outer.with) select_aliases.insert(with.name);
  const bool null_supplied = std::any_of(outer.joins.begin(), outer.joins.end(), [](const auto& j) {
    return j.kind == sql::JoinKind::kRight || j.kind == sql::JoinKind::kFull;
  });
  if (outer.where && columns && !null_supplied) {
    const std::set<std::string> table_columns(columns->begin(), columns->end());
    std::vector<ExprPtr> conjuncts, pushed, kept;
    sql::SplitAnd(outer.where, &conjuncts);
    for (const ExprPtr& conjunct : conjuncts) {
      std::set<std::string> names;
      CollectNames(*conjunct, qualifiers, &names);
      bool pushable = !sql::ContainsSubquery(*conjunct) && FirstCall(*conjunct) == nullptr;
      for (const std::string& name : names) {
        pushable = pushable && table_columns.count(name) && !element_names.count(name) &&
                   !select_aliases.count(name);
      }
      (pushable ? pushed : kept).push_back(conjunct);
    }
    inner.where = sql::JoinAnd(std::move(pushed));
    outer.where = sql::JoinAnd(std::move(kept));
  }

  // The inner SELECT reads what the rest of the query names once the pushed conjuncts are gone
  // (every column for a `*`), and the columns expanded in place, minus the elements' names.
  if (!columns || HasStar(outer, qualifiers)) {
    auto star = std::make_shared<Expr>();
    star->kind = ExprKind::kStar;
    inner.select.push_back(std::move(star));
    // An earlier ARRAY JOIN's aliases are not in its `*`: named, and kept out of ours.
    if (outer.from && outer.from->array_join) {
      for (const std::string& name : outer.from->array_join->not_in_star) {
        inner.select.push_back(sql::MakeColumn("", name));
        expansion->not_in_star.push_back(name);
      }
    }
  } else {
    std::set<std::string> named;
    CollectStatementNames(outer, qualifiers, &named);
    named.insert(expansion->columns.begin(), expansion->columns.end());
    for (const std::string& name : *columns) {
      const bool in_place =
          std::find(expansion->columns.begin(), expansion->columns.end(), name) !=
          expansion->columns.end();
      if (named.count(name) && (in_place || !element_names.count(name))) {
        inner.select.push_back(sql::MakeColumn("", name));
      }
    }
  }
  for (ExprPtr& value : computed) inner.select.push_back(std::move(value));

  sql::TableRef from;
  from.subquery = std::make_shared<SelectStatement>(std::move(inner));
  from.array_join = std::move(expansion);
  if (outer.from) {
    from.alias = !outer.from->alias.empty() ? outer.from->alias
                 : outer.from->subquery     ? std::string()
                                            : outer.from->name;
    from.position = outer.from->position;
  }
  outer.from = std::move(from);
  return outer;
}

namespace {

// Appends the default element: NULL, an empty array, an empty string or zero.
void AppendDefault(core::Column* column) {
  if (column->nullable()) {
    column->AppendNull();
  } else if (core::IsArray(column->type())) {
    column->AppendArrayEnd();
  } else if (column->type() == core::TypeId::kString) {
    column->AppendString("");
  } else {
    column->Resize(column->size() + 1);
  }
}

}  // namespace

absl::StatusOr<LocalTable> ExpandArrayJoin(LocalTable table,
                                           const sql::ArrayJoinExpansion& expansion,
                                           const std::string& qualifier, uint64_t max_rows) {
  const size_t rows = table.block.rows();
  std::vector<size_t> arrays;
  for (const std::string& name : expansion.columns) {
    auto it = std::find(table.names.begin(), table.names.end(), name);
    if (it == table.names.end()) {
      return core::Error(ErrorCode::kUnknownIdentifier,
                         "Unknown identifier in ARRAY JOIN: " + name);
    }
    const size_t i = static_cast<size_t>(it - table.names.begin());
    if (!core::IsArray(table.types[i])) {
      return core::Error(ErrorCode::kTypeMismatch,
                         "ARRAY JOIN requires an expression of Array type: " + name + " is " +
                             std::string(core::TypeName(table.types[i])));
    }
    arrays.push_back(i);
  }
  // Every input row's index, once per output row.
  std::vector<uint32_t> indices;
  const core::Column& first = *table.block.columns[arrays[0]];
  for (size_t row = 0; row < rows; ++row) {
    const uint64_t size = first.ArraySizeAt(row);
    for (size_t a = 1; a < arrays.size(); ++a) {
      const uint64_t other = table.block.columns[arrays[a]]->ArraySizeAt(row);
      if (other != size) {
        return core::Error(core::kSizesOfArraysDontMatch,
                           "Sizes of ARRAY-JOIN-ed arrays do not match: " + expansion.columns[0] +
                               " has " + std::to_string(size) + " elements and " +
                               expansion.columns[a] + " " + std::to_string(other) + " in row " +
                               std::to_string(row + 1));
      }
    }
    const uint64_t copies = size == 0 && expansion.left ? 1 : size;
    if (max_rows > 0 && indices.size() + copies > max_rows) {
      return core::Error(ErrorCode::kTooManyRows,
                         "ARRAY JOIN gives more than " + std::to_string(max_rows) + " rows");
    }
    indices.insert(indices.end(), copies, static_cast<uint32_t>(row));
  }
  for (size_t c = 0; c < table.block.columns.size(); ++c) {
    const core::Column& column = *table.block.columns[c];
    if (std::find(arrays.begin(), arrays.end(), c) == arrays.end()) {
      table.block.columns[c] =
          std::make_shared<core::Column>(column.Take(indices.data(), indices.size()));
      continue;
    }
    const core::TypeId element = core::ArrayElementOf(table.types[c]);
    auto out = std::make_shared<core::Column>(element);
    out->Reserve(indices.size());
    for (size_t row = 0; row < rows; ++row) {
      const uint64_t size = column.ArraySizeAt(row);
      if (size > 0) {
        out->AppendRange(column.Nested(), column.ArrayBegin(row), size);
      } else if (expansion.left) {
        AppendDefault(out.get());
      }
    }
    table.block.columns[c] = std::move(out);
    table.types[c] = element;
  }
  table.block.rows_without_columns = indices.size();
  if (!qualifier.empty()) {
    table.qualifiers.assign(table.names.size(), qualifier);
    table.hidden.assign(table.names.size(), false);
  }
  table.star_hidden.assign(table.names.size(), false);
  for (size_t c = 0; c < table.names.size(); ++c) {
    table.star_hidden[c] = std::find(expansion.not_in_star.begin(), expansion.not_in_star.end(),
                                     table.names[c]) != expansion.not_in_star.end();
  }
  return table;
}

}  // namespace granite::coordinator

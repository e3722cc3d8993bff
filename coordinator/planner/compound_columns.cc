#include "coordinator/planner/compound_columns.h"

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "coordinator/planner/tuple_lowering.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"
#include "core/compound_column.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

struct Compound {
  std::string name;
  core::CompoundLayout layout;
};

// A FROM or JOIN table: the names that qualify its columns, and its compound columns.
struct Source {
  std::vector<std::string> qualifiers;
  std::string qualifier;  // the one written into rewritten references of a join
  // A table's schema; a FROM subquery's output columns (named, typed UInt8: only the names
  // count) with its tuple and map items flattened into `name.suffix` columns.
  core::TableSchema schema;
  std::vector<std::string> star;  // what `*` lists: the declared columns, compounds whole
  std::vector<Compound> compounds;

  const Compound* Find(const std::string& name) const {
    for (const Compound& compound : compounds) {
      if (compound.name == name) return &compound;
    }
    return nullptr;
  }
  bool Qualifies(const std::string& name) const {
    for (const std::string& q : qualifiers) {
      if (q == name) return true;
    }
    return false;
  }
};

bool IsCall(const Expr& e, const char* name) {
  return e.kind == ExprKind::kFunction && !e.over && absl::EqualsIgnoreCase(e.name, name);
}

class Rewriter {
 public:
  Rewriter(std::vector<Source> sources, bool joined, std::vector<std::string> aliases)
      : sources_(std::move(sources)), joined_(joined), aliases_(std::move(aliases)) {}

  // Returns `e` rewritten (copy on write), or `e` itself.
  ExprPtr Rewrite(const ExprPtr& e) const {
    if (e == nullptr) return e;
    if (e->kind == ExprKind::kIdentifier) {
      ExprPtr resolved = Resolve(*e);
      return resolved != nullptr ? resolved : e;
    }
    if (e->kind != ExprKind::kFunction) return e;
    if (IsCall(*e, "toTypeName") && e->args.size() == 1 &&
        e->args[0]->kind == ExprKind::kIdentifier) {
      // A table's column has its declared type's name; a subquery's tuple is typed by the binder.
      if (const Compound* compound = CompoundOf(*e->args[0]);
          compound != nullptr && !compound->layout.pretty_name.empty()) {
        ExprPtr literal = sql::MakeLiteral(core::Value(compound->layout.pretty_name));
        literal->alias = e->alias;
        literal->position = e->position;
        return literal;
      }
    }
    std::shared_ptr<Expr> copy;
    for (size_t i = 0; i < e->args.size(); ++i) {
      ExprPtr arg = Rewrite(e->args[i]);
      if (arg == e->args[i]) continue;
      if (copy == nullptr) copy = std::make_shared<Expr>(*e);
      copy->args[i] = std::move(arg);
    }
    const Expr& node = copy != nullptr ? *copy : *e;
    if (ExprPtr lowered = LowerMapCall(node)) return lowered;
    if (ExprPtr lowered = LowerElementwise(node)) return lowered;
    if (ExprPtr lowered = LowerCompoundCast(node)) return lowered;
    return copy != nullptr ? copy : e;
  }

 private:
  // The compound column an identifier names, and the qualifier its subcolumns take.
  const Compound* CompoundOf(const Expr& id, std::string* qualifier = nullptr) const {
    if (id.qualifier.empty()) {
      for (const std::string& alias : aliases_) {
        if (alias == id.name) return nullptr;  // a select-list alias wins, as in ClickHouse
      }
    }
    const Compound* found = nullptr;
    for (const Source& source : sources_) {
      if (!id.qualifier.empty() && !source.Qualifies(id.qualifier)) continue;
      const Compound* compound = source.Find(id.name);
      if (compound == nullptr) continue;
      if (found != nullptr) return nullptr;  // ambiguous: the binder says so
      found = compound;
      if (qualifier != nullptr) {
        *qualifier = !id.qualifier.empty() ? id.qualifier : joined_ ? source.qualifier : "";
      }
    }
    return found;
  }

  // `c.suffix` or `q.c.suffix` naming a subcolumn: the subcolumn's reference.
  ExprPtr SubcolumnOf(const Expr& id) const {
    std::string compound_name = id.qualifier;
    std::string table;
    const size_t dot = compound_name.rfind('.');
    if (dot != std::string::npos) {
      table = compound_name.substr(0, dot);
      compound_name = compound_name.substr(dot + 1);
    }
    for (const Source& source : sources_) {
      if (!table.empty() && !source.Qualifies(table)) continue;
      if (table.empty() && source.Qualifies(id.qualifier)) return nullptr;  // a table's column
      const Compound* compound = source.Find(compound_name);
      if (compound == nullptr) continue;
      for (const std::string& suffix : compound->layout.suffixes) {
        if (suffix != id.name) continue;
        ExprPtr column = sql::MakeColumn(table.empty() && joined_ ? source.qualifier : table,
                                         core::SubcolumnName(compound_name, suffix), id.position);
        column->alias = id.alias;
        return column;
      }
    }
    return nullptr;
  }

  ExprPtr Resolve(const Expr& id) const {
    std::string qualifier;
    if (const Compound* compound = CompoundOf(id, &qualifier); compound != nullptr) {
      std::vector<ExprPtr> parts;
      for (const std::string& suffix : compound->layout.suffixes) {
        parts.push_back(sql::MakeColumn(qualifier, core::SubcolumnName(compound->name, suffix),
                                        id.position));
      }
      ExprPtr value = sql::MakeCall(CompoundCallName(compound->layout), std::move(parts));
      value->element_names = compound->layout.element_names;
      value->position = id.position;
      value->alias = id.alias;
      return value;
    }
    if (id.qualifier.empty()) return nullptr;
    if (ExprPtr subcolumn = SubcolumnOf(id)) return subcolumn;
    if (ExprPtr element = AliasElementOf(id)) return element;
    return DottedColumnOf(id);
  }

  // `n.a` or `q.n.a` naming a column whose name has a dot (a Nested column's arrays): the
  // column's reference.
  ExprPtr DottedColumnOf(const Expr& id) const {
    for (const Source& source : sources_) {
      if (source.Qualifies(id.qualifier)) return nullptr;  // q.a: a table's column
    }
    for (const Source& source : sources_) {
      std::string table, name = id.qualifier + "." + id.name;
      for (const std::string& q : source.qualifiers) {
        if (id.qualifier.size() > q.size() && id.qualifier.compare(0, q.size() + 1, q + ".") == 0) {
          table = q;
          name = id.qualifier.substr(q.size() + 1) + "." + id.name;
        }
      }
      if (source.schema.ColumnIndex(name) < 0) continue;
      ExprPtr column = sql::MakeColumn(!table.empty() ? table : joined_ ? source.qualifier : "",
                                       name, id.position);
      column->alias = id.alias;
      return column;
    }
    return nullptr;
  }

 public:
  // The columns ARRAY JOIN `array` stands for: a Nested column's name (`n`, no column of its
  // own) is its arrays `n.a`, `n.b`, zipped as ClickHouse's ARRAY JOIN of a Nested does; else
  // `array` itself.
  std::vector<ExprPtr> ArrayJoinColumns(const ExprPtr& array) const {
    if (array->kind != ExprKind::kIdentifier || !array->alias.empty()) return {Rewrite(array)};
    for (const Source& source : sources_) {
      if (!array->qualifier.empty() && !source.Qualifies(array->qualifier)) continue;
      if (source.schema.ColumnIndex(array->name) >= 0 || source.Find(array->name) != nullptr) {
        break;
      }
      std::vector<ExprPtr> columns;
      const std::string prefix = array->name + ".";
      for (const core::ColumnSchema& column : source.schema.columns) {
        if (column.name.compare(0, prefix.size(), prefix) == 0 && core::IsArray(column.type)) {
          columns.push_back(sql::MakeColumn(array->qualifier, column.name, array->position));
        }
      }
      if (!columns.empty()) return columns;
    }
    return {Rewrite(array)};
  }

 private:

  // `x.b` where x is a select-list alias of a tuple or map: tupleElement(x, 'b'), or the map's
  // keys / values.
  ExprPtr AliasElementOf(const Expr& id) const {
    auto found = compound_aliases_.find(id.qualifier);
    if (found == compound_aliases_.end()) return nullptr;
    ExprPtr alias = sql::MakeColumn("", id.qualifier, id.position);
    ExprPtr element;
    if (IsMapCall(*found->second)) {
      if (id.name != "keys" && id.name != "values") return nullptr;
      element = sql::MakeCall(id.name == "keys" ? "mapKeys" : "mapValues", {alias});
    } else {
      element = sql::MakeCall("tupleElement", {alias, sql::MakeLiteral(core::Value(id.name))});
    }
    element->position = id.position;
    element->alias = id.alias;
    return element;
  }

 public:
  // Records that select-list alias `name` stands for `value` (when it is a tuple or a map).
  void NoteAlias(const std::string& name, const ExprPtr& value) {
    if (!name.empty() && IsTupleCall(*value)) compound_aliases_.emplace(name, value);
  }

 private:
  std::vector<Source> sources_;
  bool joined_;
  std::vector<std::string> aliases_;
  std::map<std::string, ExprPtr> compound_aliases_;
};

std::optional<Source> SourceOf(const sql::TableRef& ref, const TableSchemaLookup& lookup) {
  if (ref.is_function || ref.subquery != nullptr || ref.name.empty()) return std::nullopt;
  std::optional<core::TableSchema> schema = lookup(ref);
  if (!schema) return std::nullopt;
  Source source;
  source.qualifier = ref.alias.empty() ? ref.name : ref.alias;
  source.qualifiers = {ref.name};
  if (!ref.alias.empty()) source.qualifiers.push_back(ref.alias);
  source.qualifiers.push_back((ref.database.empty() ? "default" : ref.database) + "." + ref.name);
  for (const core::CompoundColumn& column : schema->compound_columns) {
    absl::StatusOr<std::optional<core::CompoundLayout>> layout =
        core::ParseCompoundType(column.type);
    if (layout.ok() && *layout) source.compounds.push_back(Compound{column.name, **layout});
  }
  for (const core::DeclaredColumn& declared : core::DeclaredColumns(*schema)) {
    const core::DefaultKind kind = declared.column.default_kind;
    if (kind == core::DefaultKind::kMaterialized || kind == core::DefaultKind::kAlias) continue;
    source.star.push_back(declared.column.name);
  }
  source.schema = *std::move(schema);
  return source;
}

// The name a select item's column gets.
std::string ItemName(const Expr& item) {
  return item.alias.empty() ? sql::ColumnName(item) : item.alias;
}

// A FROM subquery: `select` rewritten on its own (ExpandCompoundColumns), its tuple and map items
// replaced by their elements as `name.suffix` columns (`m` -> `m.keys`, `m.values`; `t` ->
// `t.a`, `t.b`, or `t.1`, `t.2`), and the source the outer query reads it as, which knows those
// as its compound columns. Items that nest a tuple in a tuple stay whole (the binder refuses
// them). A UNION's operands are flattened alike. nullopt for subqueries whose items cannot be
// named here (a join's `*`, operands whose compounds differ).
std::optional<std::pair<sql::SelectStatement, Source>> FlattenSubquery(
    const sql::SelectStatement& select, const std::string& alias, const TableSchemaLookup& lookup) {
  if (!select.set_operands.empty()) {
    // A set operation: each operand flattened alike (the same compounds in the same places),
    // the first's names for the result.
    sql::SelectStatement first = select;
    first.set_operands.clear();
    auto out = FlattenSubquery(first, alias, lookup);
    if (!out) return std::nullopt;
    for (const auto& [op, operand] : select.set_operands) {
      if (!operand->set_operands.empty()) return std::nullopt;
      auto flat = FlattenSubquery(*operand, alias, lookup);
      if (!flat || flat->first.select.size() != out->first.select.size() ||
          flat->second.compounds.size() != out->second.compounds.size()) {
        return std::nullopt;
      }
      for (size_t i = 0; i < flat->second.compounds.size(); ++i) {
        const core::CompoundLayout& a = flat->second.compounds[i].layout;
        const core::CompoundLayout& b = out->second.compounds[i].layout;
        if (a.map != b.map || a.array != b.array || a.suffixes.size() != b.suffixes.size()) {
          return std::nullopt;
        }
      }
      out->first.set_operands.emplace_back(
          op, std::make_shared<sql::SelectStatement>(std::move(flat->first)));
    }
    return out;
  }
  absl::StatusOr<sql::SelectStatement> rewritten = ExpandCompoundColumns(select, lookup);
  if (!rewritten.ok()) return std::nullopt;
  sql::SelectStatement inner = *std::move(rewritten);
  Source source;
  source.qualifier = alias;  // empty for a subquery without an alias: columns unqualified
  if (!alias.empty()) source.qualifiers = {alias};
  std::vector<ExprPtr> items;
  for (const ExprPtr& item : inner.select) {
    if (item->kind == ExprKind::kStar) return std::nullopt;  // a join's `*`: names unknown here
    const std::string name = ItemName(*item);
    bool flat = IsTupleCall(*item) && !item->args.empty();
    for (const ExprPtr& arg : item->args) flat = flat && !IsTupleCall(*arg);
    source.star.push_back(name);
    if (!flat) {
      items.push_back(item);
      source.schema.columns.push_back(core::ColumnSchema{name, core::TypeId::kUInt8});
      continue;
    }
    Compound compound;
    compound.name = name;
    compound.layout.map = IsMapCall(*item);
    compound.layout.array = IsArrayZipCall(*item);
    compound.layout.element_names = item->element_names;
    for (size_t k = 0; k < item->args.size(); ++k) {
      const std::string suffix = compound.layout.map ? (k == 0 ? "keys" : "values")
                                 : k < item->element_names.size() ? item->element_names[k]
                                                                  : std::to_string(k + 1);
      compound.layout.suffixes.push_back(suffix);
      auto element = std::make_shared<Expr>(*item->args[k]);
      element->alias = core::SubcolumnName(name, suffix);
      source.schema.columns.push_back(core::ColumnSchema{element->alias, core::TypeId::kUInt8});
      items.push_back(std::move(element));
    }
    source.compounds.push_back(std::move(compound));
  }
  inner.select = std::move(items);
  return std::make_pair(std::move(inner), std::move(source));
}

// True when a node of `e` (outside subqueries) calls map(...), passes a tuple or map to a
// function or returns one from a lambda (which the rewrite may lower).
bool CallsMapOrTakesTuple(const Expr& e) {
  if (e.kind != ExprKind::kFunction) return false;
  if (IsCall(e, "map")) return true;
  // a lambda returning a tuple (arrayMap(x -> (x, f(x)), arr) is an array of tuples)
  if (IsCall(e, "lambda") && e.args.size() == 2 && e.args[1] != nullptr &&
      IsTupleCall(*e.args[1])) {
    return true;
  }
  for (const ExprPtr& arg : e.args) {
    if (arg == nullptr) continue;
    if (IsTupleCall(*arg) && !IsCall(e, "tuple") && !IsCall(e, "lambda")) return true;
    if (CallsMapOrTakesTuple(*arg)) return true;
  }
  return false;
}

// The select list with `*` (or `t.*` of the one table) written as the declared columns.
std::vector<ExprPtr> ExpandStar(const std::vector<ExprPtr>& items, const Source& source) {
  std::vector<ExprPtr> out;
  for (const ExprPtr& item : items) {
    if (item->kind != ExprKind::kStar ||
        (!item->qualifier.empty() && !source.Qualifies(item->qualifier))) {
      out.push_back(item);
      continue;
    }
    for (const std::string& name : source.star) {
      out.push_back(sql::MakeColumn(item->qualifier, name, item->position));
    }
  }
  return out;
}

// The select list with `*` over a join written as every relation's declared columns, qualified
// (the USING columns once, first), and `q.*` as relation q's; a name an earlier relation of the
// FROM has is shown as `q.name`, as ClickHouse shows them.
std::vector<ExprPtr> ExpandJoinStar(const std::vector<ExprPtr>& items,
                                    const std::vector<Source>& sources,
                                    const std::vector<sql::JoinClause>& joins) {
  // JOIN ... USING (k): `*` lists each USING column once, first, as ClickHouse does.
  std::vector<std::string> using_names;
  for (const sql::JoinClause& join : joins) {
    for (const std::string& name : join.using_columns) {
      if (std::find(using_names.begin(), using_names.end(), name) == using_names.end()) {
        using_names.push_back(name);
      }
    }
  }
  std::vector<ExprPtr> out;
  for (const ExprPtr& item : items) {
    if (item->kind != ExprKind::kStar) {
      out.push_back(item);
      continue;
    }
    std::set<std::string> earlier;  // the names of the relations before this one
    const std::set<std::string> keys =
        item->qualifier.empty() ? std::set<std::string>(using_names.begin(), using_names.end())
                                : std::set<std::string>();
    for (const std::string& name : using_names) {
      if (keys.count(name)) out.push_back(sql::MakeColumn("", name, item->position));
    }
    for (const Source& source : sources) {
      const bool listed = item->qualifier.empty() || source.Qualifies(item->qualifier);
      for (const std::string& name : source.star) {
        if (!listed || keys.count(name)) continue;
        ExprPtr column = sql::MakeColumn(source.qualifier, name, item->position);
        if (earlier.count(name)) column->alias = source.qualifier + "." + name;
        out.push_back(std::move(column));
      }
      earlier.insert(source.star.begin(), source.star.end());
    }
  }
  return out;
}

// ARRAY JOIN of an Array(Tuple(...)) column `c` written as its arrays: unaliased, `ARRAY JOIN
// c.a, c.b` (zipped), after which `c` and `c.a` name the tuple and its element, as in ClickHouse;
// `ARRAY JOIN c AS x` is `ARRAY JOIN c.a AS x.a, c.b AS x.b`, and `x` is the tuple (a source
// of its own whose compound is `x`).
void ArrayJoinTuples(sql::ArrayJoinClause* clause, std::vector<Source>* sources) {
  std::vector<ExprPtr> arrays;
  for (const ExprPtr& array : clause->arrays) {
    Compound* compound = nullptr;
    if (array->kind == ExprKind::kIdentifier) {
      for (Source& source : *sources) {
        if (!array->qualifier.empty() && !source.Qualifies(array->qualifier)) continue;
        for (Compound& c : source.compounds) {
          if (c.name == array->name && c.layout.array) compound = &c;
        }
      }
    }
    if (compound == nullptr) {
      arrays.push_back(array);
      continue;
    }
    const std::string& alias = array->alias;
    Source element;
    for (const std::string& suffix : compound->layout.suffixes) {
      ExprPtr column = sql::MakeColumn(array->qualifier, core::SubcolumnName(compound->name, suffix),
                                       array->position);
      if (!alias.empty()) {
        column->alias = core::SubcolumnName(alias, suffix);
        element.schema.columns.push_back(core::ColumnSchema{column->alias, core::TypeId::kUInt8});
      }
      arrays.push_back(std::move(column));
    }
    if (alias.empty()) {
      compound->layout = core::ArrayElementLayout(compound->layout);
    } else {
      element.compounds.push_back(Compound{alias, core::ArrayElementLayout(compound->layout)});
      sources->push_back(std::move(element));
    }
  }
  clause->arrays = std::move(arrays);
}

}  // namespace

absl::StatusOr<sql::SelectStatement> ExpandCompoundColumns(const sql::SelectStatement& select,
                                                           const TableSchemaLookup& lookup) {
  std::vector<Source> sources;
  bool any_compound = false;
  // FROM and JOIN subqueries are rewritten here, their tuples and maps flattened for this level.
  std::optional<sql::TableRef> from = select.from;
  std::vector<sql::JoinClause> joins = select.joins;
  auto add_source = [&](sql::TableRef* ref) {
    if (ref->subquery != nullptr) {
      auto flattened = FlattenSubquery(*ref->subquery, ref->alias, lookup);
      if (!flattened) return;
      any_compound = any_compound || !flattened->second.compounds.empty();
      ref->subquery = std::make_shared<sql::SelectStatement>(std::move(flattened->first));
      sources.push_back(std::move(flattened->second));
      return;
    }
    if (std::optional<Source> source = SourceOf(*ref, lookup)) {
      any_compound = any_compound || !source->compounds.empty();
      sources.push_back(*std::move(source));
    }
  };
  if (from) add_source(&*from);
  for (sql::JoinClause& join : joins) add_source(&join.table);
  // Columns with a dot in their name (Nested arrays) are reached as `n.a` too.
  for (const Source& source : sources) {
    for (const core::ColumnSchema& column : source.schema.columns) {
      any_compound = any_compound || column.name.find('.') != std::string::npos;
    }
  }
  bool any_call = false;
  for (const ExprPtr& item : select.select) any_call = any_call || CallsMapOrTakesTuple(*item);
  for (const ExprPtr& clause : {select.where, select.having}) {
    any_call = any_call || (clause != nullptr && CallsMapOrTakesTuple(*clause));
  }
  // `*` over a join with USING lists the USING columns first (ExpandJoinStar).
  const bool using_star =
      std::any_of(select.joins.begin(), select.joins.end(),
                  [](const sql::JoinClause& join) { return !join.using_columns.empty(); }) &&
      std::any_of(select.select.begin(), select.select.end(),
                  [](const ExprPtr& item) { return item->kind == ExprKind::kStar; });
  if (!any_compound && !any_call && !using_star) return select;

  sql::SelectStatement out = select;
  out.from = std::move(from);
  out.joins = std::move(joins);
  const bool joined = !select.joins.empty();
  if (any_compound && !joined && sources.size() == 1) {
    out.select = ExpandStar(out.select, sources[0]);
  } else if ((any_compound || using_star) && joined && sources.size() == out.joins.size() + 1) {
    out.select = ExpandJoinStar(out.select, sources, out.joins);
  }
  for (sql::ArrayJoinClause& clause : out.array_joins) ArrayJoinTuples(&clause, &sources);
  std::vector<std::string> aliases;
  for (const ExprPtr& item : out.select) {
    if (!item->alias.empty()) aliases.push_back(item->alias);
  }
  Rewriter rewriter(std::move(sources), joined, std::move(aliases));
  for (ExprPtr& item : out.select) {
    ExprPtr rewritten = rewriter.Rewrite(item);
    // A rewritten item keeps the name it was written with: `t`, `m['k']`.
    if (rewritten != item && rewritten->alias.empty()) {
      auto named = std::make_shared<Expr>(*rewritten);
      named->alias = sql::ColumnName(*item);
      rewritten = std::move(named);
    }
    rewriter.NoteAlias(rewritten->alias, rewritten);
    item = std::move(rewritten);
  }
  for (ExprPtr* clause : {&out.where, &out.having, &out.qualify}) *clause = rewriter.Rewrite(*clause);
  for (ExprPtr& key : out.group_by) key = rewriter.Rewrite(key);
  for (auto& set : out.grouping_sets) {
    for (ExprPtr& key : set) key = rewriter.Rewrite(key);
  }
  for (sql::OrderItem& item : out.order_by) item.expr = rewriter.Rewrite(item.expr);
  for (ExprPtr& key : out.limit_by) key = rewriter.Rewrite(key);
  for (sql::JoinClause& join : out.joins) join.on = rewriter.Rewrite(join.on);
  for (auto& [name, window] : out.windows) {
    for (ExprPtr& key : window.partition_by) key = rewriter.Rewrite(key);
    for (sql::OrderItem& item : window.order_by) item.expr = rewriter.Rewrite(item.expr);
  }
  for (sql::ArrayJoinClause& clause : out.array_joins) {
    std::vector<ExprPtr> arrays;
    for (const ExprPtr& array : clause.arrays) {
      for (ExprPtr& column : rewriter.ArrayJoinColumns(array)) arrays.push_back(std::move(column));
    }
    clause.arrays = std::move(arrays);
  }
  return out;
}

}  // namespace granite::coordinator

#include "coordinator/exec/tuple_results.h"

#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

#include "core/column.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/status_macros.h"
#include "core/tuple_type.h"
#include "coordinator/planner/tuple_lowering.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {
namespace {

using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

using TupleAliases = std::map<std::string, ExprPtr>;

// Returns `e` with each bare reference to a tuple alias replaced by the tuple (copy on write;
// subqueries keep their own names).
ExprPtr Substitute(const ExprPtr& e, const TupleAliases& aliases) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kIdentifier && e->qualifier.empty()) {
    auto found = aliases.find(e->name);
    if (found == aliases.end()) return e;
    auto copy = std::make_shared<Expr>(*found->second);
    copy->alias = e->alias;
    copy->position = e->position;
    return copy;
  }
  if (e->kind != ExprKind::kFunction) return e;
  std::shared_ptr<Expr> copy;
  for (size_t i = 0; i < e->args.size(); ++i) {
    ExprPtr arg = Substitute(e->args[i], aliases);
    if (arg == e->args[i]) continue;
    if (copy == nullptr) copy = std::make_shared<Expr>(*e);
    copy->args[i] = std::move(arg);
  }
  return copy != nullptr ? copy : e;
}

// Returns the item a positional reference (ORDER BY 2) points at, written out so that it still
// points there once tuple items are split: the item's alias, or the item itself. Anything else
// is returned as it is (an out-of-range position stays for the binder to refuse).
ExprPtr ResolvePositional(const ExprPtr& e, const std::vector<ExprPtr>& items) {
  if (e == nullptr || e->kind != ExprKind::kLiteral || e->is_null) return e;
  const auto* n = std::get_if<uint64_t>(&e->value);
  if (n == nullptr || *n < 1 || *n > items.size()) return e;
  const ExprPtr& item = items[*n - 1];
  if (!item->alias.empty() && !IsTupleCall(*item)) {
    return sql::MakeColumn("", item->alias, e->position);
  }
  auto copy = std::make_shared<Expr>(*item);
  copy->alias.clear();
  return copy;
}

// Appends the elements of `e`, nested tuples flattened, or `e` itself when it is no tuple.
void AppendLeaves(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (!IsTupleCall(*e)) {
    out->push_back(e);
    return;
  }
  for (const ExprPtr& arg : e->args) AppendLeaves(arg, out);
}

// Appends the elements of tuple `e` to `select` as hidden items and returns its shape. A leaf
// keeps its own alias the first time (other clauses may use it); `used` holds the aliases taken.
TupleShape Flatten(const Expr& e, size_t item, std::vector<ExprPtr>* select,
                   std::set<std::string>* used) {
  TupleShape shape;
  shape.tuple = true;
  shape.map = IsMapCall(e);
  shape.array = IsArrayZipCall(e);
  shape.names = e.element_names;
  for (const ExprPtr& arg : e.args) {
    if (IsTupleCall(*arg)) {
      shape.elements.push_back(Flatten(*arg, item, select, used));
      continue;
    }
    auto element = std::make_shared<Expr>(*arg);
    if (element->alias.empty() || !used->insert(element->alias).second) {
      element->alias = "__tuple_" + std::to_string(item) + "_" + std::to_string(select->size());
    }
    TupleShape leaf;
    leaf.column = select->size();
    select->push_back(std::move(element));
    shape.elements.push_back(std::move(leaf));
  }
  return shape;
}

absl::StatusOr<core::TypeId> TypeOfShape(const TupleShape& shape,
                                         const std::vector<core::TypeId>& types) {
  if (!shape.tuple) return types[shape.column];
  std::vector<core::TypeId> elements;
  for (const TupleShape& element : shape.elements) {
    ASSIGN_OR_RETURN(core::TypeId type, TypeOfShape(element, types));
    elements.push_back(type);
  }
  if (shape.map) {
    if (!core::IsArray(elements[0]) || !core::IsArray(elements[1])) {
      return core::Error(core::ErrorCode::kIllegalTypeOfArgument,
                         "mapFromArrays takes two arrays, got " +
                             std::string(core::TypeName(elements[0])) + " and " +
                             std::string(core::TypeName(elements[1])));
    }
    return core::MakeMapType(core::ArrayElementOf(elements[0]), core::ArrayElementOf(elements[1]));
  }
  if (shape.array) {
    for (core::TypeId element : elements) {
      if (!core::IsArray(element)) {
        return core::Error(core::ErrorCode::kIllegalTypeOfArgument,
                           "arrayZip takes arrays, got " + std::string(core::TypeName(element)));
      }
    }
    return core::MakeArrayOfTuplesType(
        std::move(elements),
        shape.names.size() == elements.size() ? shape.names : std::vector<std::string>{});
  }
  return core::MakeTupleType(std::move(elements),
                             shape.names.size() == elements.size() ? shape.names
                                                                   : std::vector<std::string>{});
}

absl::StatusOr<core::ColumnPtr> ColumnOfShape(const TupleShape& shape, core::TypeId type,
                                              const core::Block& block) {
  if (!shape.tuple) return block.columns[shape.column];
  auto column = std::make_shared<core::Column>(type);
  const core::TupleType& tuple = core::TupleTypeOf(type);
  for (size_t i = 0; i < shape.elements.size(); ++i) {
    ASSIGN_OR_RETURN(core::ColumnPtr element,
                     ColumnOfShape(shape.elements[i], tuple.elements[i], block));
    column->MutableElement(i) = *element;
  }
  column->SetSize(block.rows());
  if (tuple.array) {  // arrayZip: every row's arrays of one size
    for (size_t i = 1; i < shape.elements.size(); ++i) {
      for (size_t row = 0; row < block.rows(); ++row) {
        if (column->Element(i).ArraySizeAt(row) == column->Element(0).ArraySizeAt(row)) continue;
        return core::Error(core::kSizesOfArraysDontMatch,
                           "The argument 1 and argument " + std::to_string(i + 1) +
                               " of function arrayZip have different array sizes");
      }
    }
  }
  return core::ColumnPtr(std::move(column));
}

}  // namespace

sql::SelectStatement ExpandTupleKeys(sql::SelectStatement select) {
  std::vector<sql::OrderItem> order_by;
  for (sql::OrderItem& item : select.order_by) {
    if (item.expr == nullptr || !IsTupleCall(*item.expr) || item.fill) {
      order_by.push_back(std::move(item));
      continue;
    }
    std::vector<ExprPtr> elements;
    AppendLeaves(item.expr, &elements);
    for (ExprPtr& element : elements) {
      sql::OrderItem part = item;
      part.expr = std::move(element);
      order_by.push_back(std::move(part));
    }
  }
  select.order_by = std::move(order_by);
  std::vector<ExprPtr> group_by;
  for (ExprPtr& key : select.group_by) {
    if (key != nullptr && IsTupleCall(*key) && !key->args.empty()) {
      AppendLeaves(key, &group_by);
    } else {
      group_by.push_back(std::move(key));
    }
  }
  select.group_by = std::move(group_by);
  return select;
}

std::optional<TupleSplit> SplitSelectTuples(const sql::SelectStatement& select) {
  // Tuple aliases, followed through aliases of aliases: `(1, 2) AS a, a AS b`.
  TupleAliases aliases;
  std::vector<ExprPtr> items = select.select;
  for (size_t pass = 0; pass <= items.size(); ++pass) {
    bool grew = false;
    for (ExprPtr& item : items) {
      item = Substitute(item, aliases);
      if (!item->alias.empty() && IsTupleCall(*item) && !aliases.count(item->alias)) {
        auto tuple = std::make_shared<Expr>(*item);
        tuple->alias.clear();
        aliases.emplace(item->alias, std::move(tuple));
        grew = true;
      }
    }
    if (!grew) break;
  }
  bool any = false;
  for (const ExprPtr& item : items) any = any || IsTupleCall(*item);
  if (!any) return std::nullopt;

  TupleSplit split;
  split.select = select;
  split.select.select.clear();
  std::set<std::string> used;
  for (const ExprPtr& item : items) {
    if (!IsTupleCall(*item) && !item->alias.empty()) used.insert(item->alias);
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const Expr& original = *select.select[i];
    split.names.push_back(original.alias.empty() ? sql::ColumnName(original) : original.alias);
    if (!IsTupleCall(*items[i])) {
      TupleShape plain;
      plain.column = split.select.select.size();
      split.select.select.push_back(items[i]);
      split.outputs.push_back(std::move(plain));
      continue;
    }
    split.outputs.push_back(Flatten(*items[i], i, &split.select.select, &used));
  }
  if (split.select.select.empty()) {
    // Only empty tuples (`SELECT tuple()`): one constant keeps the rows' count.
    split.select.select.push_back(sql::MakeFlag(false, 0));
  }
  sql::SelectStatement& out = split.select;
  for (ExprPtr& key : out.group_by) key = ResolvePositional(key, items);
  for (sql::OrderItem& item : out.order_by) item.expr = ResolvePositional(item.expr, items);
  out.where = Substitute(out.where, aliases);
  out.having = Substitute(out.having, aliases);
  out.qualify = Substitute(out.qualify, aliases);
  for (ExprPtr& key : out.group_by) key = Substitute(key, aliases);
  for (ExprPtr& key : out.limit_by) key = Substitute(key, aliases);
  for (sql::OrderItem& item : out.order_by) item.expr = Substitute(item.expr, aliases);
  split.select = ExpandTupleKeys(std::move(split.select));
  return split;
}

absl::StatusOr<std::vector<core::TypeId>> TupleOutputTypes(const TupleSplit& split,
                                                          const std::vector<core::TypeId>& types) {
  // A `*` of the split SELECT expands when it runs (to no column without FROM), so its columns
  // need not be the items the shapes were numbered by.
  if (types.size() != split.select.select.size()) {
    return core::Error(core::ErrorCode::kNotImplemented,
                       absl::StrCat("A tuple beside * in one SELECT list: ", types.size(),
                                    " columns for ", split.select.select.size(), " items"));
  }
  std::vector<core::TypeId> out;
  for (const TupleShape& shape : split.outputs) {
    ASSIGN_OR_RETURN(core::TypeId type, TypeOfShape(shape, types));
    out.push_back(type);
  }
  return out;
}

absl::StatusOr<core::Block> AssembleTuples(const TupleSplit& split,
                                           const std::vector<core::TypeId>& types,
                                           const core::Block& block) {
  core::Block out;
  for (size_t i = 0; i < split.outputs.size(); ++i) {
    ASSIGN_OR_RETURN(core::ColumnPtr column, ColumnOfShape(split.outputs[i], types[i], block));
    out.columns.push_back(std::move(column));
  }
  out.rows_without_columns = block.rows();
  return out;
}

absl::Status TupleResultSink::Begin(const std::vector<std::string>& names,
                                    const std::vector<core::TypeId>& types,
                                    const std::string& format) {
  ASSIGN_OR_RETURN(types_, TupleOutputTypes(*split_, types));
  return next_->Begin(split_->names, types_, format);
}

absl::StatusOr<bool> TupleResultSink::Push(const core::Block& block) {
  ASSIGN_OR_RETURN(core::Block assembled, AssembleTuples(*split_, types_, block));
  return next_->Push(assembled);
}

namespace {

// Whether two shapes nest the same tuples (column indexes aside).
bool SameStructure(const TupleShape& a, const TupleShape& b) {
  if (a.tuple != b.tuple || a.map != b.map || a.array != b.array ||
      a.elements.size() != b.elements.size()) {
    return false;
  }
  for (size_t i = 0; i < a.elements.size(); ++i) {
    if (!SameStructure(a.elements[i], b.elements[i])) return false;
  }
  return true;
}

// The shape that puts a split operand's columns in place: one column per item that is no tuple.
TupleShape PlainShape(size_t column) {
  TupleShape shape;
  shape.column = column;
  return shape;
}

}  // namespace

absl::StatusOr<std::optional<TupleSplit>> SplitSetOperationTuples(
    const sql::SelectStatement& select) {
  sql::SelectStatement first = select;
  first.set_operands.clear();
  std::vector<const sql::SelectStatement*> operands = {&first};
  for (const auto& [op, operand] : select.set_operands) operands.push_back(operand.get());
  std::vector<std::optional<TupleSplit>> splits;
  bool any = false;
  for (const sql::SelectStatement* operand : operands) {
    if (!operand->set_operands.empty()) return std::nullopt;  // nested: left to the binder
    splits.push_back(SplitSelectTuples(*operand));
    any = any || splits.back().has_value();
  }
  if (!any) return std::nullopt;
  // Every operand as a split (one without tuples as its own items, shapes plain).
  for (size_t k = 0; k < operands.size(); ++k) {
    if (splits[k]) continue;
    TupleSplit plain;
    plain.select = *operands[k];
    for (size_t i = 0; i < operands[k]->select.size(); ++i) {
      plain.outputs.push_back(PlainShape(i));
      const sql::Expr& item = *operands[k]->select[i];
      plain.names.push_back(item.alias.empty() ? sql::ColumnName(item) : item.alias);
    }
    splits[k] = std::move(plain);
  }
  const TupleSplit& lead = *splits[0];
  for (size_t k = 1; k < splits.size(); ++k) {
    const TupleSplit& other = *splits[k];
    bool same = other.outputs.size() == lead.outputs.size() &&
                other.select.select.size() == lead.select.select.size();
    for (size_t i = 0; same && i < lead.outputs.size(); ++i) {
      same = SameStructure(lead.outputs[i], other.outputs[i]);
    }
    if (!same) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "The operands of a UNION, INTERSECT or EXCEPT must have tuples (and maps, "
                         "arrays of tuples) of the same shape in the same places");
    }
  }
  TupleSplit out = lead;
  for (size_t k = 1; k < splits.size(); ++k) {
    out.select.set_operands.emplace_back(
        select.set_operands[k - 1].first,
        std::make_shared<sql::SelectStatement>(std::move(splits[k]->select)));
  }
  return out;
}

}  // namespace granite::coordinator

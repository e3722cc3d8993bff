#include "coordinator/sql/ast_equal.h"

namespace granite::coordinator::sql {
namespace {

// A new field of these structs must be compared below: the sizes of this platform's layout
// (x86-64, libstdc++) stop the build until it is.
static_assert(sizeof(void*) != 8 || sizeof(Expr) == 304, "compare the new Expr field in SameExpr");
static_assert(sizeof(void*) != 8 || sizeof(SelectStatement) == 656,
              "compare the new SelectStatement field in SameSelect");
static_assert(sizeof(void*) != 8 || sizeof(TableRef) == 168, "compare the new TableRef field");
static_assert(sizeof(void*) != 8 || sizeof(JoinClause) == 232, "compare the new JoinClause field");
static_assert(sizeof(void*) != 8 || sizeof(WindowSpec) == 144, "compare the new WindowSpec field");
static_assert(sizeof(void*) != 8 || sizeof(OrderItem) == 80, "compare the new OrderItem field");

template <typename T, typename Same>
bool SameList(const std::vector<T>& a, const std::vector<T>& b, Same same) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}

bool SameExprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  return SameList(a, b, [](const ExprPtr& x, const ExprPtr& y) { return SameExpr(x, y); });
}

bool SameBound(const FrameBound& a, const FrameBound& b) {
  return a.kind == b.kind && SameExpr(a.offset, b.offset);
}

bool SameFill(const std::optional<WithFill>& a, const std::optional<WithFill>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (SameExpr(a->from, b->from) && SameExpr(a->to, b->to) &&
                SameExpr(a->step, b->step));
}

bool SameOrder(const OrderItem& a, const OrderItem& b) {
  return SameExpr(a.expr, b.expr) && a.descending == b.descending &&
         a.nulls_first == b.nulls_first && SameFill(a.fill, b.fill);
}

bool SameOrders(const std::vector<OrderItem>& a, const std::vector<OrderItem>& b) {
  return SameList(a, b, SameOrder);
}

bool SameWindow(const WindowSpec& a, const WindowSpec& b) {
  if (a.base != b.base || !SameExprs(a.partition_by, b.partition_by) ||
      !SameOrders(a.order_by, b.order_by) || a.frame.has_value() != b.frame.has_value()) {
    return false;
  }
  return !a.frame || (a.frame->rows == b.frame->rows && SameBound(a.frame->begin, b.frame->begin) &&
                      SameBound(a.frame->end, b.frame->end));
}

bool SameExpansion(const std::shared_ptr<const ArrayJoinExpansion>& a,
                   const std::shared_ptr<const ArrayJoinExpansion>& b) {
  if (!a || !b) return !a && !b;
  return a->left == b->left && a->columns == b->columns && a->not_in_star == b->not_in_star;
}

bool SameTable(const TableRef& a, const TableRef& b) {
  return a.database == b.database && a.name == b.name && a.is_function == b.is_function &&
         SameExprs(a.args, b.args) && SameSelect(a.subquery, b.subquery) &&
         SameExpansion(a.array_join, b.array_join) && a.alias == b.alias;
}

bool SameJoin(const JoinClause& a, const JoinClause& b) {
  return a.kind == b.kind && a.strictness == b.strictness && a.comma == b.comma &&
         SameTable(a.table, b.table) && SameExpr(a.on, b.on) && a.using_columns == b.using_columns;
}

bool SameWith(const WithItem& a, const WithItem& b) {
  return a.name == b.name && SameSelect(a.subquery, b.subquery) && SameExpr(a.expr, b.expr);
}

bool SameArrayJoin(const ArrayJoinClause& a, const ArrayJoinClause& b) {
  return a.left == b.left && SameExprs(a.arrays, b.arrays);
}

bool SameInterpolate(const std::optional<std::vector<InterpolateItem>>& a,
                     const std::optional<std::vector<InterpolateItem>>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || SameList(*a, *b, [](const InterpolateItem& x, const InterpolateItem& y) {
           return x.column == y.column && SameExpr(x.expr, y.expr);
         });
}

}  // namespace

bool SameExpr(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return !a && !b;
  return a == b || SameExpr(*a, *b);
}

bool SameSelect(const SelectPtr& a, const SelectPtr& b) {
  if (!a || !b) return !a && !b;
  return a == b || SameSelect(*a, *b);
}

bool SameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.is_null != b.is_null || a.value != b.value ||
      a.number_text != b.number_text || a.literal_type != b.literal_type || a.name != b.name ||
      a.qualifier != b.qualifier || a.distinct != b.distinct ||
      a.element_names != b.element_names || a.alias != b.alias || a.set != b.set ||
      !SameExprs(a.args, b.args) || !SameSelect(a.subquery, b.subquery)) {
    return false;
  }
  if (!a.over || !b.over) return !a.over && !b.over;
  return SameWindow(*a.over, *b.over);
}

bool SameSelect(const SelectStatement& a, const SelectStatement& b) {
  if (a.distinct != b.distinct || a.grouping_sets_written != b.grouping_sets_written ||
      a.with_totals != b.with_totals || a.group_by_all != b.group_by_all ||
      a.order_by_all != b.order_by_all || a.order_by_all_descending != b.order_by_all_descending ||
      a.limit_by_limit != b.limit_by_limit || a.limit_by_offset != b.limit_by_offset ||
      a.limit != b.limit || a.offset != b.offset || a.format != b.format ||
      a.settings != b.settings || a.in_reduced != b.in_reduced ||
      a.from.has_value() != b.from.has_value()) {
    return false;
  }
  if (a.from && !SameTable(*a.from, *b.from)) return false;
  return SameList(a.with, b.with, SameWith) && SameExprs(a.select, b.select) &&
         SameList(a.joins, b.joins, SameJoin) &&
         SameList(a.array_joins, b.array_joins, SameArrayJoin) &&
         SameExpr(a.where, b.where) && SameExprs(a.group_by, b.group_by) &&
         SameList(a.grouping_sets, b.grouping_sets, SameExprs) && SameExpr(a.having, b.having) &&
         SameList(a.windows, b.windows,
                  [](const auto& x, const auto& y) {
                    return x.first == y.first && SameWindow(x.second, y.second);
                  }) &&
         SameExpr(a.qualify, b.qualify) && SameOrders(a.order_by, b.order_by) &&
         SameExprs(a.limit_by, b.limit_by) && SameInterpolate(a.interpolate, b.interpolate) &&
         SameList(a.set_operands, b.set_operands, [](const auto& x, const auto& y) {
           return x.first == y.first && SameSelect(x.second, y.second);
         });
}

}  // namespace granite::coordinator::sql

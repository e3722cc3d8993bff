#include "coordinator/sql/expr_rewriter.h"

#include <memory>
#include <utility>
#include <variant>

#include "coordinator/sql/parser.h"
#include "core/status_macros.h"

namespace granite::coordinator::sql {
namespace {

class Rewriter {
 public:
  explicit Rewriter(const ExprReplacer& replace) : replace_(replace) {}

  // Returns a copy of `expr` with the replacements, or null when it has none. A replaced node
  // keeps its alias.
  absl::StatusOr<ExprPtr> Rewrite(const ExprPtr& expr) {
    if (expr == nullptr) return ExprPtr();
    std::string name;
    ASSIGN_OR_RETURN(ExprPtr replaced, replace_(*expr, &name));
    if (replaced != nullptr) {
      if (replaced->alias.empty()) replaced->alias = expr->alias;
      return replaced;
    }
    ExprPtr copy;
    if (expr->kind == ExprKind::kSubquery && expr->subquery != nullptr) {
      ASSIGN_OR_RETURN(SelectPtr inner, Subquery(expr->subquery));
      if (inner != nullptr) {
        copy = std::make_shared<Expr>(*expr);
        copy->subquery = std::move(inner);
      }
    }
    for (size_t i = 0; i < expr->args.size(); ++i) {
      ASSIGN_OR_RETURN(ExprPtr arg, Rewrite(expr->args[i]));
      if (arg == nullptr) continue;
      if (copy == nullptr) copy = std::make_shared<Expr>(*expr);
      copy->args[i] = std::move(arg);
    }
    return copy;
  }

  // Replaces `*expr` when it has replacements; returns whether it did.
  absl::StatusOr<bool> InPlace(ExprPtr* expr) {
    ASSIGN_OR_RETURN(ExprPtr rewritten, Rewrite(*expr));
    if (rewritten == nullptr) return false;
    *expr = std::move(rewritten);
    return true;
  }

  absl::StatusOr<bool> Select(SelectStatement* select) {
    bool changed = false;
    for (ExprPtr& item : select->select) {
      // A replaced top-level item keeps the column name of what was written.
      std::string column = item->kind == ExprKind::kStar ? std::string() : ColumnName(*item);
      ASSIGN_OR_RETURN(ExprPtr replaced, replace_(*item, &column));
      if (replaced != nullptr) {
        replaced->alias = item->alias.empty() ? column : item->alias;
        item = std::move(replaced);
        changed = true;
        continue;
      }
      ASSIGN_OR_RETURN(bool done, InPlace(&item));
      changed |= done;
    }
    for (ExprPtr* expr : {&select->where, &select->having}) {
      ASSIGN_OR_RETURN(bool done, InPlace(expr));
      changed |= done;
    }
    for (ExprPtr& key : select->group_by) {
      ASSIGN_OR_RETURN(bool done, InPlace(&key));
      changed |= done;
    }
    for (OrderItem& item : select->order_by) {
      ASSIGN_OR_RETURN(bool done, InPlace(&item.expr));
      changed |= done;
    }
    if (select->from) {
      ASSIGN_OR_RETURN(bool done, Table(&*select->from));
      changed |= done;
    }
    for (JoinClause& join : select->joins) {
      ASSIGN_OR_RETURN(bool table, Table(&join.table));
      ASSIGN_OR_RETURN(bool on, InPlace(&join.on));
      changed |= table || on;
    }
    for (WithItem& with : select->with) {
      ASSIGN_OR_RETURN(bool done, InPlace(&with.expr));
      changed |= done;
      ASSIGN_OR_RETURN(bool inner, SubqueryInPlace(&with.subquery));
      changed |= inner;
    }
    for (auto& [op, operand] : select->set_operands) {
      ASSIGN_OR_RETURN(bool done, SubqueryInPlace(&operand));
      changed |= done;
    }
    return changed;
  }

  // Returns a rewritten copy of `select`, or null when it has no replacements.
  absl::StatusOr<SelectPtr> Subquery(const SelectPtr& select) {
    if (select == nullptr) return SelectPtr();
    auto copy = std::make_shared<SelectStatement>(*select);
    ASSIGN_OR_RETURN(bool changed, Select(copy.get()));
    return changed ? copy : SelectPtr();
  }

  absl::StatusOr<bool> SubqueryInPlace(SelectPtr* select) {
    ASSIGN_OR_RETURN(SelectPtr rewritten, Subquery(*select));
    if (rewritten == nullptr) return false;
    *select = std::move(rewritten);
    return true;
  }

  // A FROM or JOIN table: table-function arguments and a subquery.
  absl::StatusOr<bool> Table(TableRef* table) {
    bool changed = false;
    for (ExprPtr& arg : table->args) {
      ASSIGN_OR_RETURN(bool done, InPlace(&arg));
      changed |= done;
    }
    ASSIGN_OR_RETURN(bool inner, SubqueryInPlace(&table->subquery));
    return changed || inner;
  }

 private:
  const ExprReplacer& replace_;
};

}  // namespace

absl::StatusOr<std::optional<Statement>> RewriteExprs(const Statement& statement,
                                                     const ExprReplacer& replace) {
  Rewriter rewriter(replace);
  Statement copy = statement;
  bool changed = false;
  if (auto* select = std::get_if<SelectStatement>(&copy)) {
    ASSIGN_OR_RETURN(changed, rewriter.Select(select));
  } else if (auto* explain = std::get_if<ExplainStatement>(&copy)) {
    ASSIGN_OR_RETURN(changed, rewriter.Select(&explain->select));
  } else if (auto* kill = std::get_if<KillQueryStatement>(&copy)) {
    ASSIGN_OR_RETURN(changed, rewriter.InPlace(&kill->where));
  } else if (auto* insert = std::get_if<InsertStatement>(&copy)) {
    if (insert->select) {
      auto select_copy = std::make_shared<SelectStatement>(*insert->select);
      ASSIGN_OR_RETURN(changed, rewriter.Select(select_copy.get()));
      insert->select = std::move(select_copy);
    }
    for (auto& row : insert->values) {
      for (ExprPtr& value : row) {
        ASSIGN_OR_RETURN(bool done, rewriter.InPlace(&value));
        changed |= done;
      }
    }
  }
  if (!changed) return std::optional<Statement>();
  return std::optional<Statement>(std::move(copy));
}

}  // namespace granite::coordinator::sql

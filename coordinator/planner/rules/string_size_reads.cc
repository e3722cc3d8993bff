#include "coordinator/planner/rules/string_size_reads.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/functions/expr_builder.h"
#include "core/types.h"

namespace granite::coordinator {

namespace {

constexpr uint8_t kSizeUse = 1;
constexpr uint8_t kOtherUse = 2;

bool IsStringColumn(const core::plan::Expr& expr, size_t columns) {
  return expr.is_column() && expr.column < columns && expr.type == core::TypeId::kString;
}

bool IsEmptyStringLiteral(const core::plan::Expr& expr) {
  const std::string* text = std::get_if<std::string>(&expr.literal);
  return expr.is_literal() && text != nullptr && text->empty();
}

// What a size-only call turns into.
enum class SizeForm { kNone, kLength, kIsEmpty, kIsNotEmpty };

// Returns the form of `expr` when it is a size-only use of a String column, and that column.
SizeForm SizeUse(const core::plan::Expr& expr, size_t columns, uint32_t* column) {
  if (!expr.is_call()) return SizeForm::kNone;
  const core::plan::Expr& call = expr;
  const std::string& name = call.function;
  if (call.args.size() == 1 && IsStringColumn(call.args[0], columns)) {
    *column = call.args[0].column;
    if (name == "length") return SizeForm::kLength;
    if (name == "empty") return SizeForm::kIsEmpty;
    if (name == "notEmpty") return SizeForm::kIsNotEmpty;
    return SizeForm::kNone;
  }
  if (call.args.size() == 2 && (name == "equals" || name == "notEquals")) {
    const core::plan::Expr* target = nullptr;
    if (IsStringColumn(call.args[0], columns) && IsEmptyStringLiteral(call.args[1])) {
      target = &call.args[0];
    } else if (IsStringColumn(call.args[1], columns) && IsEmptyStringLiteral(call.args[0])) {
      target = &call.args[1];
    }
    if (target == nullptr) return SizeForm::kNone;
    *column = target->column;
    return name == "equals" ? SizeForm::kIsEmpty : SizeForm::kIsNotEmpty;
  }
  return SizeForm::kNone;
}

void Classify(const core::plan::Expr& expr, std::vector<uint8_t>* uses) {
  uint32_t column = 0;
  if (SizeUse(expr, uses->size(), &column) != SizeForm::kNone) {
    (*uses)[column] |= kSizeUse;
    return;
  }
  if (expr.is_column()) {
    if (expr.column < uses->size()) (*uses)[expr.column] |= kOtherUse;
    return;
  }
  if (expr.is_call()) {
    for (const core::plan::Expr& arg : expr.args) Classify(arg, uses);
  }
}

void Rewrite(const std::vector<bool>& sizes, core::plan::Expr* expr) {
  uint32_t column = 0;
  SizeForm form = SizeUse(*expr, sizes.size(), &column);
  if (form != SizeForm::kNone && sizes[column]) {
    core::plan::Expr size = core::Col(column, core::TypeId::kUInt64);
    if (form == SizeForm::kLength) {
      *expr = std::move(size);  // length() is UInt64 already
      return;
    }
    *expr = core::Call(form == SizeForm::kIsEmpty ? "equals" : "notEquals", expr->type,
                       {std::move(size), core::Lit(uint64_t{0}, core::TypeId::kUInt64)});
    return;
  }
  if (expr->is_call()) {
    for (core::plan::Expr& arg : expr->args) Rewrite(sizes, &arg);
  }
}

}  // namespace

std::vector<bool> ReadStringsAsSizes(core::plan::Fragment* fragment) {
  size_t columns = fragment->scan.columns.size();
  std::vector<bool> sizes(columns, false);
  if (!fragment->scan.is_table()) return sizes;
  std::vector<uint8_t> uses(columns, 0);
  if (fragment->filter) Classify(*fragment->filter, &uses);
  for (const core::plan::Expr& expr : fragment->projections) Classify(expr, &uses);
  if (fragment->aggregate) {
    for (const core::plan::Expr& expr : fragment->aggregate->keys) Classify(expr, &uses);
    for (const core::plan::AggregateCall& call : fragment->aggregate->calls) {
      for (const core::plan::Expr& arg : call.args) Classify(arg, &uses);
    }
  }
  bool any = false;
  for (size_t c = 0; c < columns; ++c) {
    sizes[c] = uses[c] == kSizeUse;
    any = any || sizes[c];
  }
  if (!any) return sizes;
  if (fragment->filter) Rewrite(sizes, &*fragment->filter);
  for (core::plan::Expr& expr : fragment->projections) Rewrite(sizes, &expr);
  if (fragment->aggregate) {
    for (core::plan::Expr& expr : fragment->aggregate->keys) Rewrite(sizes, &expr);
    for (core::plan::AggregateCall& call : fragment->aggregate->calls) {
      for (core::plan::Expr& arg : call.args) Rewrite(sizes, &arg);
    }
  }
  return sizes;
}

bool ApplyStringSizeReads(QueryPlan* plan, const RuleContext&) {
  core::plan::Fragment& fragment = plan->fragment;
  if (!plan->settings.optimize_functions_to_subcolumns || plan->source != SourceKind::kWorkers) {
    return false;
  }
  std::optional<core::plan::Expr> original = fragment.filter;
  std::vector<bool> sizes = ReadStringsAsSizes(&fragment);
  if (std::find(sizes.begin(), sizes.end(), true) == sizes.end()) return false;
  fragment.scan.string_sizes = std::move(sizes);
  if (original != fragment.filter) fragment.scan.prune_filter = std::move(original);
  return true;
}

}  // namespace granite::coordinator

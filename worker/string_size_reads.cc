#include "worker/string_size_reads.h"

#include <cstdint>
#include <string>

#include "core/types.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

namespace {

constexpr uint8_t kSizeUse = 1;
constexpr uint8_t kOtherUse = 2;

bool IsStringColumn(const pb::Expr& expr, size_t columns) {
  return expr.node_case() == pb::Expr::kColumn && expr.column() < columns &&
         static_cast<core::TypeId>(expr.type()) == core::TypeId::kString;
}

bool IsEmptyStringLiteral(const pb::Expr& expr) {
  return expr.node_case() == pb::Expr::kLiteral &&
         expr.literal().kind_case() == pb::Value::kStringValue &&
         expr.literal().string_value().empty();
}

// What a size-only call turns into.
enum class SizeForm { kNone, kLength, kIsEmpty, kIsNotEmpty };

// Returns the form of `expr` when it is a size-only use of a String column, and that column.
SizeForm SizeUse(const pb::Expr& expr, size_t columns, uint32_t* column) {
  if (expr.node_case() != pb::Expr::kCall) return SizeForm::kNone;
  const pb::FunctionCall& call = expr.call();
  const std::string& name = call.name();
  if (call.args_size() == 1 && IsStringColumn(call.args(0), columns)) {
    *column = call.args(0).column();
    if (name == "length") return SizeForm::kLength;
    if (name == "empty") return SizeForm::kIsEmpty;
    if (name == "notEmpty") return SizeForm::kIsNotEmpty;
    return SizeForm::kNone;
  }
  if (call.args_size() == 2 && (name == "equals" || name == "notEquals")) {
    const pb::Expr* target = nullptr;
    if (IsStringColumn(call.args(0), columns) && IsEmptyStringLiteral(call.args(1))) {
      target = &call.args(0);
    } else if (IsStringColumn(call.args(1), columns) && IsEmptyStringLiteral(call.args(0))) {
      target = &call.args(1);
    }
    if (target == nullptr) return SizeForm::kNone;
    *column = target->column();
    return name == "equals" ? SizeForm::kIsEmpty : SizeForm::kIsNotEmpty;
  }
  return SizeForm::kNone;
}

void Classify(const pb::Expr& expr, std::vector<uint8_t>* uses) {
  uint32_t column = 0;
  if (SizeUse(expr, uses->size(), &column) != SizeForm::kNone) {
    (*uses)[column] |= kSizeUse;
    return;
  }
  if (expr.node_case() == pb::Expr::kColumn) {
    if (expr.column() < uses->size()) (*uses)[expr.column()] |= kOtherUse;
    return;
  }
  if (expr.node_case() == pb::Expr::kCall) {
    for (const pb::Expr& arg : expr.call().args()) Classify(arg, uses);
  }
}

void Rewrite(const std::vector<bool>& sizes, pb::Expr* expr) {
  uint32_t column = 0;
  SizeForm form = SizeUse(*expr, sizes.size(), &column);
  if (form != SizeForm::kNone && sizes[column]) {
    pb::Expr size;
    size.set_type(static_cast<uint32_t>(core::TypeId::kUInt64));
    size.set_column(column);
    if (form == SizeForm::kLength) {
      *expr = size;  // length() is UInt64 already
      return;
    }
    uint32_t result_type = expr->type();
    expr->Clear();
    expr->set_type(result_type);
    pb::FunctionCall* call = expr->mutable_call();
    call->set_name(form == SizeForm::kIsEmpty ? "equals" : "notEquals");
    *call->add_args() = size;
    pb::Expr* zero = call->add_args();
    zero->set_type(static_cast<uint32_t>(core::TypeId::kUInt64));
    zero->mutable_literal()->set_uint_value(0);
    return;
  }
  if (expr->node_case() == pb::Expr::kCall) {
    for (pb::Expr& arg : *expr->mutable_call()->mutable_args()) Rewrite(sizes, &arg);
  }
}

}  // namespace

std::vector<bool> ReadStringsAsSizes(pb::Fragment* fragment) {
  size_t columns = fragment->source().columns_size();
  std::vector<bool> sizes(columns, false);
  if (fragment->source().kind_case() != pb::Source::kTable) return sizes;
  std::vector<uint8_t> uses(columns, 0);
  if (fragment->has_filter()) Classify(fragment->filter(), &uses);
  for (const pb::Expr& expr : fragment->projections()) Classify(expr, &uses);
  for (const pb::Expr& expr : fragment->group_keys()) Classify(expr, &uses);
  for (const pb::AggregateCall& call : fragment->aggregates()) {
    for (const pb::Expr& arg : call.args()) Classify(arg, &uses);
  }
  bool any = false;
  for (size_t c = 0; c < columns; ++c) {
    sizes[c] = uses[c] == kSizeUse;
    any = any || sizes[c];
  }
  if (!any) return sizes;
  if (fragment->has_filter()) Rewrite(sizes, fragment->mutable_filter());
  for (pb::Expr& expr : *fragment->mutable_projections()) Rewrite(sizes, &expr);
  for (pb::Expr& expr : *fragment->mutable_group_keys()) Rewrite(sizes, &expr);
  for (pb::AggregateCall& call : *fragment->mutable_aggregates()) {
    for (pb::Expr& arg : *call.mutable_args()) Rewrite(sizes, &arg);
  }
  return sizes;
}

}  // namespace granite::worker

#include "coordinator/sql/ast_build.h"

#include <string>
#include <type_traits>
#include <utility>

#include "core/value_text.h"

namespace granite::coordinator::sql {

ExprPtr MakeCall(std::string name, std::vector<ExprPtr> args) {
  auto call = std::make_shared<Expr>();
  call->kind = ExprKind::kFunction;
  call->name = std::move(name);
  call->args = std::move(args);
  if (!call->args.empty()) call->position = call->args[0]->position;
  return call;
}

ExprPtr MakeLiteral(core::Value value) {
  auto literal = std::make_shared<Expr>();
  literal->kind = ExprKind::kLiteral;
  literal->value = std::move(value);
  return literal;
}

ExprPtr MakeFlag(bool value, size_t position) {
  ExprPtr literal = MakeLiteral(core::Value(uint64_t{value ? 1u : 0u}));
  literal->literal_type = core::TypeId::kUInt8;
  literal->position = position;
  return literal;
}

ExprPtr MakeColumn(const std::string& qualifier, const std::string& name, size_t position) {
  auto id = std::make_shared<Expr>();
  id->kind = ExprKind::kIdentifier;
  id->qualifier = qualifier;
  id->name = name;
  id->position = position;
  return id;
}

void SplitAnd(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e == nullptr) return;
  if (e->kind == ExprKind::kFunction && e->name == "and") {
    for (const ExprPtr& arg : e->args) SplitAnd(arg, out);
    return;
  }
  out->push_back(e);
}

ExprPtr JoinAnd(std::vector<ExprPtr> conjuncts) {
  if (conjuncts.empty()) return nullptr;
  if (conjuncts.size() == 1) return conjuncts[0];
  return MakeCall("and", std::move(conjuncts));
}

bool ContainsSubquery(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  for (const ExprPtr& arg : e.args) {
    if (ContainsSubquery(*arg)) return true;
  }
  return false;
}

ExprPtr LiteralOf(const core::Column& column, size_t row, size_t position) {
  auto literal = std::make_shared<Expr>();
  literal->kind = ExprKind::kLiteral;
  literal->position = position;
  literal->literal_type = column.type();
  if (core::HasStringLayout(column.type()) || core::IsDecimal(column.type()) ||
      core::IsUuid(column.type()) || core::IsDateTime64(column.type()) ||
      core::IsArray(column.type())) {
    // A decimal, UUID, DateTime64 or array travels as its exact text, which the literal's type
    // parses back (a number would be read as a scaled value or not fit).
    std::string text;
    core::AppendValueText(column, row, &text);
    literal->value = std::move(text);
    return literal;
  }
  core::DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T v = column.Get<T>(row);
    if constexpr (std::is_floating_point_v<T>) {
      literal->value = static_cast<double>(v);
    } else if constexpr (std::is_signed_v<T>) {
      literal->value = static_cast<int64_t>(v);
    } else {
      literal->value = static_cast<uint64_t>(v);
    }
  });
  return literal;
}

SelectStatement WithOuterSettings(const SelectStatement& inner, const SelectStatement& outer) {
  SelectStatement out = inner;
  for (const auto& [name, value] : outer.settings) out.settings.emplace(name, value);
  return out;
}

SelectStatement CountStatement(const TableRef& table, ExprPtr where,
                               std::optional<uint64_t> limit) {
  SelectStatement count;
  count.select.push_back(MakeCall("count", {}));
  if (!limit || !where) {
    count.from = table;
    count.where = std::move(where);
    return count;
  }
  auto read = std::make_shared<SelectStatement>();
  ExprPtr one = MakeLiteral(uint64_t{1});
  one->alias = "_one";
  read->select.push_back(std::move(one));
  read->from = table;
  read->where = std::move(where);
  read->limit = *limit;
  TableRef from;
  from.subquery = std::move(read);
  count.from = std::move(from);
  return count;
}

}  // namespace granite::coordinator::sql

#include "core/functions/operand_caster.h"

#include "core/functions/cast_column.h"
#include "core/functions/constant_column.h"
#include "core/status_macros.h"

namespace granite::core {

absl::StatusOr<ColumnPtr> ConstantAs(const ArgumentInfo& arg, TypeId to) {
  ASSIGN_OR_RETURN(ColumnPtr column, MakeConstantColumn(*arg.constant, arg.type));
  return CastColumn(column, to);
}

absl::StatusOr<OperandCaster> OperandCaster::Create(const std::vector<ArgumentInfo>& args,
                                                    const std::vector<TypeId>& targets) {
  OperandCaster caster;
  caster.targets_ = targets;
  caster.constants_.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].constant) {
      ASSIGN_OR_RETURN(caster.constants_[i], ConstantAs(args[i], targets[i]));
    }
  }
  return caster;
}

absl::StatusOr<Operand> OperandCaster::Cast(size_t i, const Operand& operand) const {
  if (operand.is_constant && constants_[i] != nullptr) return Operand{constants_[i], true};
  ASSIGN_OR_RETURN(ColumnPtr column, CastColumn(operand.column, targets_[i]));
  return Operand{std::move(column), operand.is_constant};
}

absl::StatusOr<std::vector<Operand>> OperandCaster::CastAll(
    const std::vector<Operand>& operands) const {
  std::vector<Operand> out;
  out.reserve(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    ASSIGN_OR_RETURN(Operand cast, Cast(i, operands[i]));
    out.push_back(std::move(cast));
  }
  return out;
}

}  // namespace granite::core

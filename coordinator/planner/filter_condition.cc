#include "coordinator/planner/filter_condition.h"

#include <string>

#include "coordinator/planner/select_binder.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/types.h"

namespace granite::coordinator {

absl::StatusOr<core::plan::Expr> AsFilterCondition(core::plan::Expr bound,
                                                            std::string_view clause,
                                                            size_t position) {
  const core::TypeId type = TypeOf(bound);
  // Nullable(UInt8) and NULL filter as they are: the value under a NULL is 0, so NULL is false.
  const core::TypeId nested = core::RemoveNullable(type);
  if (nested == core::TypeId::kUInt8 || nested == core::TypeId::kBool ||
      nested == core::TypeId::kNothing) {
    return bound;  // one byte per row, 0 or not: the mask as it is
  }
  if (!core::IsNumeric(type)) {  // as WHERE (binder.cc) accepts: numbers, Date, DateTime
    return ErrorAt(core::ErrorCode::kIllegalTypeOfArgument,
                   "Illegal type " + std::string(core::TypeName(type)) + " of column for filter in " +
                       std::string(clause) + ": it must be a number",
                   position);
  }
  return core::Call("notEquals", core::TypeId::kUInt8,
                    {std::move(bound), core::Lit(uint64_t{0}, core::TypeId::kUInt8)});
}

}  // namespace granite::coordinator

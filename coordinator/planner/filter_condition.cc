#include "coordinator/planner/filter_condition.h"

#include <string>

#include "coordinator/planner/select_binder.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/types.h"

namespace granite::coordinator {

absl::StatusOr<granite::worker::v1::Expr> AsFilterCondition(granite::worker::v1::Expr bound,
                                                            std::string_view clause,
                                                            size_t position) {
  const core::TypeId type = TypeOf(bound);
  if (type == core::TypeId::kUInt8) return bound;
  if (!core::IsNumeric(type)) {  // as WHERE (binder.cc) accepts: numbers, Date, DateTime
    return ErrorAt(core::ErrorCode::kIllegalTypeOfArgument,
                   "Illegal type " + std::string(core::TypeName(type)) + " of column for filter in " +
                       std::string(clause) + ": it must be a number",
                   position);
  }
  granite::worker::v1::Expr wrapped;
  wrapped.set_type(static_cast<uint32_t>(core::TypeId::kUInt8));
  wrapped.mutable_call()->set_name("notEquals");
  *wrapped.mutable_call()->add_args() = std::move(bound);
  *wrapped.mutable_call()->add_args() = core::Lit(uint64_t{0}, core::TypeId::kUInt8);
  return wrapped;
}

}  // namespace granite::coordinator

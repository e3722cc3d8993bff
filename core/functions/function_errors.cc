#include "core/functions/function_errors.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {

absl::Status IllegalArgumentType(std::string_view function, size_t index, TypeId type) {
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("Illegal type ", ToAbsl(TypeName(type)), " of argument ", index + 1,
                            " of function ", ToAbsl(function)));
}

absl::Status ArgumentMustBeConstant(std::string_view function, size_t index) {
  return Error(ErrorCode::kIllegalColumn,
               absl::StrCat("Argument ", index + 1, " of function ", ToAbsl(function),
                            " must be a constant"));
}

absl::Status NoCommonType(std::string_view function, TypeId a, TypeId b) {
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("There is no supertype for types ", ToAbsl(TypeName(a)), ", ",
                            ToAbsl(TypeName(b)), " of arguments of function ", ToAbsl(function)));
}

}  // namespace granite::core

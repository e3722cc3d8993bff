// Functions whose result does not depend on the argument values: version(), timezone() (always
// UTC) and currentDatabase() (always default). toTypeName(x): misc_functions.cc. isNull /
// isNotNull: null_functions.h.
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "core/absl_compat.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_table.h"
#include "core/functions/vector_loops.h"
#include "core/version.h"

namespace granite::core {
namespace {

// version(), timezone(), currentDatabase(): a String constant each.
absl::StatusOr<TypeId> ResolveStringConstant(std::string_view, const std::vector<ArgumentInfo>&) {
  return TypeId::kString;
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileStringConstant(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId) {
  if (absl::EqualsIgnoreCase(ToAbsl(name), "version")) {
    return StringConstantKernel(kClickHouseCompatibleVersion);
  }
  if (absl::EqualsIgnoreCase(ToAbsl(name), "currentDatabase") ||
      absl::EqualsIgnoreCase(ToAbsl(name), "DATABASE")) {
    // The coordinator replaces the call by the session's database before binding
    // (coordinator/exec/query_parameters.h); a plan built without it runs in `default`.
    return StringConstantKernel("default");
  }
  return StringConstantKernel("UTC");  // timezone, timeZone, serverTimezone
}

}  // namespace

void RegisterConstantFunctions(FunctionTable& table) {
  table.Add({"version", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.Add({"timezone", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.AddAlias("serverTimezone", "timezone", true);
  table.Add({"currentDatabase", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.AddAlias("DATABASE", "currentDatabase", true);
}

}  // namespace granite::core

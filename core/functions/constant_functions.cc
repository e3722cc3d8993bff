// Functions whose result does not depend on the argument values: isNull, isNotNull (granite has
// no Nullable types yet, so nothing is NULL), version(), timezone() (always UTC) and
// currentDatabase() (always default).
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

// isNull, isNotNull: granite has no Nullable types yet, so the answer is a constant.
absl::StatusOr<TypeId> ResolveNullCheck(std::string_view, const std::vector<ArgumentInfo>&) {
  return TypeId::kUInt8;
}

class FillKernel : public ScalarKernel {
 public:
  explicit FillKernel(uint8_t value) : value_(value) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    std::memset(out->Data<uint8_t>(), value_, rows);
    return ColumnPtr(std::move(out));
  }

 private:
  const uint8_t value_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileNullCheck(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId) {
  return std::make_unique<FillKernel>(name == "isNotNull" ? 1 : 0);
}

// version(), timezone(), currentDatabase(): a String constant each.
absl::StatusOr<TypeId> ResolveStringConstant(std::string_view, const std::vector<ArgumentInfo>&) {
  return TypeId::kString;
}

class StringConstantKernel : public ScalarKernel {
 public:
  explicit StringConstantKernel(std::string_view value) : value_(value) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    Column one(TypeId::kString);
    one.AppendString(value_);
    return Broadcast(one, rows);
  }

 private:
  const std::string_view value_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileStringConstant(
    std::string_view name, const std::vector<ArgumentInfo>&, TypeId) {
  if (absl::EqualsIgnoreCase(ToAbsl(name), "version")) {
    return std::make_unique<StringConstantKernel>(kClickHouseCompatibleVersion);
  }
  if (absl::EqualsIgnoreCase(ToAbsl(name), "currentDatabase") ||
      absl::EqualsIgnoreCase(ToAbsl(name), "DATABASE")) {
    // The coordinator replaces the call by the session's database before binding
    // (coordinator/exec/query_parameters.h); a plan built without it runs in `default`.
    return std::make_unique<StringConstantKernel>("default");
  }
  return std::make_unique<StringConstantKernel>("UTC");  // timezone, timeZone, serverTimezone
}

}  // namespace

void RegisterConstantFunctions(FunctionTable& table) {
  table.Add({"isNull", 1, 1, true, ResolveNullCheck, CompileNullCheck});
  table.Add({"isNotNull", 1, 1, true, ResolveNullCheck, CompileNullCheck});
  table.Add({"version", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.Add({"timezone", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.AddAlias("serverTimezone", "timezone", true);
  table.Add({"currentDatabase", 0, 0, true, ResolveStringConstant, CompileStringConstant});
  table.AddAlias("DATABASE", "currentDatabase", true);
}

}  // namespace granite::core

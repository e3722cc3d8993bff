// defaultValueOfArgumentType(x): the default value of x's type (0, '', 1970-01-01, 0.00), as
// ClickHouse has it. The coordinator uses it for the keys a grouping set leaves out
// (GROUP BY ROLLUP / CUBE / GROUPING SETS give those keys their type's default).
#include <cstring>
#include <memory>

#include "core/functions/constant_column.h"
#include "core/functions/function_table.h"

namespace granite::core {
namespace {

absl::StatusOr<TypeId> ResolveDefaultValue(std::string_view,
                                           const std::vector<ArgumentInfo>& args) {
  return args[0].type;
}

class DefaultValueKernel : public ScalarKernel {
 public:
  explicit DefaultValueKernel(TypeId type) : type_(type) {}
  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>&, size_t rows) const override {
    Column one(type_);
    if (type_ == TypeId::kString) {
      one.AppendString("");
    } else {
      one.Resize(1);
      std::memset(one.RawData(), 0, one.RawSize());
    }
    return Broadcast(one, rows);
  }

 private:
  const TypeId type_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileDefaultValue(
    std::string_view, const std::vector<ArgumentInfo>& args, TypeId) {
  return std::make_unique<DefaultValueKernel>(args[0].type);
}

}  // namespace

void RegisterDefaultValueFunctions(FunctionTable& table) {
  table.Add({"defaultValueOfArgumentType", 1, 1, false, ResolveDefaultValue,
             CompileDefaultValue});
}

}  // namespace granite::core

// like, notLike, ilike, notILike -> UInt8. The pattern must be a constant String; it is compiled
// once into a LikeMatcher (like_matcher.h), which picks exact / prefix / suffix / substring /
// regex matching.
#include <memory>

#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/like_matcher.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

absl::StatusOr<TypeId> ResolveLike(std::string_view name, const std::vector<ArgumentInfo>& args) {
  if (!IsString(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (!IsString(args[1].type)) return IllegalArgumentType(name, 1, args[1].type);
  if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  return TypeId::kUInt8;
}

class LikeKernel : public ScalarKernel {
 public:
  LikeKernel(std::unique_ptr<LikeMatcher> matcher, bool negated)
      : matcher_(std::move(matcher)), negated_(negated) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    matcher_->MatchColumn(*args[0].column, negated_, out->Data<uint8_t>());
    return ColumnPtr(std::move(out));
  }

 private:
  const std::unique_ptr<LikeMatcher> matcher_;
  const bool negated_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileLike(std::string_view name,
                                                          const std::vector<ArgumentInfo>& args,
                                                          TypeId result_type) {
  const bool case_insensitive = name == "ilike" || name == "notILike";
  const bool negated = name == "notLike" || name == "notILike";
  ASSIGN_OR_RETURN(std::unique_ptr<LikeMatcher> matcher,
                   LikeMatcher::Compile(ValueToText(*args[1].constant), case_insensitive));
  return std::make_unique<LikeKernel>(std::move(matcher), negated);
}

}  // namespace

void RegisterLikeFunctions(FunctionTable& table) {
  table.Add({"like", 2, 2, true, ResolveLike, CompileLike});
  table.Add({"notLike", 2, 2, true, ResolveLike, CompileLike});
  table.Add({"ilike", 2, 2, true, ResolveLike, CompileLike});
  table.Add({"notILike", 2, 2, true, ResolveLike, CompileLike});
}

}  // namespace granite::core

#include "core/plan/expr_remap.h"

namespace granite::core::plan {

void RemapColumns(const std::vector<uint32_t>& map, Expr* expr) {
  if (expr->is_column()) expr->column = map[expr->column];
  for (Expr& arg : expr->args) RemapColumns(map, &arg);
}

}  // namespace granite::core::plan

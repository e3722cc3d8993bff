// Renumbering the column references of plan expressions, for a plan step that changes the layout
// of the block the expressions read (a late-materialized scan, a joined block).
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/expr.h"

namespace granite::core::plan {

// Renumbers the column references of `expr` through `map` (old position -> new position).
// REQUIRES: every referenced column < map.size().
void RemapColumns(const std::vector<uint32_t>& map, Expr* expr);

}  // namespace granite::core::plan

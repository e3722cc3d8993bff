// The column layout of ClickBench's `hits` table (105 columns, in table order, with the ClickHouse
// types its CREATE statement maps to), as written by the hits generator. The benchmark's own
// create.sql is not part of this repository; tools/hits_generator_test.cc cross-checks this list
// against it when the ClickBench folder is present.
#pragma once

#include <string_view>
#include <vector>

#include "core/types.h"

namespace granite::tools {

struct HitsColumn {
  std::string_view name;
  core::TypeId type;
};

// Returns the 105 columns of `hits` in table order.
const std::vector<HitsColumn>& HitsColumns();

}  // namespace granite::tools

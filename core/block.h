// Block: a horizontal slice of rows as a list of equally long columns. The unit that flows between
// scan, filter, projection, aggregation, the wire and the output formats.
#pragma once

#include <memory>
#include <vector>

#include "core/column.h"

namespace granite::core {

// Holds equally long columns. Names and types of the columns are carried by whoever produced the
// block (plan, schema); the block itself only knows each column's TypeId.
struct Block {
  std::vector<ColumnPtr> columns;

  size_t rows() const { return columns.empty() ? rows_without_columns : columns[0]->size(); }
  // Row count of a block with no columns (e.g. SELECT count() FROM t reads no column).
  size_t rows_without_columns = 0;
};

}  // namespace granite::core

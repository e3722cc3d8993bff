// Extremes: a result's min and max value per column (SETTINGS extremes = 1), gathered block by
// block as the result streams (coordinator/server/result_writer.h) and written by the output
// format after the totals (OutputFormat::WriteExtremes), as ClickHouse does. Values compare as
// ORDER BY does; NULLs only where a column holds nothing else.
#pragma once

#include <optional>

#include "core/block.h"

namespace granite::coordinator {

// Thread-safety: none.
class Extremes {
 public:
  // Takes the rows of one result block.
  void Add(const core::Block& block);
  // Two rows — each column's min, then its max — or nothing for an empty result.
  const std::optional<core::Block>& rows() const { return rows_; }

 private:
  std::optional<core::Block> rows_;
};

}  // namespace granite::coordinator

// Pretty output formats: Pretty and PrettyCompact (also PrettyCompactMonoBlock), Unicode box
// tables for people at a terminal. Part of the output formats (coordinator/formats/output_format.h).
//
// PrettyCompact:            Pretty:
//   ┌─a─┬─s───┐               ┏━━━┳━━━━━┓
//   │ 1 │ abc │               ┃ a ┃ s   ┃
//   └───┴─────┘               ┡━━━╇━━━━━┩
//                             │ 1 │ abc │
//                             └───┴─────┘  (rows separated by ├───┼─────┤)
// Every column except String is right-aligned, header name included (ClickHouse aligns all
// number-based types, Date and DateTime too, to the right). A column is as wide as its widest
// value or name, counted in UTF-8 code points.
// Unlike ClickHouse, which prints one table per block, the rows are buffered and ONE table is
// printed in End, so the output does not depend on block boundaries. An empty result prints
// nothing. After 10000 rows the rest are dropped and "  Showed first 10000.\n" follows the table.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"
#include "core/column.h"

namespace granite::coordinator {

// Buffers the display text of every cell, then writes one table.
// Thread-safety: none.
class PrettyOutput : public OutputFormat {
 public:
  static constexpr size_t kMaxRows = 10000;

  explicit PrettyOutput(bool compact) : compact_(compact) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void WriteTotals(const core::Block& totals, std::string* out) override;
  void WriteExtremes(const core::Block& extremes, std::string* out) override;
  void End(std::string* out) override;

 private:
  // Appends the buffered table.
  void EndTable(std::string* out);
  // Appends one cell: ' ', the padded text, ' '.
  void AppendCell(std::string_view text, size_t column, std::string* out) const;
  // Appends a horizontal rule: left, then per column `width + 2` fills joined by `middle`, right.
  void AppendRule(const char* left, const char* fill, const char* middle, const char* right,
                  std::string* out) const;

  // Constant after construction.
  const bool compact_;
  // Set by Begin.
  std::vector<std::string> names_;
  std::vector<bool> align_right_;
  std::vector<core::TypeId> types_;
  std::unique_ptr<PrettyOutput> totals_;  // WITH TOTALS: printed after the table
  std::unique_ptr<PrettyOutput> extremes_;  // extremes = 1: printed after the totals
  // One String column of display texts per result column.
  std::vector<core::Column> cells_;
  size_t total_rows_ = 0;
  // Computed in End.
  std::vector<size_t> widths_;
};

}  // namespace granite::coordinator

#include "core/join/gather_rows.h"

#include <algorithm>

namespace granite::core {

ColumnPtr GatherRows(const Column& column, const std::vector<int64_t>& rows,
                           bool make_nullable) {
  auto out = std::make_shared<Column>(
      WithNullable(column.type(), make_nullable || column.nullable()));
  out->Reserve(rows.size());
  if (out->nullable()) {  // a missing row is NULL
    for (int64_t row : rows) {
      if (row < 0) {
        out->AppendNull();
      } else {
        out->AppendFrom(column, static_cast<size_t>(row));
      }
    }
    return out;
  }
  const bool is_string = HasStringLayout(column.type());
  Column blank(column.type());
  if (is_string) {
    blank.AppendString("");
  } else {
    blank.Resize(1);
  }
  // Runs of present rows are copied by index in one call (no per-row dispatch on the type).
  std::vector<uint32_t> run;
  run.reserve(std::min<size_t>(rows.size(), 65536));
  auto flush = [&] {
    if (run.empty()) return;
    out->AppendTaken(column, run.data(), run.size());
    run.clear();
  };
  for (int64_t row : rows) {
    if (row < 0) {
      flush();
      out->AppendFrom(blank, 0);
    } else {
      run.push_back(static_cast<uint32_t>(row));
      if (run.size() == 65536) flush();
    }
  }
  flush();
  return out;
}

}  // namespace granite::core

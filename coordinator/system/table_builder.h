// TableBuilder: fills an in-memory system table (LocalTable) column by column.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/planner/binder.h"
#include "core/column.h"

namespace granite::coordinator {

// Thread-safety: none; one per table being built.
class TableBuilder {
 public:
  TableBuilder(std::vector<std::string> names, std::vector<core::TypeId> types) {
    table_.names = std::move(names);
    table_.types = std::move(types);
    for (core::TypeId type : table_.types) columns_.push_back(std::make_shared<core::Column>(type));
  }
  core::Column& operator[](size_t i) { return *columns_[i]; }
  // REQUIRES: every column has the same number of rows.
  LocalTable Build() {
    table_.block.rows_without_columns = columns_.empty() ? 0 : columns_[0]->size();
    for (auto& column : columns_) table_.block.columns.push_back(std::move(column));
    return std::move(table_);
  }

 private:
  LocalTable table_;
  std::vector<core::MutableColumnPtr> columns_;
};

}  // namespace granite::coordinator

#include "coordinator/formats/input_block_builder.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/text_escaping.h"
#include "core/functions/cast_column.h"
#include "core/status_macros.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/value_text.h"

namespace granite::coordinator {

InputBlockBuilder::InputBlockBuilder(const std::vector<std::string>& names,
                                     const std::vector<core::TypeId>& types)
    : names_(names), types_(types) {
  for (size_t i = 0; i < names_.size(); ++i) index_.emplace(names_[i], static_cast<int>(i));
  for (core::TypeId type : types_) columns_.push_back(std::make_shared<core::Column>(type));
}

absl::Status InputBlockBuilder::AppendText(size_t column, std::string_view text) {
  absl::Status status =
      core::ParseValueText(text, core::RemoveNullable(types_[column]), columns_[column].get());
  if (status.ok()) return status;
  return PositionError(core::CodeOf(status), core::FromAbsl(status.message()),
                       static_cast<int>(column));
}

void InputBlockBuilder::AppendOmitted(size_t column) {
  if (omitted_.empty()) omitted_.resize(columns_.size());
  omitted_[column].push_back(static_cast<uint32_t>(columns_[column]->size()));
  AppendDefault(column);
}

void InputBlockBuilder::AppendDefault(size_t column) {
  core::Column& c = *columns_[column];
  if (c.nullable()) {
    c.AppendNull();
  } else if (types_[column] == core::TypeId::kString) {
    c.AppendString({});
  } else if (core::IsFixedString(types_[column])) {
    c.AppendString(std::string(core::FixedStringSizeOf(types_[column]), '\0'));
  } else {
    c.Resize(c.size() + 1);
  }
}

absl::Status InputBlockBuilder::AppendNull(size_t column) {
  core::Column& c = *columns_[column];
  if (c.nullable()) {
    c.AppendNull();
    return absl::OkStatus();
  }
  if (!null_as_default_) {
    // ClickHouse then reads \N as text of the column's type, which does not parse.
    return PositionError(core::ErrorCode::kCannotParseInputAssertionFailed,
                         "Cannot parse input: NULL for column of type '" +
                             std::string(core::TypeName(types_[column])) +
                             "', which is not Nullable (input_format_null_as_default = 0)",
                         static_cast<int>(column));
  }
  AppendDefault(column);
  return absl::OkStatus();
}

int InputBlockBuilder::FindColumn(std::string_view name) const {
  auto it = index_.find(core::ToAbsl(name));
  return it == index_.end() ? -1 : it->second;
}

absl::StatusOr<std::vector<int>> InputBlockBuilder::MapHeader(
    const std::vector<std::string>& header) {
  std::vector<int> field_to_column;
  std::vector<bool> used(columns_.size(), false);
  for (const std::string& name : header) {
    int column = FindColumn(name);
    if (column < 0) {
      return PositionError(core::ErrorCode::kIncorrectData,
                           "Unknown field found while parsing header: " + name, -1);
    }
    if (used[column]) {
      return PositionError(core::ErrorCode::kIncorrectData,
                           "Duplicate field found while parsing header: " + name, -1);
    }
    used[column] = true;
    field_to_column.push_back(column);
  }
  return field_to_column;
}

void InputBlockBuilder::AppendDefaultsForUnmapped(const std::vector<int>& field_to_column) {
  if (field_to_column.size() == columns_.size()) return;  // every column is mapped
  std::vector<bool> mapped(columns_.size(), false);
  for (int column : field_to_column) mapped[column] = true;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!mapped[c]) AppendOmitted(c);
  }
}

std::string InputBlockBuilder::Where(int column) const {
  std::string where = "(at row " + std::to_string(row_) + ", line " + std::to_string(line_);
  if (column >= 0) {
    where += ", column " + std::to_string(column + 1) + " '" + names_[column] + "'";
  }
  where += ")";
  return where;
}

absl::Status InputBlockBuilder::ExpectedError(std::string_view expected, std::string_view rest,
                                              int column, std::string_view note) const {
  std::string message = "Cannot parse input: expected ";
  message.append(expected);
  message.append(" before: '");
  AppendErrorSnippet(rest, 20, &message);
  message.append("': ");
  message.append(Where(column));
  if (!note.empty()) {
    message.append(" (");
    message.append(note);
    message.append(")");
  }
  return core::Error(core::ErrorCode::kCannotParseInputAssertionFailed, message);
}

absl::Status InputBlockBuilder::PositionError(core::ErrorCode code, std::string_view message,
                                              int column) const {
  std::string text(message);
  text.append(": ");
  text.append(Where(column));
  return core::Error(code, text);
}

core::Block InputBlockBuilder::Finish() {
  core::Block block;
  for (auto& column : columns_) block.columns.push_back(std::move(column));
  columns_.clear();
  return block;
}

absl::Status InputBlockBuilder::AppendConverted(size_t column, core::Column decoded) {
  const core::TypeId target = types_[column];
  if (core::IsTuple(decoded.type()) && target == core::TypeId::kString) {
    // A struct or map for a Tuple or Map column (read as text: exec/insert_executor.cc).
    core::AppendRowTexts(decoded, columns_[column].get());
    return absl::OkStatus();
  }
  if (core::IsTuple(decoded.type())) {
    return core::Error(core::ErrorCode::kCannotConvertType,
                       absl::StrCat("Cannot insert a value of type ",
                                    std::string(core::TypeName(decoded.type())),
                                    " (a STRUCT, MAP or LIST of STRUCT) into column '",
                                    names_[column], "' of type ",
                                    std::string(core::TypeName(target))));
  }
  std::vector<uint8_t> nulls;
  if (decoded.nullable()) {
    if (decoded.HasNulls()) {
      if (core::IsNullable(target)) {
        nulls.assign(decoded.NullMap(), decoded.NullMap() + decoded.size());
      } else if (!null_as_default_) {
        return core::Error(core::ErrorCode::kCannotInsertNullInOrdinaryColumn,
                           absl::StrCat("Cannot insert NULL value into a column of type '",
                                        std::string(core::TypeName(target)), "' at: column '",
                                        names_[column], "'"));
      }
    }
    decoded.DropNullMap();
  }
  const size_t rows = decoded.size();
  ASSIGN_OR_RETURN(core::ColumnPtr cast,
                   core::CastColumn(std::make_shared<core::Column>(std::move(decoded)),
                                    core::RemoveNullable(target)));
  core::Column& into = *columns_[column];
  const size_t start = into.size();
  into.AppendRange(*cast, 0, rows);
  if (!nulls.empty()) std::memcpy(into.MutableNullMap() + start, nulls.data(), nulls.size());
  return absl::OkStatus();
}

}  // namespace granite::coordinator

#include "coordinator/formats/parquet_input.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/parquet_schema.h"
#include "core/error.h"
#include "core/tuple_type.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

constexpr std::string_view kMagic = "PAR1";

absl::Status Bad(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Parquet input: ", std::string(why)));
}

absl::Status Open(std::string_view data, ParquetInputState* state) {
  if (data.size() < 12 || data.substr(0, 4) != kMagic || data.substr(data.size() - 4) != kMagic) {
    return Bad(absl::StrCat("not a Parquet file (", data.size(),
                            " bytes without 'PAR1' at both ends)"));
  }
  uint32_t footer = 0;
  std::memcpy(&footer, data.data() + data.size() - 8, 4);
  if (footer > data.size() - 12) return Bad("the footer's length is past the file");
  ASSIGN_OR_RETURN(state->meta,
                   ParseParquetFileMetaData(data.substr(data.size() - 8 - footer, footer)));
  ASSIGN_OR_RETURN(state->leaves, DescribeParquetColumns(state->meta));
  state->opened = true;
  return absl::OkStatus();
}

// Reads a STRUCT, MAP or LIST of STRUCT leaf's parts and puts them together as a Tuple, a Map or
// an Array(Tuple).
absl::StatusOr<core::Column> ReadCompound(std::string_view data, const ParquetRowGroup& group,
                                          const ParquetLeaf& leaf) {
  std::vector<core::Column> parts;
  std::vector<core::TypeId> types;
  for (const ParquetLeaf& part : leaf.parts) {
    ASSIGN_OR_RETURN(core::Column column, ReadParquetColumnChunk(data, group.columns[part.chunk],
                                                                 part, group.num_rows));
    types.push_back(column.type());
    parts.push_back(std::move(column));
  }
  absl::StatusOr<core::TypeId> type =
      leaf.map     ? core::MakeMapType(core::ArrayElementOf(types[0]),
                                       core::ArrayElementOf(types[1]))
      : leaf.array ? core::MakeArrayOfTuplesType(types, leaf.part_names)
                   : core::MakeTupleType(types, leaf.part_names);
  RETURN_IF_ERROR(type.status());
  for (const core::Column& part : parts) {
    if (part.size() != static_cast<size_t>(group.num_rows) ||
        ((leaf.map || leaf.array) && part.Offsets() != parts[0].Offsets())) {
      return Bad(absl::StrCat("the parts of STRUCT or MAP '", leaf.name,
                              "' disagree in their rows"));
    }
  }
  core::Column value(*type);
  for (size_t i = 0; i < parts.size(); ++i) value.MutableElement(i) = std::move(parts[i]);
  value.SetSize(static_cast<size_t>(group.num_rows));
  return value;
}

absl::Status ReadRowGroup(std::string_view data, const ParquetRowGroup& group,
                          const ParquetInputState& state, InputBlockBuilder* builder) {
  if (group.num_rows < 0) return Bad("a row group has a negative row count");
  const size_t rows = static_cast<size_t>(group.num_rows);
  std::vector<bool> filled(builder->column_count(), false);
  for (const ParquetLeaf& leaf : state.leaves) {
    const int target = builder->FindColumn(leaf.name);
    if (target < 0 || filled[target]) continue;  // a column the table lacks is not read
    RETURN_IF_ERROR(leaf.unsupported);
    if (leaf.chunk + std::max<size_t>(leaf.parts.size(), 1) > group.columns.size()) {
      return Bad("a row group lacks a column chunk");
    }
    ASSIGN_OR_RETURN(core::Column column,
                     leaf.parts.empty() ? ReadParquetColumnChunk(data, group.columns[leaf.chunk],
                                                                 leaf, group.num_rows)
                                        : ReadCompound(data, group, leaf));
    filled[target] = true;
    RETURN_IF_ERROR(builder->AppendConverted(target, std::move(column)));
  }
  for (size_t c = 0; c < filled.size(); ++c) {
    if (filled[c]) continue;
    for (size_t r = 0; r < rows; ++r) builder->AppendOmitted(c);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<size_t> ParseParquet(std::string_view data, bool last, ParquetInputState* state,
                                    InputProgress* progress, InputBlockBuilder* builder) {
  if (!last) return 0;  // the metadata is at the end
  if (!state->opened) RETURN_IF_ERROR(Open(data, state));
  const std::vector<ParquetRowGroup>& groups = state->meta.row_groups;
  while (state->next_row_group < groups.size() && groups[state->next_row_group].num_rows == 0) {
    ++state->next_row_group;
  }
  if (state->next_row_group == groups.size()) return data.size();
  const ParquetRowGroup& group = groups[state->next_row_group++];
  RETURN_IF_ERROR(ReadRowGroup(data, group, *state, builder));
  progress->rows += static_cast<size_t>(group.num_rows);
  return state->next_row_group == groups.size() ? data.size() : 0;
}

}  // namespace granite::coordinator

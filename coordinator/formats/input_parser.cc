#include "coordinator/formats/input_parser.h"

#include "coordinator/formats/csv_input.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/json_each_row_input.h"
#include "coordinator/formats/tab_separated_input.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

enum class InputKind { kTabSeparated, kTabSeparatedRaw, kCsv, kJsonEachRow, kUnknown };

// Returns the reader for `format` and how many header lines it has.
InputKind Classify(std::string_view format, int* header_lines) {
  *header_lines = 0;
  if (format == "TabSeparated" || format == "TSV") return InputKind::kTabSeparated;
  if (format == "TabSeparatedRaw" || format == "TSVRaw") return InputKind::kTabSeparatedRaw;
  if (format == "TabSeparatedWithNames" || format == "TSVWithNames") {
    *header_lines = 1;
    return InputKind::kTabSeparated;
  }
  if (format == "TabSeparatedWithNamesAndTypes" || format == "TSVWithNamesAndTypes") {
    *header_lines = 2;
    return InputKind::kTabSeparated;
  }
  if (format == "CSV") return InputKind::kCsv;
  if (format == "CSVWithNames") {
    *header_lines = 1;
    return InputKind::kCsv;
  }
  if (format == "CSVWithNamesAndTypes") {
    *header_lines = 2;
    return InputKind::kCsv;
  }
  if (format == "JSONEachRow") return InputKind::kJsonEachRow;
  return InputKind::kUnknown;
}

}  // namespace

bool IsInputFormat(std::string_view format) {
  int header_lines;
  return Classify(format, &header_lines) != InputKind::kUnknown;
}

absl::StatusOr<core::Block> ParseInput(std::string_view format, std::string_view data,
                                       const std::vector<std::string>& names,
                                       const std::vector<core::TypeId>& types) {
  int header_lines;
  InputKind kind = Classify(format, &header_lines);
  if (kind == InputKind::kUnknown) {
    return core::Error(core::ErrorCode::kUnknownFormat, "Unknown format " + std::string(format));
  }
  // A UTF-8 byte order mark is skipped, as ClickHouse does.
  if (data.substr(0, 3) == "\xEF\xBB\xBF") data.remove_prefix(3);
  InputBlockBuilder builder(names, types);
  switch (kind) {
    case InputKind::kTabSeparated:
      RETURN_IF_ERROR(ParseTabSeparated(data, header_lines, false, &builder));
      break;
    case InputKind::kTabSeparatedRaw:
      RETURN_IF_ERROR(ParseTabSeparated(data, header_lines, true, &builder));
      break;
    case InputKind::kCsv:
      RETURN_IF_ERROR(ParseCsv(data, header_lines, &builder));
      break;
    case InputKind::kJsonEachRow:
      RETURN_IF_ERROR(ParseJsonEachRow(data, &builder));
      break;
    case InputKind::kUnknown:
      break;
  }
  return builder.Finish();
}

}  // namespace granite::coordinator

#include "coordinator/formats/input_parser.h"

#include "coordinator/formats/csv_input.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/json_each_row_input.h"
#include "coordinator/formats/native_input.h"
#include "coordinator/formats/tab_separated_input.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

enum class InputKind {
  kTabSeparated, kTabSeparatedRaw, kCsv, kJsonEachRow, kNative, kArrow, kParquet, kUnknown
};

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
  if (format == "Native") return InputKind::kNative;
  if (format == "ArrowStream" || format == "Arrow") return InputKind::kArrow;
  if (format == "Parquet") return InputKind::kParquet;
  return InputKind::kUnknown;
}

}  // namespace

bool IsInputFormat(std::string_view format) {
  int header_lines;
  return Classify(format, &header_lines) != InputKind::kUnknown;
}

absl::StatusOr<InputParser> InputParser::Create(std::string_view format,
                                                std::vector<std::string> names,
                                                std::vector<core::TypeId> types) {
  int header_lines;
  InputKind kind = Classify(format, &header_lines);
  Kind parser_kind;
  switch (kind) {
    case InputKind::kTabSeparated: parser_kind = Kind::kTabSeparated; break;
    case InputKind::kTabSeparatedRaw: parser_kind = Kind::kTabSeparatedRaw; break;
    case InputKind::kCsv: parser_kind = Kind::kCsv; break;
    case InputKind::kJsonEachRow: parser_kind = Kind::kJsonEachRow; break;
    case InputKind::kNative: parser_kind = Kind::kNative; break;
    case InputKind::kArrow: parser_kind = Kind::kArrow; break;
    case InputKind::kParquet: parser_kind = Kind::kParquet; break;
    default:
      return core::Error(core::ErrorCode::kUnknownFormat, "Unknown format " + std::string(format));
  }
  return InputParser(parser_kind, header_lines, std::move(names), std::move(types));
}

absl::StatusOr<core::Block> InputParser::Parse(std::string_view data, bool last,
                                               const InputLimits& limits, size_t* consumed) {
  *consumed = 0;
  omitted_.clear();
  if (kind_ == Kind::kNative || kind_ == Kind::kArrow || kind_ == Kind::kParquet) {
    // Binary: no byte order mark, no limits inside a block, record batch or row group.
    InputBlockBuilder builder(names_, types_);
    builder.set_verbatim(verbatim_);
    builder.set_null_as_default(null_as_default_);
    absl::StatusOr<size_t> used;
    if (kind_ == Kind::kNative) {
      used = ParseNative(data, last, &progress_, &builder);
    } else if (kind_ == Kind::kArrow) {
      if (arrow_ == nullptr) arrow_ = std::make_shared<ArrowInputState>();
      used = ParseArrow(data, last, arrow_.get(), &progress_, &builder);
    } else {
      if (parquet_ == nullptr) parquet_ = std::make_shared<ParquetInputState>();
      used = ParseParquet(data, last, parquet_.get(), &progress_, &builder);
    }
    if (!used.ok()) return used.status();
    *consumed = *used;
    omitted_ = builder.omitted();
    return builder.Finish();
  }
  if (!bom_checked_) {
    // A UTF-8 byte order mark is skipped, as ClickHouse does.
    if (data.size() < 3 && !last && std::string_view("\xEF\xBB\xBF").substr(0, data.size()) == data) {
      return InputBlockBuilder(names_, types_).Finish();  // too short to tell yet
    }
    bom_checked_ = true;
    if (data.substr(0, 3) == "\xEF\xBB\xBF") {
      data.remove_prefix(3);
      *consumed = 3;
    }
  }
  InputBlockBuilder builder(names_, types_);
  builder.set_verbatim(verbatim_);
  builder.set_null_as_default(null_as_default_);
  absl::StatusOr<size_t> used;
  switch (kind_) {
    case Kind::kTabSeparated:
      used = ParseTabSeparated(data, last, limits, header_lines_, false, &progress_, &builder);
      break;
    case Kind::kTabSeparatedRaw:
      used = ParseTabSeparated(data, last, limits, header_lines_, true, &progress_, &builder);
      break;
    case Kind::kCsv:
      used = ParseCsv(data, last, limits, header_lines_, &progress_, &builder);
      break;
    case Kind::kJsonEachRow:
      used = ParseJsonEachRow(data, last, limits, &progress_, &builder);
      break;
    case Kind::kNative:
    case Kind::kArrow:
    case Kind::kParquet:
      break;  // handled above
  }
  if (!used.ok()) return used.status();
  *consumed += *used;
  omitted_ = builder.omitted();
  return builder.Finish();
}

bool InputParser::CanCutAhead() const {
  const bool text = kind_ == Kind::kTabSeparated || kind_ == Kind::kTabSeparatedRaw ||
                    kind_ == Kind::kCsv || kind_ == Kind::kJsonEachRow;
  return text && bom_checked_ && progress_.started;
}

size_t InputParser::CutAhead(std::string_view data, bool last, const InputLimits& limits,
                             bool* final) const {
  switch (kind_) {
    case Kind::kTabSeparated: return CutTabSeparated(data, last, limits, false, final);
    case Kind::kTabSeparatedRaw: return CutTabSeparated(data, last, limits, true, final);
    case Kind::kCsv: return CutCsv(data, last, limits, final);
    case Kind::kJsonEachRow: return CutJsonEachRow(data, last, limits, final);
    case Kind::kNative:
    case Kind::kArrow:
    case Kind::kParquet:
      break;  // CanCutAhead() is false
  }
  *final = last;
  return data.size();
}

InputParser InputParser::ChunkParser(size_t rows, size_t lines) const {
  InputParser copy = *this;
  copy.progress_.rows = rows;
  copy.progress_.lines = lines;
  copy.omitted_.clear();
  return copy;
}

absl::StatusOr<core::Block> InputParser::ParseCut(std::string_view chunk, bool final) {
  InputLimits whole;
  whole.precut = true;
  size_t consumed;
  ASSIGN_OR_RETURN(core::Block block, Parse(chunk, final, whole, &consumed));
  if (consumed != chunk.size()) {
    return core::Error(core::ErrorCode::kLogicalError,
                       "An input chunk cut ahead was not parsed whole");
  }
  return block;
}

absl::StatusOr<core::Block> ParseInput(std::string_view format, std::string_view data,
                                       const std::vector<std::string>& names,
                                       const std::vector<core::TypeId>& types) {
  ASSIGN_OR_RETURN(InputParser parser, InputParser::Create(format, names, types));
  size_t consumed;
  ASSIGN_OR_RETURN(core::Block block, parser.Parse(data, /*last=*/true, InputLimits{}, &consumed));
  // A format read in parts (Parquet's row groups) returns a block per part.
  while (consumed < data.size()) {
    data.remove_prefix(consumed);
    ASSIGN_OR_RETURN(core::Block part, parser.Parse(data, true, InputLimits{}, &consumed));
    if (part.rows() == 0 && consumed == 0) {
      return core::Error(core::ErrorCode::kLogicalError, "an input parser made no progress");
    }
    for (size_t c = 0; c < block.columns.size(); ++c) {
      auto merged = std::make_shared<core::Column>(*block.columns[c]);
      merged->AppendRange(*part.columns[c], 0, part.rows());
      block.columns[c] = std::move(merged);
    }
  }
  return block;
}

}  // namespace granite::coordinator

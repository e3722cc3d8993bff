#include "coordinator/formats/csv_output.h"

#include "coordinator/formats/text_escaping.h"
#include "core/tuple_type.h"
#include "core/value_text.h"

namespace granite::coordinator {

namespace {

// Appends one value as a CSV field; a tuple is its elements as fields of their own, as
// ClickHouse writes them.
void AppendCsvValue(const core::Column& column, size_t row, std::string* out) {
  if (column.IsNullAt(row)) {
    out->append("\\N");
    return;
  }
  switch (core::BaseOf(column.type())) {
    case core::TypeId::kTuple:
      if (core::IsMap(column.type()) || core::IsArrayOfTuples(column.type())) {
        // a map or an array is its text as one CSV string
        std::string text;
        core::AppendValueText(column, row, &text);
        AppendCsvQuoted(text, out);
        break;
      }
      for (size_t i = 0; i < column.TupleSize(); ++i) {
        if (i > 0) out->push_back(',');
        AppendCsvValue(column.Element(i), row, out);
      }
      break;
    case core::TypeId::kFixedString:
    case core::TypeId::kString:
      AppendCsvQuoted(column.StringAt(row), out);
      break;
    case core::TypeId::kArray: {
      // An array is its text as one CSV string: "[1,2]", "['a','b""c']".
      std::string text;
      core::AppendValueText(column, row, &text);
      AppendCsvQuoted(text, out);
      break;
    }
    case core::TypeId::kDate:
    case core::TypeId::kDateTime:
    case core::TypeId::kDateTime64:
    case core::TypeId::kUUID:
      // Date and DateTime text never contains '"', so no doubling is needed.
      out->push_back('"');
      core::AppendValueText(column, row, out);
      out->push_back('"');
      break;
    default:
      core::AppendValueText(column, row, out);
  }
}

}  // namespace

void CsvOutput::Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
                      std::string* out) {
  if (with_names_) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendCsvQuoted(names[i], out);
    }
    out->push_back('\n');
  }
  if (with_types_) {
    for (size_t i = 0; i < types.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendCsvQuoted(core::TypeName(types[i]), out);
    }
    out->push_back('\n');
  }
}

void CsvOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->push_back(',');
      AppendCsvValue(*block.columns[c], row, out);
    }
    out->push_back('\n');
  }
}

}  // namespace granite::coordinator

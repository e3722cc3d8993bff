#include "coordinator/formats/json_output.h"

#include <cmath>

#include "coordinator/formats/text_escaping.h"
#include "core/tuple_type.h"
#include "core/value_text.h"

namespace granite::coordinator {

void AppendJsonValue(const core::Column& column, size_t row, bool quote_64bit, std::string* out,
                     int pretty_indent) {
  if (column.IsNullAt(row)) {
    out->append("null");
    return;
  }
  switch (core::BaseOf(column.type())) {
    case core::TypeId::kTuple:
      if (core::IsMap(column.type())) {  // a JSON object; keys are strings
        const core::Column& keys = column.Element(0);
        out->push_back('{');
        for (uint64_t e = keys.ArrayBegin(row); e < keys.Offsets()[row]; ++e) {
          if (e != keys.ArrayBegin(row)) out->push_back(',');
          if (core::HasStringLayout(keys.Nested().type())) {
            AppendJsonString(keys.Nested().StringAt(e), out);
          } else {
            std::string key;
            core::AppendValueText(keys.Nested(), e, &key);
            AppendJsonString(key, out);
          }
          out->push_back(':');
          AppendJsonValue(column.Element(1).Nested(), e, quote_64bit, out, -1);
        }
        out->push_back('}');
        return;
      }
      if (core::IsArrayOfTuples(column.type())) {  // an array of objects or of arrays
        const std::vector<std::string>& names = core::TupleTypeOf(column.type()).names;
        const core::Column& first = column.Element(0);
        out->push_back('[');
        for (uint64_t e = first.ArrayBegin(row); e < first.Offsets()[row]; ++e) {
          if (e != first.ArrayBegin(row)) out->push_back(',');
          out->push_back(names.empty() ? '[' : '{');
          for (size_t i = 0; i < column.TupleSize(); ++i) {
            if (i > 0) out->push_back(',');
            if (!names.empty()) {
              AppendJsonString(names[i], out);
              out->push_back(':');
            }
            AppendJsonValue(column.Element(i).Nested(), e, quote_64bit, out, -1);
          }
          out->push_back(names.empty() ? ']' : '}');
        }
        out->push_back(']');
        return;
      }
      if (!core::TupleTypeOf(column.type()).names.empty()) {  // a named tuple is an object
        const std::vector<std::string>& names = core::TupleTypeOf(column.type()).names;
        out->push_back('{');
        for (size_t i = 0; i < column.TupleSize(); ++i) {
          if (i > 0) out->push_back(',');
          AppendJsonString(names[i], out);
          out->push_back(':');
          AppendJsonValue(column.Element(i), row, quote_64bit, out, -1);
        }
        out->push_back('}');
        return;
      }
      // an unnamed tuple is a JSON array of its elements
      out->push_back('[');
      for (size_t i = 0; i < column.TupleSize(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonValue(column.Element(i), row, quote_64bit, out, -1);
      }
      out->push_back(']');
      return;
    case core::TypeId::kArray: {
      const uint64_t begin = column.ArrayBegin(row), end = column.Offsets()[row];
      // The JSON format (not JSONEachRow / compact) puts each element of an array of arrays on
      // its own line, one tab deeper, as ClickHouse's pretty JSON does.
      const bool lines = pretty_indent >= 0 && core::IsArray(column.Nested().type()) && end > begin;
      out->push_back('[');
      for (uint64_t e = begin; e < end; ++e) {
        if (e != begin) out->push_back(',');
        if (lines) {
          out->push_back('\n');
          out->append(pretty_indent + 1, '\t');
        }
        AppendJsonValue(column.Nested(), e, quote_64bit, out, lines ? pretty_indent + 1 : -1);
      }
      if (lines) {
        out->push_back('\n');
        out->append(pretty_indent, '\t');
      }
      out->push_back(']');
      return;
    }
    case core::TypeId::kUInt64:
    case core::TypeId::kInt64:
      if (!quote_64bit) break;
      out->push_back('"');
      core::AppendValueText(column, row, out);
      out->push_back('"');
      return;
    case core::TypeId::kString:
    case core::TypeId::kFixedString:
      AppendJsonString(column.StringAt(row), out);
      return;
    case core::TypeId::kDate:
    case core::TypeId::kDateTime:
    case core::TypeId::kDateTime64:
    case core::TypeId::kUUID:
      out->push_back('"');
      core::AppendValueText(column, row, out);
      out->push_back('"');
      return;
    case core::TypeId::kFloat32:
      if (!std::isfinite(column.Get<float>(row))) {
        out->append("null");
        return;
      }
      break;
    case core::TypeId::kFloat64:
      if (!std::isfinite(column.Get<double>(row))) {
        out->append("null");
        return;
      }
      break;
    default:
      break;
  }
  core::AppendValueText(column, row, out);
}

void JsonOutput::Begin(const std::vector<std::string>& names,
                       const std::vector<core::TypeId>& types, std::string* out) {
  quoted_names_.clear();
  for (const std::string& name : names) {
    std::string quoted;
    AppendJsonString(name, &quoted);
    quoted_names_.push_back(std::move(quoted));
  }
  out->append("{\n\t\"meta\":\n\t[\n");
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out->append(",\n");
    out->append("\t\t{\n\t\t\t\"name\": ");
    out->append(quoted_names_[i]);
    out->append(",\n\t\t\t\"type\": ");
    AppendJsonString(core::TypeName(types[i]), out);
    out->append("\n\t\t}");
  }
  out->append("\n\t],\n\n\t\"data\":\n\t[\n");
}

void JsonOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    if (rows_ > 0) out->append(",\n");
    ++rows_;
    if (compact_) {
      out->append("\t\t[");
      for (size_t c = 0; c < columns; ++c) {
        if (c > 0) out->append(", ");
        AppendJsonValue(*block.columns[c], row, quote_64bit_, out);
      }
      out->push_back(']');
    } else {
      out->append("\t\t{\n");
      for (size_t c = 0; c < columns; ++c) {
        if (c > 0) out->append(",\n");
        out->append("\t\t\t");
        out->append(quoted_names_[c]);
        out->append(": ");
        AppendJsonValue(*block.columns[c], row, quote_64bit_, out, /*pretty_indent=*/3);
      }
      out->append("\n\t\t}");
    }
  }
}

void JsonOutput::AppendRow(const core::Block& block, size_t row, int indent,
                           std::string* out) const {
  const std::string tabs(indent, '\t');
  out->append(compact_ ? "[" : "{\n");
  for (size_t c = 0; c < block.columns.size(); ++c) {
    if (compact_) {
      if (c > 0) out->append(", ");
    } else {
      if (c > 0) out->append(",\n");
      out->append(tabs + quoted_names_[c] + ": ");
    }
    AppendJsonValue(*block.columns[c], row, quote_64bit_, out, compact_ ? -1 : indent);
  }
  out->append(compact_ ? "]" : "\n" + tabs.substr(1) + "}");
}

void JsonOutput::WriteTotals(const core::Block& totals, std::string* out) {
  totals_.clear();
  if (totals.rows() == 0) return;
  if (!compact_) totals_ = "\n\t";
  AppendRow(totals, 0, 2, &totals_);
}

void JsonOutput::WriteExtremes(const core::Block& extremes, std::string* out) {
  extremes_.clear();
  if (extremes.rows() < 2) return;
  const char* names[2] = {"min", "max"};
  extremes_ = "\n\t{";
  for (size_t row = 0; row < 2; ++row) {
    extremes_.append(row == 0 ? "\n\t\t\"" : ",\n\t\t\"");
    extremes_.append(names[row]);
    extremes_.append(compact_ ? "\": " : "\":\n\t\t");
    AppendRow(extremes, row, 3, &extremes_);
  }
  extremes_.append("\n\t}");
}

void JsonOutput::End(std::string* out) {
  out->append("\n\t],");
  if (!totals_.empty()) out->append("\n\n\t\"totals\":" + std::string(compact_ ? " " : "") + totals_ + ",");
  if (!extremes_.empty()) out->append("\n\n\t\"extremes\":" + extremes_ + ",");
  out->append("\n\n\t\"rows\": ");
  out->append(std::to_string(rows_));
  if (write_statistics_) {
    out->append(",\n\n\t\"statistics\":\n\t{\n\t\t\"elapsed\": ");
    core::AppendFloatText(statistics_.elapsed_seconds, out);
    out->append(",\n\t\t\"rows_read\": ");
    out->append(std::to_string(statistics_.rows_read));
    out->append(",\n\t\t\"bytes_read\": ");
    out->append(std::to_string(statistics_.bytes_read));
    out->append("\n\t}");
  }
  out->append("\n}\n");
}

}  // namespace granite::coordinator

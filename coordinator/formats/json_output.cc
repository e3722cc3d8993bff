#include "coordinator/formats/json_output.h"

#include <cmath>

#include "coordinator/formats/text_escaping.h"
#include "core/tuple_type.h"
#include "core/value_text.h"

namespace granite::coordinator {

namespace {

// Writes a JSON array or object of `count` items: `key(i)` (objects only) and `value(i, indent)`
// write item i. Compact (`indent` < 0): [a,b] / {"k":v}. Pretty (the JSON format's rows): each
// item on its own line one tab deeper, `"k": v`; empty containers stay `[]` / `{}`, except an
// empty tuple, which ClickHouse writes as an opened and closed block.
template <typename Key, typename Value>
void AppendContainer(bool object, size_t count, int indent, bool empty_block, std::string* out,
                     const Key& key, const Value& value) {
  out->push_back(object ? '{' : '[');
  const bool lines = indent >= 0 && (count > 0 || empty_block);
  if (lines && count == 0) out->push_back('\n');
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out->push_back(',');
    if (lines) {
      out->push_back('\n');
      out->append(indent + 1, '\t');
    }
    if (object) {
      key(i);
      out->append(lines ? ": " : ":");
    }
    value(i, lines ? indent + 1 : -1);
  }
  if (lines) {
    out->push_back('\n');
    out->append(indent, '\t');
  }
  out->push_back(object ? '}' : ']');
}

bool IsCompound(core::TypeId type) { return core::IsArray(type) || core::IsTuple(type); }

}  // namespace

void AppendJsonValue(const core::Column& column, size_t row, bool quote_64bit, std::string* out,
                     int pretty_indent) {
  if (column.IsNullAt(row)) {
    out->append("null");
    return;
  }
  const int indent = pretty_indent;
  auto no_key = [](size_t) {};
  switch (core::BaseOf(column.type())) {
    case core::TypeId::kTuple: {
      const core::TupleType& tuple = core::TupleTypeOf(column.type());
      const std::vector<std::string>& names = tuple.names;
      auto name_key = [&](size_t i) { AppendJsonString(names[i], out); };
      if (tuple.map) {  // an object; keys are strings
        const core::Column& keys = column.Element(0);
        const core::Column& values = column.Element(1);
        const uint64_t begin = keys.ArrayBegin(row);
        auto map_key = [&](size_t i) {
          if (core::HasStringLayout(keys.Nested().type())) {
            AppendJsonString(keys.Nested().StringAt(begin + i), out);
          } else {
            std::string key;
            core::AppendValueText(keys.Nested(), begin + i, &key);
            AppendJsonString(key, out);
          }
        };
        AppendContainer(true, keys.ArraySizeAt(row), indent, false, out, map_key,
                        [&](size_t i, int inner) {
                          AppendJsonValue(values.Nested(), begin + i, quote_64bit, out, inner);
                        });
        return;
      }
      if (tuple.array) {  // an array of objects (named) or of arrays
        const uint64_t begin = column.Element(0).ArrayBegin(row);
        AppendContainer(false, column.Element(0).ArraySizeAt(row), indent, false, out, no_key,
                        [&](size_t e, int inner) {
                          AppendContainer(!names.empty(), column.TupleSize(), inner, true, out,
                                          name_key, [&](size_t i, int deeper) {
                                            AppendJsonValue(column.Element(i).Nested(), begin + e,
                                                            quote_64bit, out, deeper);
                                          });
                        });
        return;
      }
      // a named tuple is an object, an unnamed one an array of its elements
      AppendContainer(!names.empty(), column.TupleSize(), indent, true, out, name_key,
                      [&](size_t i, int inner) {
                        AppendJsonValue(column.Element(i), row, quote_64bit, out, inner);
                      });
      return;
    }
    case core::TypeId::kArray: {
      // The JSON format (not JSONEachRow / compact) puts each element of an array of arrays or
      // tuples on its own line, one tab deeper, as ClickHouse's pretty JSON does.
      const uint64_t begin = column.ArrayBegin(row);
      AppendContainer(false, column.ArraySizeAt(row),
                      IsCompound(column.Nested().type()) ? indent : -1, false, out, no_key,
                      [&](size_t e, int inner) {
                        AppendJsonValue(column.Nested(), begin + e, quote_64bit, out, inner);
                      });
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

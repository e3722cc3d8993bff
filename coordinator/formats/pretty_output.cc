#include "coordinator/formats/pretty_output.h"

#include <algorithm>

#include "coordinator/formats/text_escaping.h"
#include "core/value_text.h"

namespace granite::coordinator {
namespace {

// Escapes control characters so that a cell stays on one line; other bytes are shown as is.
void AppendDisplayString(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      case '\0': out->append("\\0"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default: out->push_back(c);
    }
  }
}

void Repeat(const char* symbol, size_t count, std::string* out) {
  for (size_t i = 0; i < count; ++i) out->append(symbol);
}

}  // namespace

void PrettyOutput::Begin(const std::vector<std::string>& names,
                         const std::vector<core::TypeId>& types, std::string* out) {
  names_ = names;
  types_ = types;
  align_right_.clear();
  cells_.clear();
  for (core::TypeId type : types) {
    align_right_.push_back(!AlignsLeft(type));
    cells_.emplace_back(core::TypeId::kString);
  }
  total_rows_ = 0;
}

void PrettyOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  size_t keep = total_rows_ >= kMaxRows ? 0 : std::min(rows, kMaxRows - total_rows_);
  total_rows_ += rows;
  std::string text;
  for (size_t c = 0; c < block.columns.size(); ++c) {
    const core::Column& column = *block.columns[c];
    for (size_t row = 0; row < keep; ++row) {
      text.clear();
      if (column.IsNullAt(row)) {
        text.append("ᴺᵁᴸᴸ");
      } else if (core::HasStringLayout(column.type())) {
        AppendDisplayString(column.StringAt(row), &text);
      } else {
        core::AppendValueText(column, row, &text);
      }
      cells_[c].AppendString(text);
    }
  }
}

void PrettyOutput::AppendCell(std::string_view text, size_t column, std::string* out) const {
  size_t padding = widths_[column] - Utf8Width(text);
  out->push_back(' ');
  if (align_right_[column]) out->append(padding, ' ');
  out->append(text);
  if (!align_right_[column]) out->append(padding, ' ');
  out->push_back(' ');
}

void PrettyOutput::AppendRule(const char* left, const char* fill, const char* middle,
                              const char* right, std::string* out) const {
  out->append(left);
  for (size_t c = 0; c < widths_.size(); ++c) {
    if (c > 0) out->append(middle);
    Repeat(fill, widths_[c] + 2, out);
  }
  out->append(right);
  out->push_back('\n');
}

void PrettyOutput::WriteTotals(const core::Block& totals, std::string* out) {
  totals_ = std::make_unique<PrettyOutput>(compact_);
  totals_->Begin(names_, types_, out);
  totals_->Write(totals, out);
}

void PrettyOutput::WriteExtremes(const core::Block& extremes, std::string* out) {
  extremes_ = std::make_unique<PrettyOutput>(compact_);
  extremes_->Begin(names_, types_, out);
  extremes_->Write(extremes, out);
}

void PrettyOutput::End(std::string* out) {
  EndTable(out);
  if (totals_ != nullptr) {
    out->append("\nTotals:\n");
    totals_->EndTable(out);
  }
  if (extremes_ != nullptr) {
    out->append("\nExtremes:\n");
    extremes_->EndTable(out);
  }
}

void PrettyOutput::EndTable(std::string* out) {
  const size_t columns = names_.size();
  const size_t rows = columns == 0 ? 0 : cells_[0].size();
  if (rows == 0) return;
  widths_.assign(columns, 0);
  for (size_t c = 0; c < columns; ++c) {
    widths_[c] = Utf8Width(names_[c]);
    for (size_t row = 0; row < rows; ++row) {
      widths_[c] = std::max(widths_[c], Utf8Width(cells_[c].StringAt(row)));
    }
  }
  if (compact_) {
    // ┌─a─┬─s───┐: each name is framed by one dash on either side and padded with dashes.
    out->append("┌");
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->append("┬");
      out->append("─");
      size_t padding = widths_[c] - Utf8Width(names_[c]);
      if (align_right_[c]) Repeat("─", padding, out);
      out->append(names_[c]);
      if (!align_right_[c]) Repeat("─", padding, out);
      out->append("─");
    }
    out->append("┐\n");
  } else {
    AppendRule("┏", "━", "┳", "┓", out);
    out->append("┃");
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->append("┃");
      AppendCell(names_[c], c, out);
    }
    out->append("┃\n");
    AppendRule("┡", "━", "╇", "┩", out);
  }
  for (size_t row = 0; row < rows; ++row) {
    if (!compact_ && row > 0) AppendRule("├", "─", "┼", "┤", out);
    out->append("│");
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->append("│");
      AppendCell(cells_[c].StringAt(row), c, out);
    }
    out->append("│\n");
  }
  AppendRule("└", "─", "┴", "┘", out);
  if (total_rows_ > kMaxRows) {
    out->append("  Showed first ");
    out->append(std::to_string(kMaxRows));
    out->append(".\n");
  }
}

}  // namespace granite::coordinator

// FragmentPipeline's broadcast joins (plan::BroadcastJoin): compiled once per fragment — the
// build sides hashed — and applied per filtered block by every scan thread.
#include "core/fragment_pipeline.h"
#include "core/join/gather_rows.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// True when `rows` is 0, 1, ..., n - 1: every input row once, in order.
bool IsIdentity(const std::vector<int64_t>& rows, size_t n) {
  if (rows.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (rows[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Returns the rows `rows` of `column`; a column the filter left empty (read by nothing after
// it, FragmentPipeline::Filter) stays an empty placeholder.
ColumnPtr Gather(const ColumnPtr& column, const std::vector<int64_t>& rows, size_t input_rows) {
  if (column->size() != input_rows) return std::make_shared<Column>(column->logical_type());
  return GatherRows(*column, rows);
}

}  // namespace

absl::Status FragmentPipeline::CompileJoins(const plan::Fragment& fragment) {
  for (const plan::BroadcastJoin& join : fragment.joins) {
    CompiledJoin compiled{join.kind, {}, JoinTable()};
    std::vector<TypeId> probe_types;
    for (const plan::Expr& key : join.probe_keys) {
      ASSIGN_OR_RETURN(auto expr, Expression::Compile(key));
      probe_types.push_back(expr->type());
      compiled.probe_keys.push_back(std::move(expr));
    }
    const bool unmatched = join.kind == JoinTable::Kind::kRight || join.kind == JoinTable::Kind::kFull;
    ASSIGN_OR_RETURN(compiled.table,
                     JoinTable::Build(join.build, join.build_keys, probe_types, unmatched));
    joins_.push_back(std::move(compiled));
  }
  if (fragment.join_filter) {
    ASSIGN_OR_RETURN(join_filter_, Expression::Compile(*fragment.join_filter));
  }
  return absl::OkStatus();
}

absl::StatusOr<Block> FragmentPipeline::Join(Block block, size_t first_join) const {
  for (size_t j = first_join; j < joins_.size(); ++j) {
    const CompiledJoin& join = joins_[j];
    const size_t rows = block.rows();
    std::vector<ColumnPtr> keys;
    std::vector<const Column*> key_columns;
    for (const auto& key : join.probe_keys) {
      ASSIGN_OR_RETURN(ColumnPtr column, key->Evaluate(block));
      key_columns.push_back(column.get());
      keys.push_back(std::move(column));
    }
    ProbedRows joined = join.table.Probe(join.kind, key_columns, rows);
    Block out;
    out.rows_without_columns = joined.probe.size();
    if (IsIdentity(joined.probe, rows)) {
      out.columns = std::move(block.columns);
    } else {
      for (const ColumnPtr& column : block.columns) {
        out.columns.push_back(Gather(column, joined.probe, rows));
      }
    }
    const Block& build = join.table.build();
    for (const ColumnPtr& column : build.columns) {
      out.columns.push_back(GatherRows(*column, joined.build));
    }
    block = std::move(out);
    if (block.rows() == 0) return block;
  }
  if (!join_filter_) return block;
  ASSIGN_OR_RETURN(ColumnPtr mask_column, join_filter_->Evaluate(block));
  const uint8_t* mask = mask_column->Data<uint8_t>();
  Block out;
  size_t kept = 0;
  for (size_t i = 0; i < block.rows(); ++i) kept += mask[i] != 0;
  if (kept == block.rows()) return block;
  out.rows_without_columns = kept;
  for (const ColumnPtr& column : block.columns) {
    if (column->size() != block.rows()) {
      out.columns.push_back(column);  // a placeholder stays one
    } else {
      out.columns.push_back(std::make_shared<Column>(column->Filter(mask)));
    }
  }
  return out;
}

absl::Status FragmentPipeline::ConsumeUnmatched(LocalState& state, const Block& probe_shape) const {
  if (joins_.empty()) return absl::OkStatus();
  const CompiledJoin& first = joins_[0];
  if (first.kind != JoinTable::Kind::kRight && first.kind != JoinTable::Kind::kFull) {
    return absl::OkStatus();
  }
  const std::vector<int64_t> rows = first.table.Unmatched();
  if (rows.empty()) return absl::OkStatus();
  // The probe's side of these rows is its columns' default values (-1 gathers defaults); a
  // column nothing reads after the filter stays an empty placeholder, as Filter leaves it.
  const std::vector<int64_t> none(rows.size(), -1);
  Block block;
  block.rows_without_columns = rows.size();
  for (size_t c = 0; c < probe_shape.columns.size(); ++c) {
    const bool read = c < read_after_filter_.size() ? read_after_filter_[c] : true;
    block.columns.push_back(read ? GatherRows(*probe_shape.columns[c], none)
                                 : std::make_shared<Column>(probe_shape.columns[c]->logical_type()));
  }
  for (const ColumnPtr& column : first.table.build().columns) {
    block.columns.push_back(GatherRows(*column, rows));
  }
  return ConsumeJoined(state, std::move(block), /*first_join=*/1);
}

}  // namespace granite::core

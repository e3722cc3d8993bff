// FragmentPipeline's broadcast joins (plan::BroadcastJoin): compiled once per fragment — the
// build sides hashed — and applied per filtered block by every scan thread. A build over the
// query's join budget (core/join/join_budget.h) is split into buckets (GraceHashJoin): only
// bucket 0 is hashed here, the probe rows of the other buckets are spilled as they come and
// joined after the scan (ConsumeSpilled, fragment_pipeline_grace.cc).
#include "core/fragment_pipeline.h"
#include "core/join/gather_rows.h"
#include "core/join/join_budget.h"
#include "core/join/row_keys.h"
#include "core/memory/memory_tracker.h"
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

std::shared_ptr<GraceHashJoin> FragmentPipeline::NewGraceJoin(const plan::BroadcastJoin& join,
                                                              const Block& build_shape,
                                                              const Settings& settings,
                                                              const std::string& spill_dir) {
  const JoinBudget budget = JoinBudget::FromSettings(settings, ServerMemoryTracker().limit());
  if (!budget.spills || spill_dir.empty()) return nullptr;
  bool word_keys = join.probe_keys.size() == 1 && join.build_keys.size() == 1;
  if (word_keys) {
    word_keys = IsWordKey(RemoveNullable(join.probe_keys[0].type)) &&
                IsWordKey(RemoveNullable(build_shape.columns[join.build_keys[0]]->type()));
  }
  Block shape;
  for (const ColumnPtr& column : build_shape.columns) {
    shape.columns.push_back(std::make_shared<Column>(column->logical_type()));
  }
  return std::make_shared<GraceHashJoin>(budget.Grace(spill_dir), join.build_keys, word_keys,
                                         std::move(shape));
}

absl::Status FragmentPipeline::CompileJoins(const plan::Fragment& fragment, JoinInputs inputs) {
  const JoinBudget budget =
      JoinBudget::FromSettings(fragment.settings, ServerMemoryTracker().limit());
  for (size_t j = 0; j < fragment.joins.size(); ++j) {
    const plan::BroadcastJoin& join = fragment.joins[j];
    CompiledJoin compiled{join.kind, {}, JoinTable(), nullptr, join.build_keys, {}};
    compiled.use_nulls = join.use_nulls;
    for (const plan::Expr& key : join.probe_keys) {
      if (key.kind == plan::Expr::Kind::kColumn) compiled.probe_columns.push_back(key.column);
    }
    if (compiled.probe_columns.size() != join.probe_keys.size()) compiled.probe_columns.clear();
    for (const plan::Expr& key : join.probe_keys) {
      ASSIGN_OR_RETURN(auto expr, Expression::Compile(key));
      compiled.probe_types.push_back(expr->type());
      compiled.probe_keys.push_back(std::move(expr));
    }
    Block build = join.build;
    if (j < inputs.prepared.size() && inputs.prepared[j] && inputs.prepared[j]->spilled()) {
      compiled.grace = inputs.prepared[j];  // `build` is its bucket 0
    } else if (std::shared_ptr<GraceHashJoin> grace =
                   NewGraceJoin(join, join.build, fragment.settings, inputs.spill_dir)) {
      RETURN_IF_ERROR(grace->AddBuild(join.build));
      if (grace->spilled()) {
        ASSIGN_OR_RETURN(build, grace->FinishBuild());
        compiled.grace = std::move(grace);
      }
    } else {
      ASSIGN_OR_RETURN(build, budget.Limit(std::move(build)));
    }
    const bool unmatched = join.kind == JoinTable::Kind::kRight || join.kind == JoinTable::Kind::kFull;
    ASSIGN_OR_RETURN(compiled.table, JoinTable::Build(std::move(build), join.build_keys,
                                                      compiled.probe_types, unmatched));
    joins_.push_back(std::move(compiled));
  }
  if (fragment.join_filter) {
    ASSIGN_OR_RETURN(join_filter_, Expression::Compile(*fragment.join_filter));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ColumnPtr>> FragmentPipeline::ProbeKeys(const Block& block,
                                                                   size_t j) const {
  std::vector<ColumnPtr> keys;
  for (const auto& key : joins_[j].probe_keys) {
    ASSIGN_OR_RETURN(ColumnPtr column, key->Evaluate(block));
    keys.push_back(std::move(column));
  }
  return keys;
}

absl::Status FragmentPipeline::JoinFrom(LocalState& state, Block block, size_t j) const {
  if (j == joins_.size()) {
    ASSIGN_OR_RETURN(block, FilterJoined(std::move(block)));
    if (block.rows() == 0) return absl::OkStatus();
    return ConsumeOutput(state, std::move(block));
  }
  const CompiledJoin& join = joins_[j];
  ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, ProbeKeys(block, j));
  std::vector<const Column*> key_columns;
  for (const ColumnPtr& key : keys) key_columns.push_back(key.get());
  if (join.grace) {
    // Rows of the spilled buckets wait in their files for ConsumeSpilled; bucket 0's join now.
    ASSIGN_OR_RETURN(std::vector<uint32_t> rows, join.grace->PartitionProbe(block, key_columns));
    if (rows.size() != block.rows()) {
      if (rows.empty()) return absl::OkStatus();
      block = TakeRowsOrPlaceholders(block, rows);
      Block key_block;
      key_block.columns = std::move(keys);
      keys = TakeRowsOrPlaceholders(key_block, rows).columns;
      for (size_t k = 0; k < keys.size(); ++k) key_columns[k] = keys[k].get();
    }
  }
  return ProbeInto(state, block, key_columns, j, join.table);
}

absl::Status FragmentPipeline::ProbeInto(LocalState& state, const Block& block,
                                         const std::vector<const Column*>& keys, size_t j,
                                         const JoinTable& table) const {
  const JoinTable::Kind kind = joins_[j].kind;
  const size_t rows = block.rows();
  // A block whose keys match many build rows is joined in parts of about
  // max_joined_block_size_rows rows, each taken through the rest of the pipeline before the
  // next is made.
  for (size_t begin = 0; begin < rows;) {
    size_t next = rows;
    ProbedRows joined = table.ProbeRange(kind, keys, begin, rows, max_joined_rows_, &next);
    const bool whole = begin == 0 && next == rows;
    begin = next;
    if (joined.probe.empty()) continue;
    Block out;
    out.rows_without_columns = joined.probe.size();
    if (whole && IsIdentity(joined.probe, rows)) {
      out.columns = block.columns;
    } else {
      for (const ColumnPtr& column : block.columns) {
        out.columns.push_back(Gather(column, joined.probe, rows));
      }
    }
    AppendBuildColumns(table, joined.build, joins_[j].use_nulls, &out);
    RETURN_IF_ERROR(JoinFrom(state, std::move(out), j + 1));
  }
  return absl::OkStatus();
}

bool FragmentPipeline::joins_selected() const {
  if (joins_.empty() || !filter_ || filter_counter_ || hash_limit_ > 0) return false;
  const CompiledJoin& first = joins_[0];
  return !first.grace && !first.probe_columns.empty() &&
         (first.kind == JoinTable::Kind::kInner || first.kind == JoinTable::Kind::kSemi);
}

absl::Status FragmentPipeline::JoinSelected(LocalState& state, const Block& input,
                                            const uint8_t* mask, size_t kept) const {
  const CompiledJoin& join = joins_[0];
  std::vector<ColumnPtr> keys;
  std::vector<const Column*> key_columns;
  for (uint32_t c : join.probe_columns) {
    keys.push_back(std::make_shared<Column>(input.columns[c]->Filter(mask)));
    key_columns.push_back(keys.back().get());
  }
  // The kept rows' positions, written without a branch per row (one spare slot).
  std::vector<int64_t> selected(input.rows() + 1);
  size_t n = 0;
  for (size_t i = 0; i < input.rows(); ++i) {
    selected[n] = static_cast<int64_t>(i);
    n += mask[i] != 0;
  }
  const size_t rows = input.rows();
  for (size_t begin = 0; begin < kept;) {
    size_t next = kept;
    ProbedRows joined = join.table.ProbeRange(join.kind, key_columns, begin, kept,
                                              max_joined_rows_, &next);
    begin = next;
    if (joined.probe.empty()) continue;
    for (int64_t& row : joined.probe) row = selected[row];  // an inner or semi join's rows: all >= 0
    Block out;
    out.rows_without_columns = joined.probe.size();
    for (size_t c = 0; c < input.columns.size(); ++c) {
      // As Filter leaves them: a column read by nothing after the filter, an empty placeholder.
      out.columns.push_back(ReadAfterFilter(c)
                                ? Gather(input.columns[c], joined.probe, rows)
                                : std::make_shared<Column>(input.columns[c]->logical_type()));
    }
    AppendBuildColumns(join.table, joined.build, join.use_nulls, &out);
    RETURN_IF_ERROR(JoinFrom(state, std::move(out), 1));
  }
  return absl::OkStatus();
}

void FragmentPipeline::AppendBuildColumns(const JoinTable& table,
                                           const std::vector<int64_t>& build_rows, bool use_nulls,
                                           Block* out) const {
  for (const ColumnPtr& column : table.build().columns) {
    const bool read = ReadAfterFilter(out->columns.size());
    out->columns.push_back(read ? GatherRows(*column, build_rows, use_nulls)
                                : std::make_shared<Column>(
                                      WithNullable(column->type(), use_nulls || column->nullable())));
  }
}

absl::StatusOr<Block> FragmentPipeline::FilterJoined(Block block) const {
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
  return AddUnmatched(state, probe_shape, first.table);
}

absl::Status FragmentPipeline::AddUnmatched(LocalState& state, const Block& probe_shape,
                                            const JoinTable& table) const {
  const std::vector<int64_t> rows = table.Unmatched();
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
  for (const ColumnPtr& column : table.build().columns) {
    block.columns.push_back(GatherRows(*column, rows));
  }
  return JoinFrom(state, std::move(block), 1);
}

}  // namespace granite::core

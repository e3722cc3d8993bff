// Binder's part for a FROM whose joins run on the workers (BroadcastSource): the source columns
// in FROM order, the join keys and filters, and the joined block's layout (binder.h).
#include <algorithm>
#include <memory>
#include <optional>

#include "coordinator/planner/binder.h"
#include "core/error.h"
#include "core/plan/expr_remap.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using core::plan::Expr;

absl::Status Unplannable(const std::string& what) {
  return core::Error(ErrorCode::kLogicalError, "Broadcast join: " + what);
}

// The largest column reference of `e` plus one (0 without any).
uint32_t ColumnsRead(const Expr& e) {
  uint32_t most = e.is_column() ? e.column + 1 : 0;
  for (const Expr& arg : e.args) most = std::max(most, ColumnsRead(arg));
  return most;
}

// `e` with every unqualified identifier qualified by `qualifier` (a lambda is left as it is:
// its parameters are unqualified names).
sql::ExprPtr Qualified(const sql::ExprPtr& e, const std::string& qualifier) {
  if (e->kind == sql::ExprKind::kFunction && e->name == "lambda") return e;
  auto copy = std::make_shared<sql::Expr>(*e);
  if (copy->kind == sql::ExprKind::kIdentifier && copy->qualifier.empty()) {
    copy->qualifier = qualifier;
  }
  for (sql::ExprPtr& arg : copy->args) arg = Qualified(arg, qualifier);
  return copy;
}

}  // namespace

absl::StatusOr<Binder::Source> Binder::BindBroadcastSource(const BroadcastSource& broadcast,
                                                           QueryPlan* plan) {
  Source probe;
  RETURN_IF_ERROR(BindTable(broadcast.probe, plan, &probe));
  if (plan->source != SourceKind::kWorkers) return Unplannable("the probe is not a table");
  size_t relations = broadcast.probe_relation + 1;
  for (const BroadcastSource::Build& build : broadcast.builds) {
    for (size_t r : build.relations) relations = std::max(relations, r + 1);
  }
  Source source;
  source.table = probe.table;
  // The probe's policy names the probe's columns: qualified, no build column can answer.
  if (probe.row_policy) source.row_policy = Qualified(probe.row_policy, broadcast.probe_qualifier);
  for (size_t r = 0; r < relations; ++r) {
    if (r == broadcast.probe_relation) {
      for (size_t c = 0; c < probe.names.size(); ++c) {
        source.names.push_back(probe.names[c]);
        source.types.push_back(probe.types[c]);
        source.qualifiers.push_back(broadcast.probe_qualifier);
        source.hidden.push_back(std::count(broadcast.probe_hidden.begin(),
                                           broadcast.probe_hidden.end(), probe.names[c]) > 0);
        source.slots.emplace_back(0, c);
      }
    }
    for (size_t b = 0; b < broadcast.builds.size(); ++b) {
      const LocalTable& table = broadcast.builds[b].table;
      for (size_t c = 0; c < table.names.size(); ++c) {
        if (broadcast.builds[b].relations[c] != r) continue;
        source.names.push_back(table.names[c]);
        source.types.push_back(broadcast.builds[b].use_nulls ? core::MakeNullable(table.types[c])
                                                             : table.types[c]);
        source.qualifiers.push_back(table.qualifiers[c]);
        source.hidden.push_back(table.hidden[c]);
        source.slots.emplace_back(b + 1, c);
      }
    }
  }
  return source;
}

absl::Status Binder::BindJoins(const BroadcastSource& broadcast, const Source& source,
                               SelectBinder& binder, QueryPlan* plan) {
  core::plan::Fragment& fragment = plan->fragment;
  // The SELECT's own WHERE filters joined rows; the probe's conjuncts filter the rows read.
  fragment.join_filter = std::move(fragment.filter);
  fragment.filter.reset();
  if (broadcast.probe_filter) RETURN_IF_ERROR(BindWhere(*broadcast.probe_filter, binder, plan));
  for (const BroadcastSource::Build& build : broadcast.builds) {
    core::plan::BroadcastJoin join;
    join.kind = build.kind;
    join.use_nulls = build.use_nulls;
    if (build.local_read) {
      // Co-located: the build's SELECT bound as a fragment every worker runs on its own shard.
      Binder read_binder(catalog_, system_tables_, worker_count_, plan->settings);
      read_binder.set_row_policies(row_policies_);
      read_binder.set_current_database(current_database_);
      ASSIGN_OR_RETURN(QueryPlan read, read_binder.Bind(*build.local_read));
      const core::plan::Fragment& local = read.fragment;
      if (read.source != SourceKind::kWorkers || local.aggregating() || local.joining() ||
          !local.order_by.empty() || local.limit > 0 ||
          local.projections.size() != build.table.names.size()) {
        return Unplannable("a co-located build is not a plain read of a table");
      }
      join.local_build = std::make_shared<const core::plan::Fragment>(local);
      join.shuffle = build.shuffle;
    }
    for (const auto& [probe_key, build_key] : build.keys) {
      ASSIGN_OR_RETURN(Expr probe, binder.BindInput(*probe_key));
      ASSIGN_OR_RETURN(Expr column, binder.BindInput(*build_key));
      if (!column.is_column()) return Unplannable("a build key is not a column");
      join.probe_keys.push_back(std::move(probe));
      join.build_keys.push_back(column.column);  // an input index until LayOutJoinedBlock
    }
    fragment.joins.push_back(std::move(join));
  }
  return LayOutJoinedBlock(broadcast, source, binder.SourcePositions(), plan);
}

absl::Status Binder::LayOutJoinedBlock(const BroadcastSource& broadcast, const Source& source,
                                       const std::vector<size_t>& positions, QueryPlan* plan) {
  core::plan::Fragment& fragment = plan->fragment;
  // Input i comes from table source.slots[positions[i]]: group the inputs by table.
  std::vector<std::vector<uint32_t>> by_table(broadcast.builds.size() + 1);
  for (uint32_t i = 0; i < positions.size(); ++i) {
    by_table[source.slots[positions[i]].first].push_back(i);
  }
  std::vector<uint32_t> map(positions.size());
  std::vector<uint32_t> offsets(by_table.size() + 1, 0);
  fragment.scan.columns.clear();
  uint32_t next = 0;
  for (size_t t = 0; t < by_table.size(); ++t) {
    offsets[t] = next;
    core::Block build;
    if (t > 0) build.rows_without_columns = broadcast.builds[t - 1].table.block.rows();
    // A co-located build projects only the columns used, in this order.
    std::optional<core::plan::Fragment> local;
    if (t > 0 && fragment.joins[t - 1].local_build) {
      local = *fragment.joins[t - 1].local_build;
      local->projections.clear();
    }
    for (uint32_t i : by_table[t]) {
      map[i] = next++;
      const size_t column = source.slots[positions[i]].second;
      if (t == 0) {
        fragment.scan.columns.push_back(source.names[positions[i]]);
        continue;
      }
      const LocalTable& table = broadcast.builds[t - 1].table;
      if (local) {
        local->projections.push_back(fragment.joins[t - 1].local_build->projections[column]);
      } else {
        build.columns.push_back(table.block.columns[column]);
      }
      fragment.joins[t - 1].names.push_back(table.qualifiers[column] + "." + table.names[column]);
    }
    if (local) {
      fragment.joins[t - 1].local_build = std::make_shared<const core::plan::Fragment>(*local);
    } else if (t > 0) {
      fragment.joins[t - 1].build = std::move(build);
    }
  }
  offsets[by_table.size()] = next;
  auto remap = [&map](Expr& e) { core::plan::RemapColumns(map, &e); };
  if (fragment.filter) {
    remap(*fragment.filter);
    if (ColumnsRead(*fragment.filter) > offsets[1]) return Unplannable("the filter reads a build");
  }
  for (size_t j = 0; j < fragment.joins.size(); ++j) {
    core::plan::BroadcastJoin& join = fragment.joins[j];
    for (Expr& key : join.probe_keys) {
      remap(key);
      if (ColumnsRead(key) > offsets[j + 1]) return Unplannable("a probe key reads a later build");
    }
    for (uint32_t& key : join.build_keys) {
      key = map[key];
      if (key < offsets[j + 1] || key >= offsets[j + 2]) {
        return Unplannable("a build key is not a column of its build");
      }
      key -= offsets[j + 1];
    }
  }
  if (fragment.join_filter) remap(*fragment.join_filter);
  for (Expr& projection : fragment.projections) remap(projection);
  if (fragment.aggregate) {
    for (Expr& key : fragment.aggregate->keys) remap(key);
    for (core::plan::AggregateCall& call : fragment.aggregate->calls) {
      for (Expr& arg : call.args) remap(arg);
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator

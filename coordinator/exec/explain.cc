#include "coordinator/exec/explain.h"

#include "core/error.h"
#include "core/plan/plan_text.h"

namespace granite::coordinator {

namespace {

// The coordinator's steps over the stage block (#i = its column i).
std::vector<std::string> FinalStageLines(const QueryPlan& plan) {
  std::vector<std::string> lines;
  if (plan.has_having) lines.push_back("  Having " + core::plan::ExprText(plan.having));
  lines.push_back("  Expressions [" + core::plan::ExprListText(plan.final_exprs) + "]");
  if (!plan.order.empty()) {
    std::string line = "  Sort [";
    for (size_t i = 0; i < plan.order.size(); ++i) {
      line += (i > 0 ? ", #" : "#") + std::to_string(plan.order[i].column);
      if (plan.order[i].descending) line += " DESC";
      if (plan.order[i].nulls_first) line += " NULLS FIRST";
    }
    lines.push_back(line + "]");
  }
  if (plan.has_limit || plan.offset > 0) {
    lines.push_back("  Limit " + std::to_string(plan.limit) + " offset " +
                    std::to_string(plan.offset));
  }
  return lines;
}

std::string MergeLine(const QueryPlan& plan) {
  if (plan.source == SourceKind::kLocal) return "  Local: the coordinator runs the fragment";
  const std::optional<core::plan::Aggregate>& aggregate = plan.fragment.aggregate;
  if (!aggregate) return "  Concatenate the rows of the workers";
  if (aggregate->finalize_on_worker) return "  Concatenate the groups finalized on the workers";
  std::string line = "  Merge partial states by bucket";
  if (plan.merge_group_limit > 0) {
    line += ", stop at " + std::to_string(plan.merge_group_limit) + " groups";
  }
  if (plan.piece_cut) line += ", cut each bucket to the top rows";
  if (plan.late_finalization) {
    line += plan.settings.late_aggregate_finalization_by_ref ? ", finalize late by reference"
                                                             : ", finalize late";
  }
  if (aggregate->hash_limit > 0) {
    line += ", keep the " + std::to_string(aggregate->hash_limit) + " smallest key hashes";
  }
  return line;
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

// How the worker runs the scan and the aggregation, from the fragment's settings.
std::vector<std::string> ModeLines(const core::plan::Fragment& fragment) {
  const core::Settings& s = fragment.settings;
  std::vector<std::string> lines;
  if (fragment.scan.is_table() && !fragment.scan.table.empty()) {
    lines.push_back("  Scan modes: pruning " + OnOff(s.use_pruning) + ", shared parts snapshot " +
                    OnOff(s.use_parts_snapshot) + ", uncompressed cache " +
                    OnOff(s.use_uncompressed_cache) + ", condition cache " +
                    OnOff(s.use_query_condition_cache) + ", min/max from part bounds " +
                    OnOff(s.use_part_bounds_for_min_max));
  }
  if (fragment.aggregate) {
    lines.push_back("  Aggregate modes: `0 + e` keys folded " + OnOff(s.use_value_ranges) +
                    ", filter by selection vector " + OnOff(s.aggregate_selected_filter) +
                    ", tables presized from stats " +
                    OnOff(s.collect_hash_table_stats_during_aggregation) +
                    ", finalize in place " + OnOff(s.worker_finalize_in_place) +
                    ", worker merge " + s.group_by_worker_merge);
  }
  return lines;
}

}  // namespace

absl::StatusOr<ExplainOptions> ParseExplainOptions(
    const std::map<std::string, std::string>& options) {
  ExplainOptions out;
  for (const auto& [name, value] : options) {
    if (name != "header" && name != "description" && name != "actions" && name != "indexes" &&
        name != "json" && name != "sorting" && name != "keep_logical_steps") {
      return core::Error(core::ErrorCode::kUnknownSetting,
                         "Unknown setting '" + name + "' for EXPLAIN PLAN query");
    }
    if (value != "0" && value != "1") {
      return core::Error(core::ErrorCode::kBadArguments,
                         "Value of EXPLAIN setting '" + name + "' must be 0 or 1, got '" + value +
                             "'");
    }
    if (name == "json" && value == "1") {
      return core::Error(core::ErrorCode::kNotImplemented, "EXPLAIN PLAN json = 1 is not supported");
    }
    if (name == "indexes") out.indexes = value == "1";
  }
  return out;
}

std::vector<std::string> ExplainLines(const QueryPlan& plan, size_t worker_count,
                                      const std::optional<IndexSummary>& indexes) {
  std::vector<std::string> lines = {"Coordinator"};
  for (std::string& line : FinalStageLines(plan)) lines.push_back(std::move(line));
  lines.push_back(MergeLine(plan));
  if (plan.source == SourceKind::kWorkers && !plan.fragment.shards.empty()) {
    // skip_unused_shards: the filter fixes the sharding key.
    std::string line = "Workers: shards";
    for (size_t i = 0; i < plan.fragment.shards.size(); ++i) {
      line += (i == 0 ? " " : ", ") + std::to_string(plan.fragment.shards[i]);
    }
    lines.push_back(line + " of " + std::to_string(worker_count) +
                    " run this fragment (the filter fixes the sharding key)");
  } else if (plan.source == SourceKind::kWorkers) {
    lines.push_back("Workers: each runs this fragment over its shard");
  } else {
    lines.push_back("Local fragment");
  }
  for (std::string& line : core::plan::FragmentText(plan.fragment, "  ")) {
    lines.push_back(std::move(line));
  }
  if (!plan.fragment.scan.string_sizes.empty()) {
    std::string line = "  Reads sizes of [";
    bool first = true;
    for (size_t i = 0; i < plan.fragment.scan.columns.size(); ++i) {
      if (!plan.fragment.scan.reads_sizes(i)) continue;
      line += (first ? "" : ", ") + plan.fragment.scan.columns[i];
      first = false;
    }
    lines.push_back(line + "]");
  }
  for (std::string& line : ModeLines(plan.fragment)) lines.push_back(std::move(line));
  if (plan.fragment.late_materialization) {
    lines.push_back("  Late materialization of the columns the filter and ORDER BY do not read");
  }
  if (indexes) {
    lines.push_back("Indexes");
    lines.push_back("  Parts: " + std::to_string(indexes->parts_selected) + "/" +
                    std::to_string(indexes->parts_total));
    lines.push_back("  Granules: " + std::to_string(indexes->granules_selected) + "/" +
                    std::to_string(indexes->granules_total));
  }
  std::string rules = "Rules:";
  for (const std::string& rule : plan.rules_fired) rules += " " + rule;
  if (plan.rules_fired.empty()) rules += " none";
  lines.push_back(rules);
  return lines;
}

}  // namespace granite::coordinator

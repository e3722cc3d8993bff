#include "coordinator/exec/explain.h"

#include "core/error.h"
#include "core/plan/plan_text.h"

namespace granite::coordinator {

namespace {

std::string ExprList(const std::vector<core::plan::Expr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    out += (i > 0 ? ", " : "") + core::plan::ExprText(exprs[i]);
  }
  return out;
}

// The coordinator's steps over the stage block (#i = its column i).
std::vector<std::string> FinalStageLines(const QueryPlan& plan) {
  std::vector<std::string> lines;
  if (plan.has_having) lines.push_back("  Having " + core::plan::ExprText(plan.having));
  lines.push_back("  Expressions [" + ExprList(plan.final_exprs) + "]");
  if (!plan.order.empty()) {
    std::string line = "  Sort [";
    for (size_t i = 0; i < plan.order.size(); ++i) {
      line += (i > 0 ? ", #" : "#") + std::to_string(plan.order[i].column);
      if (plan.order[i].descending) line += " DESC";
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
  if (!aggregate) return "  Concatenate the workers' rows";
  if (aggregate->finalize_on_worker) return "  Concatenate the groups finalized on the workers";
  std::string line = "  Merge partial states by bucket";
  if (plan.merge_group_limit > 0) {
    line += ", stop at " + std::to_string(plan.merge_group_limit) + " groups";
  }
  if (plan.piece_cut) line += ", cut each bucket to the top rows";
  if (plan.late_finalization) line += ", finalize late";
  if (aggregate->hash_limit > 0) {
    line += ", keep the " + std::to_string(aggregate->hash_limit) + " smallest key hashes";
  }
  return line;
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
  if (plan.source == SourceKind::kWorkers) {
    lines.push_back("Workers (" + std::to_string(worker_count) + "), each over its shard");
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

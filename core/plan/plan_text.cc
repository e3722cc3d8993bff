#include "core/plan/plan_text.h"

#include <cstdio>
#include <string>

#include "core/functions/constant_column.h"
#include "core/types.h"

namespace granite::core::plan {

namespace {

std::string LiteralText(const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* u = std::get_if<uint64_t>(&value)) return std::to_string(*u);
  if (const auto* d = std::get_if<double>(&value)) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", *d);
    return buffer;
  }
  std::string out = "'";
  for (char c : std::get<std::string>(value)) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// A long constant set shows its first values and its size, as a long literal tuple does.
constexpr size_t kShownValues = 8;

std::string SetText(const Expr& set) {
  if (set.set == nullptr) return "tuple()";
  const size_t rows = set.set->size();
  std::string out = "tuple(";
  for (size_t row = 0; row < rows && row < kShownValues; ++row) {
    if (row > 0) out += ", ";
    out += LiteralText(ValueAt(*set.set, row));
  }
  if (rows > kShownValues) out += ", ... " + std::to_string(rows) + " values";
  return out + ")";
}

std::string CallText(const AggregateCall& call, const std::vector<std::string>& names) {
  std::string out = call.name + "(" + ExprListText(call.args, names) + ")";
  if (call.bitmap_bits > 0) out += " bitmap " + std::to_string(call.bitmap_bits);
  if (call.disjoint_across_workers) out += " disjoint";
  return out;
}

std::string JoinKindText(BroadcastJoin::Kind kind) {
  switch (kind) {
    case BroadcastJoin::Kind::kInner: return "INNER";
    case BroadcastJoin::Kind::kLeft: return "LEFT";
    case BroadcastJoin::Kind::kSemi: return "SEMI";
    case BroadcastJoin::Kind::kAnti: return "ANTI";
    case BroadcastJoin::Kind::kRight: return "RIGHT";
    case BroadcastJoin::Kind::kFull: return "FULL";
  }
  return "?";
}

// The columns join `join` appends to the joined block.
size_t BuildColumns(const BroadcastJoin& join) {
  return join.local_build ? join.local_build->projections.size() : join.build.columns.size();
}

}  // namespace

std::string ExprListText(const std::vector<Expr>& exprs, const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0) out += ", ";
    out += ExprText(exprs[i], names);
  }
  return out;
}

std::string ExprText(const Expr& expr, const std::vector<std::string>& names) {
  switch (expr.kind) {
    case Expr::Kind::kColumn:
      if (expr.column < names.size()) return names[expr.column];
      return "#" + std::to_string(expr.column);
    case Expr::Kind::kLiteral:
      return LiteralText(expr.literal);
    case Expr::Kind::kLambdaParameter:
      return "$" + std::to_string(expr.column);
    case Expr::Kind::kSet:
      return SetText(expr);
    case Expr::Kind::kCall:
      break;
  }
  // A long constant set (an IN list, a join key's set) shows its first values and its size.
  if (expr.function == "tuple" && expr.args.size() > kShownValues) {
    std::vector<Expr> first(expr.args.begin(), expr.args.begin() + kShownValues);
    return "tuple(" + ExprListText(first, names) + ", ... " + std::to_string(expr.args.size()) +
           " values)";
  }
  return expr.function + "(" + ExprListText(expr.args, names) + ")";
}

std::vector<std::string> FragmentText(const Fragment& fragment, const std::string& indent) {
  // The joined block's columns: those read, then each build's (BroadcastJoin).
  std::vector<std::string> names = fragment.scan.columns;
  for (const BroadcastJoin& join : fragment.joins) {
    for (size_t c = 0; c < BuildColumns(join); ++c) {
      names.push_back(c < join.names.size() ? join.names[c] : "#" + std::to_string(names.size()));
    }
  }
  std::vector<std::string> lines;
  std::string scan = indent + "Scan ";
  if (fragment.scan.function) {
    scan += "function " + fragment.scan.function->name + "(";
    for (size_t i = 0; i < fragment.scan.function->args.size(); ++i) {
      scan += (i > 0 ? ", " : "") + std::to_string(fragment.scan.function->args[i]);
    }
    scan += ")";
  } else if (fragment.scan.table.empty()) {
    scan += "local input";  // the coordinator's one row (no FROM) or system table
  } else {
    scan += "table " + fragment.scan.table;
  }
  scan += " columns [";
  for (size_t i = 0; i < fragment.scan.columns.size(); ++i) {
    scan += (i > 0 ? ", " : "") + fragment.scan.columns[i];
  }
  lines.push_back(scan + "]");
  if (fragment.filter) lines.push_back(indent + "Filter " + ExprText(*fragment.filter, names));
  size_t joined = fragment.scan.columns.size();
  for (const BroadcastJoin& join : fragment.joins) {
    const Fragment* local = join.local_build.get();
    std::string line = indent +
                       (join.shuffle ? "ShuffleJoin " : local ? "ColocatedJoin " : "BroadcastJoin ") +
                       JoinKindText(join.kind) + (join.use_nulls ? " (join_use_nulls)" : "") +
                       " keys [" +
                       ExprListText(join.probe_keys, names) + "] = [";
    for (size_t k = 0; k < join.build_keys.size(); ++k) {
      line += (k > 0 ? ", " : "") + names[joined + join.build_keys[k]];
    }
    if (local) {
      line += "] build from table " + local->scan.table;
      if (local->filter) line += " filter " + ExprText(*local->filter, local->scan.columns);
      line += " columns [";
    } else {
      line += "] build " + std::to_string(join.build.rows()) + " rows columns [";
    }
    for (size_t c = 0; c < BuildColumns(join); ++c) {
      line += (c > 0 ? ", " : "") + names[joined + c];
    }
    lines.push_back(line + (join.shuffle ? "] (both sides exchanged between the workers by a "
                                           "hash of the key; each worker joins its partition)"
                            : local ? "] (each worker reads its own shard)"
                                    : "] (sent to every worker)"));
    joined += BuildColumns(join);
  }
  if (fragment.join_filter) {
    lines.push_back(indent + "Filter joined rows " + ExprText(*fragment.join_filter, names));
  }
  if (fragment.aggregate) {
    const Aggregate& a = *fragment.aggregate;
    std::string line = indent + "Aggregate keys [" + ExprListText(a.keys, names) + "] calls [";
    for (size_t i = 0; i < a.calls.size(); ++i) {
      line += (i > 0 ? ", " : "") + CallText(a.calls[i], names);
    }
    line += "]";
    line += a.finalize_on_worker ? " (finalized on the worker)" : " (partial states by bucket)";
    if (a.direct_key) line += " direct key from " + std::to_string(a.direct_key_base);
    if (a.hash_limit > 0) line += " key hash limit " + std::to_string(a.hash_limit);
    if (a.order_limit > 0) {
      line += " top " + std::to_string(a.order_limit) + " by key " + std::to_string(a.order_key) +
              (a.order_descending ? " DESC" : " ASC");
    }
    lines.push_back(line);
    if (a.local_cut.active()) {
      std::string cut = indent + "LocalCut";
      if (a.local_cut.having) cut += " having " + ExprText(*a.local_cut.having);
      if (!a.local_cut.order.empty()) {
        cut += " order [";
        for (size_t i = 0; i < a.local_cut.order.size(); ++i) {
          cut += (i > 0 ? ", " : "") + ExprText(a.local_cut.order[i]);
          if (i < a.local_cut.descending.size() && a.local_cut.descending[i]) cut += " DESC";
          if (i < a.local_cut.nulls_first.size() && a.local_cut.nulls_first[i]) {
            cut += " NULLS FIRST";
          }
        }
        cut += "]";
      }
      if (a.local_cut.limit > 0) cut += " limit " + std::to_string(a.local_cut.limit);
      lines.push_back(cut);
    }
  } else {
    lines.push_back(indent + "Project [" + ExprListText(fragment.projections, names) + "]");
  }
  if (!fragment.aggregate && (fragment.limit > 0 || !fragment.order_by.empty())) {
    std::string line = indent + "TopN";
    if (!fragment.order_by.empty()) {
      line += " order [";
      for (size_t i = 0; i < fragment.order_by.size(); ++i) {
        line += (i > 0 ? ", #" : "#") + std::to_string(fragment.order_by[i].column);
        if (fragment.order_by[i].descending) line += " DESC";
        if (fragment.order_by[i].nulls_first) line += " NULLS FIRST";
      }
      line += "]";
    }
    if (fragment.limit > 0) line += " limit " + std::to_string(fragment.limit);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace granite::core::plan

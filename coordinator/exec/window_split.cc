#include "coordinator/exec/window_split.h"

#include <functional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "coordinator/sql/ast_build.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

using core::ErrorCode;
using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;

namespace {

constexpr std::string_view kPrefix = "__w_";
constexpr size_t kMaxGroupingSets = 4096;

bool IsWindowCall(const Expr& e) { return e.kind == ExprKind::kFunction && e.over != nullptr; }

bool IsAggregateCall(const Expr& e) {
  return e.kind == ExprKind::kFunction && e.over == nullptr &&
         (e.distinct || core::IsAggregateFunction(e.name));
}

bool ContainsWindowCall(const Expr& e) {
  if (IsWindowCall(e)) return true;
  for (const ExprPtr& arg : e.args) {
    if (ContainsWindowCall(*arg)) return true;
  }
  return false;
}

// The first window call under `e` (null if none).
const Expr* FindWindowCall(const Expr& e) {
  if (IsWindowCall(e)) return &e;
  for (const ExprPtr& arg : e.args) {
    if (const Expr* found = FindWindowCall(*arg)) return found;
  }
  return nullptr;
}

absl::Status CheckNoWindow(const ExprPtr& e, std::string_view clause) {
  if (e == nullptr) return absl::OkStatus();
  if (const Expr* call = FindWindowCall(*e)) {
    return core::Error(ErrorCode::kIllegalAggregation,
                       "Window function " + sql::ColumnName(*call) + " is found in " +
                           std::string(clause) + " in query");
  }
  return absl::OkStatus();
}

bool FrameBoundBefore(const sql::FrameBound& a, const sql::FrameBound& b) {
  // Orders bounds along the partition: UNBOUNDED PRECEDING < n PRECEDING (larger n first) <
  // CURRENT ROW < n FOLLOWING (smaller n first) < UNBOUNDED FOLLOWING.
  auto rank = [](const sql::FrameBound& bound) -> std::pair<int, double> {
    double offset = 0;
    if (bound.offset) {
      const core::Value& v = bound.offset->value;
      if (const auto* u = std::get_if<uint64_t>(&v)) offset = static_cast<double>(*u);
      if (const auto* i = std::get_if<int64_t>(&v)) offset = static_cast<double>(*i);
      if (const auto* d = std::get_if<double>(&v)) offset = *d;
    }
    switch (bound.kind) {
      case sql::FrameBound::Kind::kUnboundedPreceding: return {0, 0};
      case sql::FrameBound::Kind::kPreceding: return {1, -offset};
      case sql::FrameBound::Kind::kCurrentRow: return {1, 0};
      case sql::FrameBound::Kind::kFollowing: return {1, offset};
      case sql::FrameBound::Kind::kUnboundedFollowing: return {2, 0};
    }
    return {1, 0};
  };
  return rank(a) <= rank(b);
}

std::string BoundText(const sql::FrameBound& bound) {
  sql::WindowSpec spec;
  spec.frame = sql::WindowFrame{true, bound, bound};
  // " OVER (ROWS BETWEEN <b> AND <b>)": take the first bound's text.
  auto call = sql::MakeCall("f", {});
  call->over = std::make_shared<sql::WindowSpec>(spec);
  const std::string name = sql::ColumnName(*call);
  const size_t from = name.find("BETWEEN ") + 8;
  return name.substr(from, name.find(" AND ") - from);
}

absl::Status CheckFrame(const sql::WindowFrame& frame) {
  if (frame.begin.kind == sql::FrameBound::Kind::kUnboundedFollowing ||
      frame.end.kind == sql::FrameBound::Kind::kUnboundedPreceding ||
      !FrameBoundBefore(frame.begin, frame.end)) {
    return core::Error(ErrorCode::kBadArguments, "Frame start offset " + BoundText(frame.begin) +
                                                     " does not precede the frame end offset " +
                                                     BoundText(frame.end));
  }
  for (const sql::FrameBound* bound : {&frame.begin, &frame.end}) {
    if (!bound->offset) continue;
    const core::Value& v = bound->offset->value;
    const bool negative = (std::holds_alternative<int64_t>(v) && std::get<int64_t>(v) < 0) ||
                          (std::holds_alternative<double>(v) && std::get<double>(v) < 0);
    if (negative || std::holds_alternative<std::string>(v) ||
        (frame.rows && !std::holds_alternative<uint64_t>(v))) {
      return core::Error(ErrorCode::kBadArguments,
                         "Frame offset " + sql::ColumnName(*bound->offset) + " must be a " +
                             (frame.rows ? "non-negative integer" : "non-negative number") +
                             " for " + (frame.rows ? "ROWS" : "RANGE") + " frames");
    }
  }
  return absl::OkStatus();
}

class Splitter {
 public:
  explicit Splitter(const sql::SelectStatement& select) : select_(select) {}

  absl::StatusOr<SplitQuery> Run() {
    RETURN_IF_ERROR(CheckClauses());
    FindOuterAliases();
    SplitQuery split;
    inner_ = &split.inner;
    windows_ = &split.windows;
    sql::SelectStatement& outer = split.outer;
    split.inner.with = select_.with;
    split.inner.from = select_.from;
    split.inner.joins = select_.joins;
    split.inner.where = select_.where;
    split.inner.group_by = select_.group_by;
    split.inner.grouping_sets_written = select_.grouping_sets_written;
    split.inner.grouping_sets = select_.grouping_sets;
    split.inner.having = select_.having;
    split.inner.settings = select_.settings;
    for (size_t i = 0; i < select_.select.size(); ++i) {
      const ExprPtr& item = select_.select[i];
      const std::string name = item->alias.empty() ? sql::ColumnName(*item) : item->alias;
      if (item->kind == ExprKind::kStar) {
        split.inner.select.push_back(item);
        outer.select.push_back(item);
      } else if (!ContainsOuter(*item)) {
        auto copy = std::make_shared<Expr>(*item);
        if (copy->alias.empty()) copy->alias = std::string(kPrefix) + "item_" + std::to_string(i);
        if (!item->alias.empty()) split.hidden.push_back(item->alias);
        split.inner.select.push_back(copy);
        ExprPtr ref = sql::MakeColumn("", copy->alias, item->position);
        ref->alias = name;
        outer.select.push_back(std::move(ref));
      } else {
        ASSIGN_OR_RETURN(ExprPtr rewritten, Rewrite(item));
        rewritten = std::make_shared<Expr>(*rewritten);
        rewritten->alias = name;
        outer.select.push_back(std::move(rewritten));
      }
    }
    if (select_.qualify) {
      ASSIGN_OR_RETURN(outer.where, Rewrite(select_.qualify));
    }
    for (const sql::OrderItem& item : select_.order_by) {
      sql::OrderItem rewritten = item;
      ASSIGN_OR_RETURN(rewritten.expr, Rewrite(item.expr));
      outer.order_by.push_back(std::move(rewritten));
    }
    if (split.inner.select.empty()) {
      auto one = std::make_shared<Expr>();
      one->value = core::Value(uint64_t{1});
      one->alias = std::string(kPrefix) + "one";
      split.inner.select.push_back(std::move(one));
    }
    outer.distinct = select_.distinct;
    outer.limit = select_.limit;
    outer.offset = select_.offset;
    outer.format = select_.format;
    outer.settings = select_.settings;
    return split;
  }

 private:
  absl::Status CheckClauses() {
    RETURN_IF_ERROR(CheckNoWindow(select_.where, "WHERE"));
    RETURN_IF_ERROR(CheckNoWindow(select_.having, "HAVING"));
    for (const ExprPtr& key : select_.group_by) RETURN_IF_ERROR(CheckNoWindow(key, "GROUP BY"));
    for (const sql::JoinClause& join : select_.joins) RETURN_IF_ERROR(CheckNoWindow(join.on, "ON"));
    for (const auto& [name, spec] : select_.windows) {
      if (spec.frame) RETURN_IF_ERROR(CheckFrame(*spec.frame));
    }
    return absl::OkStatus();
  }

  // Aliases of select items that need a window result, directly or through other such aliases.
  void FindOuterAliases() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (const ExprPtr& item : select_.select) {
        if (item->alias.empty() || outer_aliases_.count(item->alias) > 0) continue;
        if (ContainsOuter(*item)) {
          outer_aliases_.insert(item->alias);
          changed = true;
        }
      }
    }
  }

  bool ContainsOuter(const Expr& e) const {
    if (IsWindowCall(e)) return true;
    if (e.kind == ExprKind::kIdentifier && e.qualifier.empty() &&
        outer_aliases_.count(e.name) > 0) {
      return true;
    }
    for (const ExprPtr& arg : e.args) {
      if (ContainsOuter(*arg)) return true;
    }
    return false;
  }

  // Adds `e AS __w_h_<n>` to the inner select and returns that name.
  std::string Hidden(const ExprPtr& e) {
    auto copy = std::make_shared<Expr>(*e);
    copy->alias = std::string(kPrefix) + "h_" + std::to_string(hidden_count_++);
    inner_->select.push_back(copy);
    return copy->alias;
  }

  // `e` for the outer select: window calls become their result columns; each largest part that
  // needs no window result is computed by the inner select.
  absl::StatusOr<ExprPtr> Rewrite(const ExprPtr& e) {
    if (!ContainsOuter(*e)) {
      if (e->kind == ExprKind::kLiteral) return e;
      return sql::MakeColumn("", Hidden(e), e->position);
    }
    if (IsWindowCall(*e)) {
      ASSIGN_OR_RETURN(std::string column, AddWindow(*e));
      return sql::MakeColumn("", column, e->position);
    }
    if (e->kind == ExprKind::kIdentifier) return e;  // an alias of another item with a window
    if (IsAggregateCall(*e)) {
      const Expr* call = FindWindowCall(*e);
      return core::Error(ErrorCode::kIllegalAggregation,
                         "Window function " + (call ? sql::ColumnName(*call) : e->name) +
                             " is found inside an aggregate function in query");
    }
    auto copy = std::make_shared<Expr>(*e);
    for (ExprPtr& arg : copy->args) {
      ASSIGN_OR_RETURN(arg, Rewrite(arg));
    }
    return copy;
  }

  // The window of `spec` with the named windows it refers to filled in.
  absl::StatusOr<sql::WindowSpec> Resolve(const sql::WindowSpec& spec, int depth = 0) {
    if (spec.base.empty()) return spec;
    const sql::WindowSpec* base = nullptr;
    for (const auto& [name, named] : select_.windows) {
      if (name == spec.base) base = &named;
    }
    if (base == nullptr || depth > 16) {
      return core::Error(ErrorCode::kBadArguments, "Window '" + spec.base + "' does not exist");
    }
    ASSIGN_OR_RETURN(sql::WindowSpec resolved, Resolve(*base, depth + 1));
    if (!spec.partition_by.empty()) resolved.partition_by = spec.partition_by;
    if (!spec.order_by.empty()) resolved.order_by = spec.order_by;
    if (spec.frame) resolved.frame = spec.frame;
    resolved.base.clear();
    return resolved;
  }

  absl::StatusOr<std::string> AddWindow(const Expr& call) {
    const std::string display = sql::ColumnName(call);
    for (const ExprPtr& arg : call.args) {
      if (ContainsWindowCall(*arg)) {
        return core::Error(ErrorCode::kIllegalAggregation,
                           "Window function " + display + " has a window function in its arguments");
      }
    }
    ASSIGN_OR_RETURN(sql::WindowSpec spec, Resolve(*call.over));
    if (spec.frame) RETURN_IF_ERROR(CheckFrame(*spec.frame));
    WindowCall window;
    window.function = call.name;
    if (call.distinct) window.function += "Distinct";
    window.display = display;
    window.frame = spec.frame;
    for (const ExprPtr& arg : call.args) {
      if (arg->kind == ExprKind::kStar) continue;  // count(*)
      window.args.push_back(Hidden(arg));
    }
    for (const ExprPtr& key : spec.partition_by) {
      RETURN_IF_ERROR(CheckNoWindow(key, "PARTITION BY"));
      window.partition_by.push_back(Hidden(key));
    }
    for (const sql::OrderItem& item : spec.order_by) {
      RETURN_IF_ERROR(CheckNoWindow(item.expr, "the window's ORDER BY"));
      window.order_by.push_back(
          {Hidden(item.expr), item.descending, item.nulls_first.value_or(false)});
    }
    window.column = std::string(kPrefix) + "win_" + std::to_string(windows_->size());
    windows_->push_back(window);
    return window.column;
  }

  const sql::SelectStatement& select_;
  std::set<std::string> outer_aliases_;
  sql::SelectStatement* inner_ = nullptr;
  std::vector<WindowCall>* windows_ = nullptr;
  size_t hidden_count_ = 0;
};

// The text a grouping key is matched by: its display name with its qualifier.
std::string KeyText(const Expr& e) {
  return (e.kind == ExprKind::kIdentifier ? e.qualifier + "." : std::string()) +
         sql::ColumnName(e);
}

// `defaultValueOfArgumentType(any(e))`: e's type's default, valid where e is not grouped.
ExprPtr DefaultOf(const ExprPtr& e) {
  auto bare = std::make_shared<Expr>(*e);
  bare->alias.clear();
  ExprPtr result = sql::MakeCall("defaultValueOfArgumentType", {sql::MakeCall("any", {bare})});
  result->position = e->position;
  return result;
}

// Replaces, outside aggregate calls, the expressions of `missing` keys by their default and
// grouping(...) calls by their bit mask for the set `in_set`.
ExprPtr ReplaceMissingKeys(const ExprPtr& e, const std::set<std::string>& missing,
                           const std::set<std::string>& in_set) {
  if (e == nullptr || e->kind == ExprKind::kLiteral || e->kind == ExprKind::kSubquery ||
      IsAggregateCall(*e)) {
    return e;
  }
  if (missing.count(KeyText(*e)) > 0) {
    ExprPtr replaced = DefaultOf(e);
    replaced->alias = e->alias;
    return replaced;
  }
  if (e->kind == ExprKind::kFunction && absl::AsciiStrToLower(e->name) == "grouping") {
    uint64_t mask = 0;
    for (const ExprPtr& arg : e->args) mask = (mask << 1) | (in_set.count(KeyText(*arg)) ? 0 : 1);
    auto literal = std::make_shared<Expr>();
    literal->value = core::Value(mask);
    literal->literal_type = core::TypeId::kUInt64;
    literal->alias = e->alias;
    literal->position = e->position;
    return literal;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& arg : copy->args) arg = ReplaceMissingKeys(arg, missing, in_set);
  return copy;
}

}  // namespace

absl::StatusOr<sql::SelectStatement> ExpandAllKeys(const sql::SelectStatement& select) {
  sql::SelectStatement out = select;
  std::function<bool(const Expr&)> aggregated = [&](const Expr& e) {
    if (IsWindowCall(e) || IsAggregateCall(e)) return true;
    for (const ExprPtr& arg : e.args) {
      if (aggregated(*arg)) return true;
    }
    return false;
  };
  for (const ExprPtr& item : select.select) {
    if (item->kind == ExprKind::kStar) {
      return core::Error(ErrorCode::kNotImplemented,
                         "GROUP BY ALL / ORDER BY ALL with * in the select list is not supported");
    }
    auto ref = item->alias.empty() ? std::make_shared<Expr>(*item)
                                   : sql::MakeColumn("", item->alias, item->position);
    if (!item->alias.empty()) ref->alias.clear();
    if (select.group_by_all && !aggregated(*item)) out.group_by.push_back(ref);
    if (select.order_by_all) out.order_by.push_back({ref, select.order_by_all_descending, {}});
  }
  out.group_by_all = false;
  out.order_by_all = false;
  return out;
}

bool IsSplitColumn(std::string_view name) { return name.substr(0, kPrefix.size()) == kPrefix; }

bool NeedsSplit(const sql::SelectStatement& select) {
  if (select.qualify || select.grouping_sets_written) return true;
  for (const ExprPtr& item : select.select) {
    if (ContainsWindowCall(*item)) return true;
  }
  for (const sql::OrderItem& item : select.order_by) {
    if (ContainsWindowCall(*item.expr)) return true;
  }
  // A window call elsewhere: the split refuses it with ClickHouse's error.
  std::vector<ExprPtr> others = select.group_by;
  others.push_back(select.where);
  others.push_back(select.having);
  for (const sql::JoinClause& join : select.joins) others.push_back(join.on);
  for (const ExprPtr& e : others) {
    if (e != nullptr && ContainsWindowCall(*e)) return true;
  }
  return false;
}

absl::StatusOr<SplitQuery> SplitForWindows(const sql::SelectStatement& select) {
  return Splitter(select).Run();
}

namespace {

// True for an expression of literals alone (`'x'`, `1 + 1`): as a GROUP BY key it is the same
// in every row, so ClickHouse keeps its value in the rows of every grouping set (and in the
// WITH TOTALS row) instead of the type's default.
bool IsConstantKey(const Expr& e) {
  if (e.kind == ExprKind::kLiteral) return true;
  if (e.kind != ExprKind::kFunction || e.over || e.name == "lambda") return false;
  for (const ExprPtr& arg : e.args) {
    if (!IsConstantKey(*arg)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<sql::SelectStatement>> ExpandGroupingSets(
    const sql::SelectStatement& inner) {
  if (inner.grouping_sets.size() > kMaxGroupingSets) {
    return core::Error(ErrorCode::kBadArguments,
                       "Too many grouping sets: " + std::to_string(inner.grouping_sets.size()) +
                           " (at most " + std::to_string(kMaxGroupingSets) + ")");
  }
  std::vector<sql::SelectStatement> copies;
  for (const std::vector<ExprPtr>& set : inner.grouping_sets) {
    std::set<std::string> in_set;
    for (const ExprPtr& key : set) in_set.insert(KeyText(*key));
    std::set<std::string> item_aliases;
    std::set<std::string> constant_aliases;
    for (const ExprPtr& item : inner.select) {
      if (!item->alias.empty()) item_aliases.insert(item->alias);
      if (!item->alias.empty() && IsConstantKey(*item)) constant_aliases.insert(item->alias);
    }
    // A key naming an item by its alias is replaced in that item only; references to the alias
    // then see the default through it.
    std::set<std::string> missing;
    std::set<std::string> missing_aliases;
    for (const ExprPtr& key : inner.group_by) {
      if (in_set.count(KeyText(*key)) > 0 || IsConstantKey(*key)) continue;
      if (key->kind == ExprKind::kIdentifier && key->qualifier.empty() &&
          item_aliases.count(key->name) > 0) {
        if (constant_aliases.count(key->name) > 0) continue;
        missing_aliases.insert(key->name);
      } else {
        missing.insert(KeyText(*key));
      }
    }
    sql::SelectStatement copy = inner;
    copy.grouping_sets_written = false;
    copy.grouping_sets.clear();
    copy.group_by = set;
    for (ExprPtr& item : copy.select) {
      // A key that names an item by its alias: the item's expression is the key.
      if (!item->alias.empty() && missing_aliases.count(item->alias) > 0) {
        ExprPtr replaced = DefaultOf(item);
        replaced->alias = item->alias;
        item = replaced;
        continue;
      }
      ExprPtr replaced = ReplaceMissingKeys(item, missing, in_set);
      if (replaced != item && replaced->alias.empty()) {
        replaced = std::make_shared<Expr>(*replaced);
        replaced->alias = sql::ColumnName(*item);  // the item keeps its name
      }
      item = replaced;
    }
    copy.having = ReplaceMissingKeys(copy.having, missing, in_set);
    copies.push_back(std::move(copy));
  }
  return copies;
}

}  // namespace granite::coordinator

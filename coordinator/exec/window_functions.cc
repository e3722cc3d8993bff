#include "coordinator/exec/window_functions.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/block_sort.h"
#include "core/decimal.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/functions/constant_column.h"
#include "core/status_macros.h"
#include "core/join/row_keys.h"

namespace granite::coordinator {

using core::Column;
using core::ColumnPtr;
using core::ErrorCode;
using core::TypeId;

namespace {

enum class Kind {
  kRowNumber, kRank, kDenseRank, kPercentRank, kCumeDist, kNtile,  // ranking
  kLag, kLead,                                                       // over the partition
  kLagInFrame, kLeadInFrame, kFirstValue, kLastValue, kNthValue,     // within the frame
  kAggregate,
};

Kind KindOf(const std::string& function) {
  static const std::pair<const char*, Kind> kNames[] = {
      {"row_number", Kind::kRowNumber},   {"rank", Kind::kRank},
      {"dense_rank", Kind::kDenseRank},   {"percent_rank", Kind::kPercentRank},
      {"cume_dist", Kind::kCumeDist},     {"ntile", Kind::kNtile},
      {"lag", Kind::kLag},                {"lead", Kind::kLead},
      {"laginframe", Kind::kLagInFrame},  {"leadinframe", Kind::kLeadInFrame},
      {"first_value", Kind::kFirstValue}, {"last_value", Kind::kLastValue},
      {"nth_value", Kind::kNthValue}};
  const std::string lower = absl::AsciiStrToLower(function);
  for (const auto& [name, kind] : kNames) {
    if (lower == name) return kind;
  }
  return Kind::kAggregate;
}

// The rows in window order and where each partition and peer group starts and ends.
struct Layout {
  std::vector<uint32_t> perm;  // sorted position -> table row
  std::vector<uint32_t> partition_start, partition_end;  // per sorted position
  std::vector<uint32_t> peer_start, peer_end;
};

// Marks runs of equal keys of `columns` (read in `perm` order) within [begin, end) by calling
// run(start, stop) for each.
template <typename Run>
void ForEachRun(const std::vector<const Column*>& columns, const std::vector<uint32_t>& perm,
                size_t begin, size_t end, Run run) {
  std::string previous;
  std::string current;
  size_t start = begin;
  for (size_t p = begin; p < end; ++p) {
    current.clear();
    core::AppendRowKey(columns, perm[p], &current);
    if (p > begin && current != previous) {
      run(start, p);
      start = p;
    }
    std::swap(previous, current);
  }
  if (end > begin) run(start, end);
}

Layout MakeLayout(const WindowCall& call, const core::Block& block,
                  const std::vector<size_t>& partition, const std::vector<size_t>& order) {
  const size_t rows = block.rows();
  Layout layout;
  core::Block keys;
  std::vector<core::SortColumn> sort;
  for (size_t c : partition) {
    sort.push_back({keys.columns.size(), false});
    keys.columns.push_back(block.columns[c]);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const WindowOrderKey& key = call.order_by[i];
    sort.push_back({keys.columns.size(), key.descending, key.nulls_first});
    keys.columns.push_back(block.columns[order[i]]);
  }
  if (sort.empty()) {
    layout.perm.resize(rows);
    for (size_t i = 0; i < rows; ++i) layout.perm[i] = static_cast<uint32_t>(i);
  } else {
    keys.rows_without_columns = rows;
    layout.perm = core::SortPermutation(keys, sort);
  }
  layout.partition_start.resize(rows);
  layout.partition_end.resize(rows);
  layout.peer_start.resize(rows);
  layout.peer_end.resize(rows);
  std::vector<const Column*> partition_columns, order_columns;
  for (size_t c : partition) partition_columns.push_back(block.columns[c].get());
  for (size_t c : order) order_columns.push_back(block.columns[c].get());
  auto mark = [](std::vector<uint32_t>* starts, std::vector<uint32_t>* ends, size_t a, size_t b) {
    for (size_t p = a; p < b; ++p) {
      (*starts)[p] = static_cast<uint32_t>(a);
      (*ends)[p] = static_cast<uint32_t>(b);
    }
  };
  ForEachRun(partition_columns, layout.perm, 0, rows, [&](size_t a, size_t b) {
    mark(&layout.partition_start, &layout.partition_end, a, b);
    ForEachRun(order_columns, layout.perm, a, b, [&](size_t c, size_t d) {
      mark(&layout.peer_start, &layout.peer_end, c, d);
    });
  });
  return layout;
}

double NumberAt(const Column& column, size_t row) {
  const core::Value value = core::ValueAt(column, row);
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<uint64_t>(&value)) return static_cast<double>(*u);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return 0;
}

double OffsetOf(const sql::FrameBound& bound) {
  if (!bound.offset) return 0;
  const core::Value& v = bound.offset->value;
  if (const auto* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return 0;
}

// Computes each row's frame [begin, end) in sorted positions.
class Frames {
 public:
  static absl::StatusOr<Frames> Make(const WindowCall& call, const core::Block& block,
                                     const std::vector<size_t>& order, const Layout* layout) {
    Frames frames;
    frames.layout_ = layout;
    if (call.frame) {
      frames.frame_ = *call.frame;
    } else {
      frames.frame_.rows = false;
      frames.frame_.begin.kind = sql::FrameBound::Kind::kUnboundedPreceding;
      frames.frame_.end.kind = order.empty() ? sql::FrameBound::Kind::kUnboundedFollowing
                                             : sql::FrameBound::Kind::kCurrentRow;
    }
    const bool offsets = frames.frame_.begin.offset || frames.frame_.end.offset;
    if (!frames.frame_.rows && offsets) {
      if (order.size() != 1) {
        return core::Error(ErrorCode::kBadArguments,
                           "The RANGE OFFSET window frame of " + call.display +
                               " requires exactly one ORDER BY column, " +
                               std::to_string(order.size()) + " given");
      }
      const Column& key = *block.columns[order[0]];
      if (!core::IsNumeric(key.type())) {
        return core::Error(ErrorCode::kNotImplemented,
                           "The RANGE OFFSET frame for '" + std::string(core::TypeName(key.type())) +
                               "' ORDER BY column is not implemented");
      }
      frames.descending_ = call.order_by[0].descending;
      frames.values_.resize(layout->perm.size());
      for (size_t p = 0; p < layout->perm.size(); ++p) {
        frames.values_[p] = NumberAt(key, layout->perm[p]);
      }
      if (key.nullable()) {
        frames.null_.resize(layout->perm.size());
        for (size_t p = 0; p < layout->perm.size(); ++p) {
          frames.null_[p] = key.IsNullAt(layout->perm[p]) ? 1 : 0;
        }
      }
    }
    return frames;
  }

  // Frame of sorted position p as [first, second).
  std::pair<size_t, size_t> At(size_t p) const {
    const size_t begin = Bound(frame_.begin, p, true);
    const size_t end = Bound(frame_.end, p, false);
    return {begin, std::max(begin, end)};
  }

  bool cumulative() const {
    return frame_.begin.kind == sql::FrameBound::Kind::kUnboundedPreceding;
  }

 private:
  // A frame start (`start`) or exclusive end for row p.
  size_t Bound(const sql::FrameBound& bound, size_t p, bool start) const {
    const size_t ps = layout_->partition_start[p];
    const size_t pe = layout_->partition_end[p];
    using K = sql::FrameBound::Kind;
    switch (bound.kind) {
      case K::kUnboundedPreceding: return ps;
      case K::kUnboundedFollowing: return pe;
      case K::kCurrentRow:
        if (frame_.rows) return start ? p : p + 1;
        return start ? layout_->peer_start[p] : layout_->peer_end[p];
      case K::kPreceding:
      case K::kFollowing: break;
    }
    const double offset = OffsetOf(bound);
    const bool preceding = bound.kind == K::kPreceding;
    if (frame_.rows) {
      const size_t n = static_cast<size_t>(offset);
      if (preceding) {
        const size_t row = p - ps >= n ? p - n : ps;
        if (start) return row;
        return p - ps >= n ? p - n + 1 : ps;
      }
      return std::min(pe, p + n + (start ? 0 : 1));
    }
    // RANGE: the first row (start) or the first row past (end) the value v -/+ offset, in the
    // sort direction. As in ClickHouse, NULL -/+ offset is NULL: a NULL row's bound is its peer
    // group (the partition's NULLs), and a value's frame never reaches the NULLs, which sit
    // together at one end of the partition (NULLS FIRST or LAST).
    if (!null_.empty() && null_[p]) return start ? layout_->peer_start[p] : layout_->peer_end[p];
    size_t value_begin = ps, value_end = pe;
    if (!null_.empty() && null_[ps]) value_begin = layout_->peer_end[ps];
    if (!null_.empty() && null_[pe - 1]) value_end = layout_->peer_start[pe - 1];
    const double v = values_[p];
    const double target = (preceding != descending_) ? v - offset : v + offset;
    auto first = values_.begin() + value_begin;
    auto last = values_.begin() + value_end;
    std::vector<double>::const_iterator it;
    if (!descending_) {
      it = start ? std::lower_bound(first, last, target) : std::upper_bound(first, last, target);
    } else {
      it = start ? std::lower_bound(first, last, target, std::greater<double>())
                 : std::upper_bound(first, last, target, std::greater<double>());
    }
    return static_cast<size_t>(it - values_.begin());
  }

  sql::WindowFrame frame_;
  const Layout* layout_ = nullptr;
  bool descending_ = false;
  std::vector<double> values_;  // the RANGE ORDER BY value per sorted position
  std::vector<uint8_t> null_;   // per sorted position, 1 = NULL key; empty: not Nullable
};

// A one-row column of `type`'s default value.
Column DefaultRow(TypeId type) {
  Column one(type);
  if (type == TypeId::kString) {
    one.AppendString("");
  } else if (core::IsFixedString(type)) {
    one.AppendString(std::string(core::FixedStringSizeOf(type), '\0'));
  } else {
    one.Resize(1);
    std::memset(one.RawData(), 0, one.RawSize());
  }
  return one;
}

absl::StatusOr<uint64_t> ConstantArgument(const WindowCall& call, const Column& column,
                                          std::string_view what) {
  // Evaluated per row of the input: over no rows there is no value to check, and none is used
  // (1 passes the callers' checks).
  if (column.empty()) return 1;
  const core::Value value = core::ValueAt(column, 0);
  if (const auto* u = std::get_if<uint64_t>(&value)) return *u;
  if (const auto* i = std::get_if<int64_t>(&value); i != nullptr && *i >= 0) {
    return static_cast<uint64_t>(*i);
  }
  return core::Error(ErrorCode::kBadArguments, "The " + std::string(what) + " of " +
                                                   call.display +
                                                   " must be a non-negative integer constant");
}

struct Input {
  const WindowCall* call;
  std::vector<ColumnPtr> args;  // in sorted order
  const Layout* layout;
  const Frames* frames;
};

Column Ranking(Kind kind, const Input& in, uint64_t buckets) {
  const Layout& l = *in.layout;
  const size_t rows = l.perm.size();
  const bool floating = kind == Kind::kPercentRank || kind == Kind::kCumeDist;
  Column out(floating ? TypeId::kFloat64 : TypeId::kUInt64);
  uint64_t dense = 0;
  for (size_t p = 0; p < rows; ++p) {
    const size_t ps = l.partition_start[p];
    const size_t size = l.partition_end[p] - ps;
    const size_t i = p - ps;
    if (i == 0) dense = 0;
    if (l.peer_start[p] == p) ++dense;
    switch (kind) {
      case Kind::kRowNumber: out.Append<uint64_t>(i + 1); break;
      case Kind::kRank: out.Append<uint64_t>(l.peer_start[p] - ps + 1); break;
      case Kind::kDenseRank: out.Append<uint64_t>(dense); break;
      case Kind::kPercentRank:
        out.Append<double>(size <= 1 ? 0.0
                                     : static_cast<double>(l.peer_start[p] - ps) /
                                           static_cast<double>(size - 1));
        break;
      case Kind::kCumeDist:
        out.Append<double>(static_cast<double>(l.peer_end[p] - ps) / static_cast<double>(size));
        break;
      default: {  // ntile: the first size % buckets buckets hold one row more
        const uint64_t q = size / buckets;
        const uint64_t r = size % buckets;
        const uint64_t big = r * (q + 1);
        out.Append<uint64_t>(i < big ? i / (q + 1) + 1 : r + (q == 0 ? 0 : (i - big) / q) + 1);
      }
    }
  }
  return out;
}

absl::StatusOr<Column> Positional(Kind kind, const Input& in) {
  const WindowCall& call = *in.call;
  const size_t min_args = kind == Kind::kNthValue ? 2 : 1;
  const size_t max_args = (kind == Kind::kFirstValue || kind == Kind::kLastValue) ? 1
                          : kind == Kind::kNthValue                               ? 2
                                                                                  : 3;
  if (in.args.size() < min_args || in.args.size() > max_args) {
    return core::Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                       "Function " + call.function + " takes " + std::to_string(min_args) +
                           " to " + std::to_string(max_args) + " arguments, " +
                           std::to_string(in.args.size()) + " given: " + call.display);
  }
  const Column& x = *in.args[0];
  uint64_t offset = 1;
  if (in.args.size() >= 2) {
    ASSIGN_OR_RETURN(offset, ConstantArgument(call, *in.args[1],
                                              kind == Kind::kNthValue ? "position" : "offset"));
    if (kind == Kind::kNthValue && offset == 0) {
      return core::Error(ErrorCode::kBadArguments,
                         "The position of " + call.display + " must be greater than 0");
    }
  }
  ColumnPtr fallback;
  if (in.args.size() == 3) {
    ASSIGN_OR_RETURN(fallback, core::CastColumn(in.args[2], x.type()));
  } else {
    fallback = std::make_shared<Column>(DefaultRow(x.type()));
  }
  const Layout& l = *in.layout;
  Column out(x.type());
  for (size_t p = 0; p < l.perm.size(); ++p) {
    size_t lo = l.partition_start[p];
    size_t hi = l.partition_end[p];
    if (kind != Kind::kLag && kind != Kind::kLead) std::tie(lo, hi) = in.frames->At(p);
    // The source position, or hi when there is none.
    size_t source = hi;
    switch (kind) {
      case Kind::kLag:
      case Kind::kLagInFrame: source = p >= lo + offset ? p - offset : hi; break;
      case Kind::kLead:
      case Kind::kLeadInFrame: source = p + offset < hi ? p + offset : hi; break;
      case Kind::kFirstValue: source = lo; break;
      case Kind::kLastValue: source = hi > lo ? hi - 1 : hi; break;
      default: source = lo + offset - 1 < hi ? lo + offset - 1 : hi; break;  // nth_value
    }
    if (source < hi) {
      out.AppendFrom(x, source);
    } else {
      out.AppendFrom(*fallback, fallback->size() == 1 ? 0 : p);
    }
  }
  return out;
}

absl::StatusOr<Column> Aggregate(const Input& in) {
  const WindowCall& call = *in.call;
  core::AggregateSpec spec;
  for (const ColumnPtr& arg : in.args) spec.arg_types.push_back(arg->type());
  ASSIGN_OR_RETURN(core::ResolvedAggregate resolved,
                   core::ResolveAggregate(call.function, spec.arg_types));
  spec.name = resolved.name;
  ASSIGN_OR_RETURN(std::unique_ptr<core::AggregateFunction> function,
                   core::CreateAggregateFunction(spec));
  Column out(function->ResultType());
  auto add = [&](size_t from, size_t to) {
    if (to <= from) return;
    std::vector<ColumnPtr> slices;
    for (const ColumnPtr& arg : in.args) {
      slices.push_back(std::make_shared<Column>(arg->Slice(from, to - from)));
    }
    function->AddBatchOneGroup(0, slices, to - from);
  };
  const size_t rows = in.layout->perm.size();
  size_t added_begin = 0, added_end = 0;
  bool have_state = false;
  for (size_t p = 0; p < rows; ++p) {
    const auto [begin, end] = in.frames->At(p);
    const bool new_partition = p == in.layout->partition_start[p];
    if (have_state && !new_partition && begin == added_begin && end == added_end) {
      // Same frame as the previous row (peers, or a whole-partition frame): same value.
      Column last = out.Slice(out.size() - 1, 1);
      out.AppendFrom(last, 0);
      continue;
    }
    const bool extend = have_state && !new_partition && begin == added_begin && end >= added_end;
    if (!extend) {
      function->Clear();
      function->Resize(1);
      added_begin = added_end = begin;
      have_state = true;
    }
    add(added_end, end);
    added_end = std::max(added_end, end);
    function->Finalize(&out);
  }
  return out;
}

absl::StatusOr<Column> Compute(const WindowCall& call, const LocalTable& table) {
  auto column_of = [&table, &call](const std::string& name) -> absl::StatusOr<size_t> {
    for (size_t i = 0; i < table.names.size(); ++i) {
      if (table.names[i] == name) return i;
    }
    return core::Error(ErrorCode::kLogicalError,
                       "Window input column " + name + " of " + call.display + " is missing");
  };
  std::vector<size_t> partition, order, args;
  for (const std::string& name : call.partition_by) {
    ASSIGN_OR_RETURN(size_t c, column_of(name));
    partition.push_back(c);
  }
  for (const WindowOrderKey& key : call.order_by) {
    ASSIGN_OR_RETURN(size_t c, column_of(key.column));
    order.push_back(c);
  }
  for (const std::string& name : call.args) {
    ASSIGN_OR_RETURN(size_t c, column_of(name));
    args.push_back(c);
  }
  const Layout layout = MakeLayout(call, table.block, partition, order);
  ASSIGN_OR_RETURN(Frames frames, Frames::Make(call, table.block, order, &layout));
  Input in{&call, {}, &layout, &frames};
  for (size_t c : args) {
    in.args.push_back(
        std::make_shared<Column>(table.block.columns[c]->Take(layout.perm.data(), layout.perm.size())));
  }
  const Kind kind = KindOf(call.function);
  Column sorted(TypeId::kUInt64);
  switch (kind) {
    case Kind::kAggregate: {
      ASSIGN_OR_RETURN(sorted, Aggregate(in));
      break;
    }
    case Kind::kLag: case Kind::kLead: case Kind::kLagInFrame: case Kind::kLeadInFrame:
    case Kind::kFirstValue: case Kind::kLastValue: case Kind::kNthValue: {
      ASSIGN_OR_RETURN(sorted, Positional(kind, in));
      break;
    }
    default: {
      uint64_t buckets = 1;
      if (kind == Kind::kNtile) {
        if (in.args.size() != 1) {
          return core::Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                             "Function ntile takes 1 argument, " + std::to_string(in.args.size()) +
                                 " given: " + call.display);
        }
        ASSIGN_OR_RETURN(buckets, ConstantArgument(call, *in.args[0], "argument"));
        if (buckets == 0) {
          return core::Error(ErrorCode::kBadArguments,
                             "The argument of " + call.display + " must be greater than 0");
        }
      }
      sorted = Ranking(kind, in, buckets);
    }
  }
  // Back to the table's row order.
  std::vector<uint32_t> inverse(layout.perm.size());
  for (size_t p = 0; p < layout.perm.size(); ++p) inverse[layout.perm[p]] = static_cast<uint32_t>(p);
  return sorted.Take(inverse.data(), inverse.size());
}

}  // namespace

absl::Status AppendWindowColumns(const std::vector<WindowCall>& calls, LocalTable* table) {
  for (const WindowCall& call : calls) {
    ASSIGN_OR_RETURN(Column column, Compute(call, *table));
    table->names.push_back(call.column);
    table->types.push_back(column.type());
    table->block.columns.push_back(std::make_shared<Column>(std::move(column)));
    if (!table->hidden.empty()) table->hidden.push_back(true);
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator

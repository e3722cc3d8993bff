// ColumnName (declared in parser.h): the ClickHouse display name of an expression.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "coordinator/sql/parser.h"

namespace granite::coordinator::sql {
namespace {

// Appends `value` as ClickHouse prints a Float64 (double-conversion's shortest form): fixed
// notation for decimal exponents in [-6, 21) with a trailing '.' for whole numbers ("1.", "0.001",
// "10000000000."), exponential otherwise ("1e30", "1.5e-7").
void AppendDouble(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("nan");
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  char buffer[64];
  auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view text(buffer, result.ptr - buffer);  // "-d.ddde+XX"
  if (!text.empty() && text.front() == '-') {
    out->push_back('-');
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  if (exponent < -6 || exponent >= 21) {
    out->push_back(digits[0]);
    if (digits.size() > 1) {
      out->push_back('.');
      out->append(digits, 1);
    }
    out->push_back('e');
    out->append(std::to_string(exponent));
    return;
  }
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-point), '0');
    out->append(digits);
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out->append(digits);
    out->append(point - digits.size(), '0');
    out->push_back('.');
  } else {
    out->append(digits, 0, point);
    out->push_back('.');
    out->append(digits, point);
  }
}

// Appends `value` as a ClickHouse quoted string literal.
void AppendQuoted(const std::string& value, std::string* out) {
  out->push_back('\'');
  for (char c : value) {
    switch (c) {
      case '\'': out->append("\\'"); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\0': out->append("\\0"); break;
      default: out->push_back(c);
    }
  }
  out->push_back('\'');
}

void AppendWindow(const WindowSpec& spec, std::string* out);
void AppendName(const Expr& expr, std::string* out);

// An argument written `expr AS alias` inside an expression shows as its alias, as ClickHouse
// names `(1 AS n) + 2` plus(n, 2).
void AppendArgumentName(const Expr& arg, std::string* out) {
  if (!arg.alias.empty()) {
    out->append(arg.alias);
    return;
  }
  AppendName(arg, out);
}

void AppendName(const Expr& expr, std::string* out) {
  switch (expr.kind) {
    case ExprKind::kLiteral:
      if (expr.is_null) {
        out->append("NULL");
      } else if (const auto* i = std::get_if<int64_t>(&expr.value)) {
        out->append(std::to_string(*i));
      } else if (const auto* u = std::get_if<uint64_t>(&expr.value)) {
        out->append(std::to_string(*u));
      } else if (const auto* d = std::get_if<double>(&expr.value)) {
        AppendDouble(*d, out);
      } else {
        AppendQuoted(std::get<std::string>(expr.value), out);
      }
      return;
    case ExprKind::kIdentifier:
      out->append(expr.name);
      return;
    case ExprKind::kStar:
      out->push_back('*');
      return;
    case ExprKind::kSubquery:
      out->append("_subquery");
      return;
    case ExprKind::kSet:  // "_subquery_" and a hash of its values (exec/subqueries.cc)
      out->append(expr.name);
      return;
    case ExprKind::kFunction:
      if (expr.name == "lambda" && expr.args.size() == 2 && expr.args[0]->name == "tuple") {
        // A lambda's parameters keep the call's spelling: lambda(tuple(x, y), body).
        out->append("lambda(tuple(");
        for (size_t i = 0; i < expr.args[0]->args.size(); ++i) {
          if (i > 0) out->append(", ");
          AppendName(*expr.args[0]->args[i], out);
        }
        out->append("), ");
        AppendName(*expr.args[1], out);
        out->push_back(')');
        return;
      }
      if ((expr.name == "array" || expr.name == "tuple") && !expr.distinct && !expr.over) {
        // ClickHouse names an array by its brackets: [1, 2], [x, 1] (array(1, 2) too), and a
        // tuple by its parentheses: (1, 'a'), (x) for tuple(x), () (an IN list too:
        // in(x, (1, 2))).
        const bool array = expr.name == "array";
        out->push_back(array ? '[' : '(');
        for (size_t i = 0; i < expr.args.size(); ++i) {
          if (i > 0) out->append(", ");
          AppendArgumentName(*expr.args[i], out);
        }
        out->push_back(array ? ']' : ')');
        return;
      }
      out->append(expr.name);
      if (expr.distinct) out->append("Distinct");
      out->push_back('(');
      bool first = true;
      for (const ExprPtr& arg : expr.args) {
        if (arg->kind == ExprKind::kStar) continue;  // count(*) is count()
        if (!first) out->append(", ");
        first = false;
        AppendArgumentName(*arg, out);
      }
      out->push_back(')');
      if (expr.over) AppendWindow(*expr.over, out);
      return;
  }
}

void AppendBound(const FrameBound& bound, std::string* out) {
  switch (bound.kind) {
    case FrameBound::Kind::kUnboundedPreceding: out->append("UNBOUNDED PRECEDING"); return;
    case FrameBound::Kind::kUnboundedFollowing: out->append("UNBOUNDED FOLLOWING"); return;
    case FrameBound::Kind::kCurrentRow: out->append("CURRENT ROW"); return;
    case FrameBound::Kind::kPreceding:
    case FrameBound::Kind::kFollowing:
      AppendName(*bound.offset, out);
      out->append(bound.kind == FrameBound::Kind::kPreceding ? " PRECEDING" : " FOLLOWING");
      return;
  }
}

// " OVER w" or " OVER (PARTITION BY a ORDER BY b ASC ROWS BETWEEN ...)", as ClickHouse names it.
void AppendWindow(const WindowSpec& spec, std::string* out) {
  if (spec.partition_by.empty() && spec.order_by.empty() && !spec.frame && !spec.base.empty()) {
    out->append(" OVER " + spec.base);
    return;
  }
  std::vector<std::string> parts;
  if (!spec.base.empty()) parts.push_back(spec.base);
  if (!spec.partition_by.empty()) {
    std::string part = "PARTITION BY ";
    for (size_t i = 0; i < spec.partition_by.size(); ++i) {
      if (i > 0) part += ", ";
      AppendName(*spec.partition_by[i], &part);
    }
    parts.push_back(std::move(part));
  }
  if (!spec.order_by.empty()) {
    std::string part = "ORDER BY ";
    for (size_t i = 0; i < spec.order_by.size(); ++i) {
      if (i > 0) part += ", ";
      AppendName(*spec.order_by[i].expr, &part);
      part += spec.order_by[i].descending ? " DESC" : " ASC";
      if (spec.order_by[i].nulls_first) {
        part += *spec.order_by[i].nulls_first ? " NULLS FIRST" : " NULLS LAST";
      }
    }
    parts.push_back(std::move(part));
  }
  if (spec.frame) {
    std::string part = spec.frame->rows ? "ROWS BETWEEN " : "RANGE BETWEEN ";
    AppendBound(spec.frame->begin, &part);
    part += " AND ";
    AppendBound(spec.frame->end, &part);
    parts.push_back(std::move(part));
  }
  out->append(" OVER (");
  for (size_t i = 0; i < parts.size(); ++i) out->append((i > 0 ? " " : "") + parts[i]);
  out->push_back(')');
}

}  // namespace

std::string ColumnName(const Expr& expr) {
  std::string out;
  AppendName(expr, &out);
  return out;
}

}  // namespace granite::coordinator::sql

// Resolution of aggregate calls in three steps:
//   1. Parameters: a name may carry ClickHouse's parameters, "quantile(0.9)" for
//      quantile(0.9)(x); the parser builds that name and it travels in plans unchanged.
//   2. The base function: kEntries, matched case-insensitively (ClickHouse's own
//      case_insensitive flag is what system.functions reports).
//   3. Combinators: a name that is no entry is tried as f + "If" / "OrDefault" / "Distinct",
//      recursively (countDistinctIf = uniqExact with -If).
#include "core/aggregation/aggregate_function_factory.h"
#include "core/aggregation/null_aggregate_adapter.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class Family {
  kCount, kSum, kSumWithOverflow, kAvg, kMin, kMax, kAny, kUniqExact, kUniq, kGroupBitmap,
  kMoments, kStableMoments, kQuantile, kValue, kGroupArray,
};

// uniqUpTo's threshold when the call gives none (ClickHouse's default).
constexpr uint64_t kDefaultUniqUpTo = 5;

// How arguments are checked.
enum class Args { kAny, kNumeric, kInteger, kQuantile };

struct Entry {
  std::string_view name;  // as ClickHouse spells it
  Family family;
  int sub;                // MomentKind, QuantileKind or ValueKind
  std::string_view alias_to;  // canonical name; empty for a canonical entry
  bool case_insensitive;
  int min_args, max_args;
  Args args;
};

constexpr int M(MomentKind k) { return static_cast<int>(k); }
constexpr int Q(QuantileKind k) { return static_cast<int>(k); }
constexpr int V(ValueKind k) { return static_cast<int>(k); }

constexpr Entry kEntries[] = {
    {"count", Family::kCount, 0, "", true, 0, 1, Args::kAny},
    {"groupArray", Family::kGroupArray, 0, "", false, 1, 1, Args::kAny},
    {"groupUniqArray", Family::kGroupArray, 1, "", false, 1, 1, Args::kAny},
    {"sum", Family::kSum, 0, "", true, 1, 1, Args::kNumeric},
    {"sumWithOverflow", Family::kSumWithOverflow, 0, "", false, 1, 1, Args::kNumeric},
    {"sumKahan", Family::kValue, V(ValueKind::kSumKahan), "", false, 1, 1, Args::kNumeric},
    {"avg", Family::kAvg, 0, "", true, 1, 1, Args::kNumeric},
    {"min", Family::kMin, 0, "", true, 1, 1, Args::kAny},
    {"max", Family::kMax, 0, "", true, 1, 1, Args::kAny},
    {"any", Family::kAny, 0, "", false, 1, 1, Args::kAny},
    {"any_value", Family::kAny, 0, "any", true, 1, 1, Args::kAny},
    {"first_value", Family::kAny, 0, "any", true, 1, 1, Args::kAny},
    {"anyLast", Family::kValue, V(ValueKind::kAnyLast), "", false, 1, 1, Args::kAny},
    {"last_value", Family::kValue, V(ValueKind::kAnyLast), "anyLast", true, 1, 1, Args::kAny},
    {"anyHeavy", Family::kValue, V(ValueKind::kAnyHeavy), "", false, 1, 1, Args::kAny},
    {"argMin", Family::kValue, V(ValueKind::kArgMin), "", false, 2, 2, Args::kAny},
    {"min_by", Family::kValue, V(ValueKind::kArgMin), "argMin", true, 2, 2, Args::kAny},
    {"argMax", Family::kValue, V(ValueKind::kArgMax), "", false, 2, 2, Args::kAny},
    {"max_by", Family::kValue, V(ValueKind::kArgMax), "argMax", true, 2, 2, Args::kAny},
    {"uniqExact", Family::kUniqExact, 0, "", false, 1, 1, Args::kAny},
    {"countDistinct", Family::kUniqExact, 0, "uniqExact", true, 1, 1, Args::kAny},
    {"uniq", Family::kUniq, 0, "", false, 1, 1, Args::kAny},
    {"uniqCombined", Family::kUniq, 0, "", false, 1, 1, Args::kAny},
    {"uniqCombined64", Family::kUniq, 0, "", false, 1, 1, Args::kAny},
    {"uniqHLL12", Family::kUniq, 0, "", false, 1, 1, Args::kAny},
    {"uniqUpTo", Family::kValue, V(ValueKind::kUniqUpTo), "", false, 1, 1, Args::kAny},
    {"groupBitmap", Family::kGroupBitmap, 0, "", false, 1, 1, Args::kInteger},
    {"groupBitAnd", Family::kValue, V(ValueKind::kBitAnd), "", false, 1, 1, Args::kInteger},
    {"groupBitOr", Family::kValue, V(ValueKind::kBitOr), "", false, 1, 1, Args::kInteger},
    {"groupBitXor", Family::kValue, V(ValueKind::kBitXor), "", false, 1, 1, Args::kInteger},
    {"BIT_AND", Family::kValue, V(ValueKind::kBitAnd), "groupBitAnd", true, 1, 1, Args::kInteger},
    {"BIT_OR", Family::kValue, V(ValueKind::kBitOr), "groupBitOr", true, 1, 1, Args::kInteger},
    {"BIT_XOR", Family::kValue, V(ValueKind::kBitXor), "groupBitXor", true, 1, 1, Args::kInteger},
    {"entropy", Family::kValue, V(ValueKind::kEntropy), "", false, 1, 1, Args::kAny},
    {"boundingRatio", Family::kValue, V(ValueKind::kBoundingRatio), "", false, 2, 2,
     Args::kNumeric},
    {"varPop", Family::kMoments, M(MomentKind::kVarPop), "", false, 1, 1, Args::kNumeric},
    {"VAR_POP", Family::kMoments, M(MomentKind::kVarPop), "varPop", true, 1, 1, Args::kNumeric},
    {"varSamp", Family::kMoments, M(MomentKind::kVarSamp), "", false, 1, 1, Args::kNumeric},
    {"VAR_SAMP", Family::kMoments, M(MomentKind::kVarSamp), "varSamp", true, 1, 1, Args::kNumeric},
    {"stddevPop", Family::kMoments, M(MomentKind::kStddevPop), "", false, 1, 1, Args::kNumeric},
    {"STDDEV_POP", Family::kMoments, M(MomentKind::kStddevPop), "stddevPop", true, 1, 1,
     Args::kNumeric},
    {"STD", Family::kMoments, M(MomentKind::kStddevPop), "stddevPop", true, 1, 1, Args::kNumeric},
    {"stddevSamp", Family::kMoments, M(MomentKind::kStddevSamp), "", false, 1, 1, Args::kNumeric},
    {"STDDEV_SAMP", Family::kMoments, M(MomentKind::kStddevSamp), "stddevSamp", true, 1, 1,
     Args::kNumeric},
    {"STDDEV", Family::kMoments, M(MomentKind::kStddevSamp), "stddevSamp", true, 1, 1,
     Args::kNumeric},
    {"skewPop", Family::kMoments, M(MomentKind::kSkewPop), "", false, 1, 1, Args::kNumeric},
    {"skewSamp", Family::kMoments, M(MomentKind::kSkewSamp), "", false, 1, 1, Args::kNumeric},
    {"kurtPop", Family::kMoments, M(MomentKind::kKurtPop), "", false, 1, 1, Args::kNumeric},
    {"kurtSamp", Family::kMoments, M(MomentKind::kKurtSamp), "", false, 1, 1, Args::kNumeric},
    {"covarPop", Family::kMoments, M(MomentKind::kCovarPop), "", false, 2, 2, Args::kNumeric},
    {"COVAR_POP", Family::kMoments, M(MomentKind::kCovarPop), "covarPop", true, 2, 2,
     Args::kNumeric},
    {"covarSamp", Family::kMoments, M(MomentKind::kCovarSamp), "", false, 2, 2, Args::kNumeric},
    {"COVAR_SAMP", Family::kMoments, M(MomentKind::kCovarSamp), "covarSamp", true, 2, 2,
     Args::kNumeric},
    {"corr", Family::kMoments, M(MomentKind::kCorr), "", true, 2, 2, Args::kNumeric},
    {"avgWeighted", Family::kMoments, M(MomentKind::kAvgWeighted), "", false, 2, 2,
     Args::kNumeric},
    {"regr_count", Family::kMoments, M(MomentKind::kRegrCount), "", true, 2, 2, Args::kNumeric},
    {"regr_avgx", Family::kMoments, M(MomentKind::kRegrAvgx), "", true, 2, 2, Args::kNumeric},
    {"regr_avgy", Family::kMoments, M(MomentKind::kRegrAvgy), "", true, 2, 2, Args::kNumeric},
    {"regr_sxx", Family::kMoments, M(MomentKind::kRegrSxx), "", true, 2, 2, Args::kNumeric},
    {"regr_syy", Family::kMoments, M(MomentKind::kRegrSyy), "", true, 2, 2, Args::kNumeric},
    {"regr_sxy", Family::kMoments, M(MomentKind::kRegrSxy), "", true, 2, 2, Args::kNumeric},
    {"regr_slope", Family::kMoments, M(MomentKind::kRegrSlope), "", true, 2, 2, Args::kNumeric},
    {"regr_intercept", Family::kMoments, M(MomentKind::kRegrIntercept), "", true, 2, 2,
     Args::kNumeric},
    {"regr_r2", Family::kMoments, M(MomentKind::kRegrR2), "", true, 2, 2, Args::kNumeric},
    {"varPopStable", Family::kStableMoments, M(MomentKind::kVarPop), "", false, 1, 1,
     Args::kNumeric},
    {"varSampStable", Family::kStableMoments, M(MomentKind::kVarSamp), "", false, 1, 1,
     Args::kNumeric},
    {"stddevPopStable", Family::kStableMoments, M(MomentKind::kStddevPop), "", false, 1, 1,
     Args::kNumeric},
    {"stddevSampStable", Family::kStableMoments, M(MomentKind::kStddevSamp), "", false, 1, 1,
     Args::kNumeric},
    {"covarPopStable", Family::kStableMoments, M(MomentKind::kCovarPop), "", false, 2, 2,
     Args::kNumeric},
    {"covarSampStable", Family::kStableMoments, M(MomentKind::kCovarSamp), "", false, 2, 2,
     Args::kNumeric},
    {"corrStable", Family::kStableMoments, M(MomentKind::kCorr), "", false, 2, 2, Args::kNumeric},
    {"quantile", Family::kQuantile, Q(QuantileKind::kInterpolated), "", false, 1, 1,
     Args::kQuantile},
    {"median", Family::kQuantile, Q(QuantileKind::kInterpolated), "quantile", false, 1, 1,
     Args::kQuantile},
    {"quantileDeterministic", Family::kQuantile, Q(QuantileKind::kInterpolated), "", false, 2, 2,
     Args::kQuantile},
    {"medianDeterministic", Family::kQuantile, Q(QuantileKind::kInterpolated),
     "quantileDeterministic", false, 2, 2, Args::kQuantile},
    {"quantileExact", Family::kQuantile, Q(QuantileKind::kExact), "", false, 1, 1,
     Args::kQuantile},
    {"medianExact", Family::kQuantile, Q(QuantileKind::kExact), "quantileExact", false, 1, 1,
     Args::kQuantile},
    {"quantileExactLow", Family::kQuantile, Q(QuantileKind::kExactLow), "", false, 1, 1,
     Args::kQuantile},
    {"medianExactLow", Family::kQuantile, Q(QuantileKind::kExactLow), "quantileExactLow", false,
     1, 1, Args::kQuantile},
    {"quantileExactHigh", Family::kQuantile, Q(QuantileKind::kExactHigh), "", false, 1, 1,
     Args::kQuantile},
    {"medianExactHigh", Family::kQuantile, Q(QuantileKind::kExactHigh), "quantileExactHigh",
     false, 1, 1, Args::kQuantile},
    {"quantileExactExclusive", Family::kQuantile, Q(QuantileKind::kExactExclusive), "", false, 1,
     1, Args::kNumeric},
    {"quantileExactInclusive", Family::kQuantile, Q(QuantileKind::kExactInclusive), "", false, 1,
     1, Args::kNumeric},
    {"quantileTDigest", Family::kQuantile, Q(QuantileKind::kTDigest), "", false, 1, 1,
     Args::kQuantile},
    {"medianTDigest", Family::kQuantile, Q(QuantileKind::kTDigest), "quantileTDigest", false, 1,
     1, Args::kQuantile},
    {"quantileTiming", Family::kQuantile, Q(QuantileKind::kTiming), "", false, 1, 1,
     Args::kNumeric},
    {"medianTiming", Family::kQuantile, Q(QuantileKind::kTiming), "quantileTiming", false, 1, 1,
     Args::kNumeric},
    {"quantileBFloat16", Family::kQuantile, Q(QuantileKind::kBFloat16), "", false, 1, 1,
     Args::kNumeric},
    {"medianBFloat16", Family::kQuantile, Q(QuantileKind::kBFloat16), "quantileBFloat16", false,
     1, 1, Args::kNumeric},
    {"quantileExactWeighted", Family::kQuantile, Q(QuantileKind::kExactWeighted), "", false, 2, 2,
     Args::kQuantile},
    {"medianExactWeighted", Family::kQuantile, Q(QuantileKind::kExactWeighted),
     "quantileExactWeighted", false, 2, 2, Args::kQuantile},
};

constexpr std::string_view kCombinators[] = {"If", "OrDefault", "Distinct", "Array"};


// Case-insensitive, with no copy of either name: the binder asks IsAggregateFunction of every
// call name of a query, and each answer walked every entry.
const Entry* FindEntry(std::string_view name) {
  for (const Entry& entry : kEntries) {
    if (absl::EqualsIgnoreCase(ToAbsl(entry.name), ToAbsl(name))) return &entry;
  }
  return nullptr;
}

std::string_view CanonicalOf(const Entry& entry) {
  return entry.alias_to.empty() ? entry.name : entry.alias_to;
}

// A name split into its base and ClickHouse parameters: "quantile(0.9)" → "quantile", {0.9}.
struct ParsedName {
  std::string base;
  std::string params_text;  // "(0.9)" or empty
  std::vector<double> params;
};

absl::StatusOr<ParsedName> ParseName(std::string_view name) {
  ParsedName parsed;
  size_t open = name.find('(');
  if (open == std::string_view::npos) {
    parsed.base = std::string(name);
    return parsed;
  }
  parsed.base = std::string(name.substr(0, open));
  parsed.params_text = std::string(name.substr(open));
  std::string_view inner = name.substr(open + 1);
  if (!inner.empty() && inner.back() == ')') inner.remove_suffix(1);
  for (absl::string_view piece : absl::StrSplit(ToAbsl(inner), ',', absl::SkipWhitespace())) {
    std::string text(absl::StripAsciiWhitespace(piece));
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Parameter of aggregate function ", parsed.base,
                                " must be a number, got ", text));
    }
    parsed.params.push_back(value);
  }
  return parsed;
}

absl::Status CheckArgumentCount(std::string_view name, size_t count, size_t min, size_t max) {
  if (count >= min && count <= max) return absl::OkStatus();
  std::string expected = min == max ? absl::StrCat("exactly ", min)
                                    : absl::StrCat(min, " or ", max);
  return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
               absl::StrCat("Aggregate function ", ToAbsl(name), " requires ", expected,
                            " argument", max == 1 ? "" : "s", ", got ", count));
}

absl::Status IllegalType(std::string_view name, TypeId type) {
  return Error(ErrorCode::kIllegalTypeOfArgument,
               absl::StrCat("Illegal type ", ToAbsl(TypeName(type)),
                            " of argument for aggregate function ", ToAbsl(name)));
}

TypeId SumType(TypeId arg) {
  if (IsDecimal(arg)) return MakeDecimal(kMaxDecimalPrecision, ScaleOf(arg));
  if (IsFloat(arg)) return TypeId::kFloat64;
  return IsSignedInteger(arg) ? TypeId::kInt64 : TypeId::kUInt64;
}

// The resolved call: its entry (null for a combinator), the wrapped call for a combinator.
struct Resolution {
  const Entry* entry = nullptr;
  std::string combinator;                 // "If", "OrDefault", "Distinct"
  std::string inner_name;                 // the wrapped call's name with parameters
  std::vector<TypeId> inner_args;
  std::vector<double> params;
  std::string canonical;                  // with parameters
  TypeId result = TypeId::kUInt64;
};

absl::StatusOr<Resolution> Resolve(std::string_view name, const std::vector<TypeId>& args,
                                   int depth);

absl::StatusOr<Resolution> ResolveEntry(const Entry& entry, const ParsedName& parsed,
                                        std::string_view name, const std::vector<TypeId>& args) {
  Resolution r;
  r.entry = &entry;
  r.params = parsed.params;
  r.canonical = absl::StrCat(ToAbsl(CanonicalOf(entry)), parsed.params_text);
  RETURN_IF_ERROR(CheckArgumentCount(name, args.size(), entry.min_args, entry.max_args));
  const bool parametric = entry.family == Family::kQuantile || entry.family == Family::kGroupArray ||
                          (entry.family == Family::kValue && entry.sub == V(ValueKind::kUniqUpTo));
  if (!parametric && !parsed.params.empty()) {
    return Error(kAggregateFunctionDoesntAllowParameters,
                 absl::StrCat("Aggregate function ", ToAbsl(entry.name), " cannot have parameters"));
  }
  if (entry.family == Family::kQuantile) {
    if (parsed.params.size() > 1) {
      return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                   absl::StrCat("Aggregate function ", ToAbsl(entry.name),
                                " requires one level parameter, got ", parsed.params.size()));
    }
    const double level = parsed.params.empty() ? 0.5 : parsed.params[0];
    if (!(level >= 0 && level <= 1)) {
      return Error(kParameterOutOfBound,
                   absl::StrCat("Quantile level is out of range [0..1]: ", level));
    }
  }
  if (entry.family == Family::kGroupArray) {
    // groupArray(N)(x): keep the first N values; N a positive integer.
    if (parsed.params.size() > 1 || (parsed.params.size() == 1 &&
                                     (parsed.params[0] < 1 || parsed.params[0] > 0xFFFFFF ||
                                      parsed.params[0] != static_cast<double>(
                                                              static_cast<uint64_t>(parsed.params[0]))))) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Parameter for aggregate function ", ToAbsl(entry.name),
                                " should be positive integer"));
    }
  }
  if (entry.family == Family::kValue && entry.sub == V(ValueKind::kUniqUpTo)) {
    // uniqUpTo(x) without a parameter counts up to 5, as ClickHouse.
    if (parsed.params.size() > 1 ||
        (parsed.params.size() == 1 && (parsed.params[0] < 0 || parsed.params[0] > 100))) {
      return Error(kParameterOutOfBound,
                   "Aggregate function uniqUpTo requires one parameter from 0 to 100");
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const TypeId t = args[i];
    // FixedString values are not yet read by the aggregate states; UUID and DateTime64 only by
    // the ones that take any type (min, max, any, argMin, ...).
    if (IsFixedString(t) && entry.family != Family::kCount) return IllegalType(name, t);
    // Arrays: count reads them (as rows); groupArray and friends take their elements; any,
    // anyLast, anyHeavy, argMin and argMax keep them whole (as cells, not compared: not argMin's
    // second argument).
    const bool kept_whole =
        i == 0 && (entry.family == Family::kAny ||
                   (entry.family == Family::kValue &&
                    (entry.sub == V(ValueKind::kAnyLast) || entry.sub == V(ValueKind::kAnyHeavy) ||
                     entry.sub == V(ValueKind::kArgMin) || entry.sub == V(ValueKind::kArgMax))));
    if (IsArray(t) && entry.family != Family::kCount && entry.family != Family::kGroupArray &&
        !kept_whole) {
      return IllegalType(name, t);
    }
    if ((IsUuid(t) || IsDateTime64(t)) && entry.args == Args::kQuantile) {
      return IllegalType(name, t);
    }
    switch (entry.args) {
      case Args::kAny: break;
      case Args::kNumeric:
        // Decimals: sum (Decimal(38, S)) and avg (Float64) only; the others would read the
        // scaled integers.
        if (IsDecimal(t)) {
          if (entry.family != Family::kSum && entry.family != Family::kAvg) {
            return IllegalType(name, t);
          }
          break;
        }
        if (!IsNumeric(t) || IsDateOrDateTime(t)) return IllegalType(name, t);
        break;
      case Args::kInteger:
        if (!IsInteger(t) || IsDateOrDateTime(t)) return IllegalType(name, t);
        break;
      case Args::kQuantile:
        // The value: numbers and dates. The weight or determinator: an unsigned integer, as
        // ClickHouse requires (a negative weight would give a misleading quantile).
        if (i == 0 ? IsString(t)
                   : !IsInteger(t) || IsSignedInteger(t) || IsDateOrDateTime(t)) {
          return IllegalType(name, t);
        }
        break;
    }
  }
  const TypeId first = args.empty() ? TypeId::kUInt64 : args[0];
  switch (entry.family) {
    case Family::kCount:
    case Family::kUniqExact:
    case Family::kUniq:
    case Family::kGroupBitmap:
      // Their sets hold 64-bit keys; a 128-bit value would be cut.
      if (entry.family != Family::kCount && !args.empty() && ValueSize(first) > 8) {
        return IllegalType(name, first);
      }
      r.result = TypeId::kUInt64;
      break;
    case Family::kSum: r.result = SumType(first); break;
    case Family::kSumWithOverflow:
    case Family::kMin:
    case Family::kMax:
    case Family::kAny: r.result = first; break;
    case Family::kAvg: r.result = TypeId::kFloat64; break;
    case Family::kMoments:
      r.result = entry.sub == M(MomentKind::kRegrCount) ? TypeId::kUInt64 : TypeId::kFloat64;
      break;
    case Family::kStableMoments: r.result = TypeId::kFloat64; break;
    case Family::kGroupArray:
      if (ArrayDepthOf(first) >= kMaxArrayDepth) return IllegalType(name, first);
      r.result = MakeArray(first);
      break;
    case Family::kQuantile:
      r.result = QuantileResultType(static_cast<QuantileKind>(entry.sub), first);
      break;
    case Family::kValue:
      switch (static_cast<ValueKind>(entry.sub)) {
        case ValueKind::kEntropy:
        case ValueKind::kSumKahan:
        case ValueKind::kBoundingRatio: r.result = TypeId::kFloat64; break;
        case ValueKind::kUniqUpTo: r.result = TypeId::kUInt64; break;
        default: r.result = first;
      }
      break;
  }
  return r;
}

absl::StatusOr<Resolution> Resolve(std::string_view name, const std::vector<TypeId>& args,
                                   int depth) {
  ASSIGN_OR_RETURN(ParsedName parsed, ParseName(name));
  if (const Entry* entry = FindEntry(parsed.base)) return ResolveEntry(*entry, parsed, name, args);
  if (depth < 3) {
    for (std::string_view suffix : kCombinators) {
      const std::string& base = parsed.base;
      if (base.size() <= suffix.size() || !base.ends_with(suffix)) continue;
      Resolution r;
      r.combinator = std::string(suffix);
      r.inner_name = base.substr(0, base.size() - suffix.size()) + parsed.params_text;
      r.inner_args = args;
      if (suffix == "If") {
        if (args.empty()) {
          return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                       absl::StrCat("Aggregate function ", ToAbsl(name),
                                    " requires at least one argument, the condition"));
        }
        if (!IsNumeric(args.back()) || IsFloat(args.back()) || IsDateOrDateTime(args.back())) {
          return Error(ErrorCode::kIllegalTypeOfArgument,
                       absl::StrCat("Illegal type ", ToAbsl(TypeName(args.back())),
                                    " of last argument for aggregate function with If suffix ",
                                    ToAbsl(name), ": must be UInt8"));
        }
        r.inner_args.pop_back();
      }
      if (suffix == "Array") {
        // sumArray(arr): the inner aggregate over the elements of one array argument.
        if (args.size() != 1 || !IsArray(args[0])) {
          if (args.size() == 1) return IllegalType(name, args[0]);
          return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                       absl::StrCat("Aggregate function ", ToAbsl(name),
                                    " takes one Array argument in granite"));
        }
        r.inner_args = {ArrayElementOf(args[0])};
      }
      absl::StatusOr<Resolution> inner = Resolve(r.inner_name, r.inner_args, depth + 1);
      if (!inner.ok()) {
        if (CodeOf(inner.status()) == ErrorCode::kUnknownAggregateFunction) continue;
        return inner.status();
      }
      r.result = inner->result;
      std::string inner_canonical = inner->canonical;
      std::string inner_params;
      if (size_t open = inner_canonical.find('('); open != std::string::npos) {
        inner_params = inner_canonical.substr(open);
        inner_canonical.resize(open);
      }
      r.canonical = absl::StrCat(inner_canonical, ToAbsl(suffix), inner_params);
      r.inner_name = inner->canonical;
      return r;
    }
  }
  return Error(ErrorCode::kUnknownAggregateFunction,
               absl::StrCat("Unknown aggregate function ", ToAbsl(parsed.base)));
}

absl::StatusOr<std::unique_ptr<AggregateFunction>> Create(const Resolution& r,
                                                          const AggregateSpec& spec) {
  if (!r.combinator.empty()) {
    AggregateSpec inner{r.inner_name, r.inner_args};
    if (r.combinator == "Distinct") return MakeDistinctCombinator(inner, r.result);
    ASSIGN_OR_RETURN(std::unique_ptr<AggregateFunction> f, CreateAggregateFunction(inner));
    if (r.combinator == "If") return MakeIfCombinator(std::move(f));
    if (r.combinator == "Array") return MakeArrayCombinator(std::move(f));
    return MakeOrDefaultCombinator(std::move(f));
  }
  const Entry& entry = *r.entry;
  const TypeId arg = spec.arg_types.empty() ? TypeId::kUInt8 : spec.arg_types[0];
  switch (entry.family) {
    case Family::kCount: return MakeCount();
    case Family::kSum: return MakeSum(arg);
    case Family::kSumWithOverflow: return MakeSumWithOverflow(arg);
    case Family::kAvg: return MakeAvg(arg);
    case Family::kMin: return MakeMin(arg);
    case Family::kMax: return MakeMax(arg);
    case Family::kAny:
      if (IsArray(arg)) return MakeValueAggregate(ValueKind::kAnyFirst, spec.arg_types, 0);
      return MakeAny(arg);
    case Family::kUniqExact:
    case Family::kGroupBitmap:
      if (spec.bitmap_bits > 0 && IsInteger(arg)) {
        return MakeDistinctBitmap(arg, spec.bitmap_base, spec.bitmap_bits);
      }
      return MakeUniqExact(arg);
    case Family::kUniq: return MakeUniq(arg);
    case Family::kMoments:
    case Family::kStableMoments:
      return MakeMoments(static_cast<MomentKind>(entry.sub),
                         entry.family == Family::kStableMoments);
    case Family::kQuantile:
      return MakeQuantile(static_cast<QuantileKind>(entry.sub), arg,
                          r.params.empty() ? 0.5 : r.params[0]);
    case Family::kGroupArray:
      return MakeGroupArray(entry.sub == 1, arg,
                            r.params.empty() ? 0 : static_cast<uint64_t>(r.params[0]));
    case Family::kValue:
      return MakeValueAggregate(
          static_cast<ValueKind>(entry.sub), spec.arg_types,
          !r.params.empty() ? static_cast<uint64_t>(r.params[0])
          : entry.sub == V(ValueKind::kUniqUpTo) ? kDefaultUniqUpTo : 0);
  }
  return Error(ErrorCode::kLogicalError, "unreachable aggregate family");
}

}  // namespace

absl::StatusOr<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                                   const std::vector<TypeId>& arg_types) {
  if (HasNullableArgument(arg_types)) {
    ASSIGN_OR_RETURN(Resolution r, Resolve(name, NestedArgumentTypes(arg_types), 0));
    return ResolvedAggregate{r.canonical, WithNullable(r.result, !KeepsResultTypeOverNulls(r.canonical))};
  }
  ASSIGN_OR_RETURN(Resolution r, Resolve(name, arg_types, 0));
  return ResolvedAggregate{r.canonical, r.result};
}

bool IsAggregateFunction(std::string_view name) {
  absl::StatusOr<ParsedName> parsed = ParseName(name);
  if (!parsed.ok()) return false;
  std::string_view base = parsed->base;
  for (int depth = 0; depth < 4; ++depth) {
    if (FindEntry(base) != nullptr) return true;
    bool stripped = false;
    for (std::string_view suffix : kCombinators) {
      if (base.size() > suffix.size() && base.ends_with(suffix)) {
        base.remove_suffix(suffix.size());
        stripped = true;
        break;
      }
    }
    if (!stripped) return false;
  }
  return false;
}

std::vector<FunctionListing> ListAggregateFunctions() {
  std::vector<FunctionListing> out;
  for (const Entry& entry : kEntries) {
    out.push_back({std::string(entry.name), entry.case_insensitive, std::string(entry.alias_to)});
  }
  return out;
}

absl::StatusOr<std::unique_ptr<AggregateFunction>> CreateAggregateFunction(
    const AggregateSpec& spec) {
  if (HasNullableArgument(spec.arg_types)) {
    AggregateSpec nested = spec;
    nested.arg_types = NestedArgumentTypes(spec.arg_types);
    ASSIGN_OR_RETURN(Resolution r, Resolve(nested.name, nested.arg_types, 0));
    ASSIGN_OR_RETURN(std::unique_ptr<AggregateFunction> inner, CreateAggregateFunction(nested));
    return MakeNullAggregateAdapter(std::move(inner), !KeepsResultTypeOverNulls(r.canonical));
  }
  ASSIGN_OR_RETURN(Resolution r, Resolve(spec.name, spec.arg_types, 0));
  ASSIGN_OR_RETURN(std::unique_ptr<AggregateFunction> f, Create(r, spec));
  if (f == nullptr) return Error(ErrorCode::kLogicalError, "aggregate not constructible");
  return f;
}

}  // namespace granite::core

// FunctionTable: the registry's table of function definitions, filled once by the Register*
// functions of each functions/*.cc file (arithmetic, comparison, ...). Internal to core/functions;
// the public entry points are in function_registry.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// Returns the result type of a call, or an error naming `name`. Called after the argument count
// was checked against the definition.
using ResolveFn = absl::StatusOr<TypeId> (*)(std::string_view name,
                                            const std::vector<ArgumentInfo>& args);
// Builds the kernel of a call that `resolve` accepted with `result_type`.
using CompileFn = absl::StatusOr<std::unique_ptr<ScalarKernel>> (*)(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type);

inline constexpr int kVariadic = -1;

struct FunctionDef {
  std::string_view name;  // canonical name
  int min_args;
  int max_args;  // kVariadic: no upper bound
  bool case_insensitive;
  ResolveFn resolve;
  CompileFn compile;
  // Whether the function takes Array arguments; any other function refuses them in the registry
  // (ILLEGAL_TYPE_OF_ARGUMENT) before its resolve runs, so no kernel ever sees an array it does
  // not know.
  bool accepts_arrays = false;
  // Whether the function sees Nullable arguments itself (array(1, NULL) is [1, NULL]) instead
  // of the registry's default (NULL in, NULL out: null_functions.h).
  bool handles_nulls = false;
  // Whether the first argument may be a lambda (ArgumentInfo::lambda): the higher-order
  // functions. With a lambda the argument count is checked by the function's resolve.
  bool takes_lambda = false;
};

// Maps names and aliases to definitions.
// Thread-safety: filled once during the registry's initialization, read-only afterwards.
class FunctionTable {
 public:
  void Add(const FunctionDef& def);
  // Registers `alias` for the already added `canonical`.
  void AddAlias(std::string_view alias, std::string_view canonical, bool case_insensitive);
  // Returns the definition for `name`: exact spelling first, then case-insensitive names.
  const FunctionDef* Find(std::string_view name) const;
  // Returns every canonical function and alias, in registration order.
  std::vector<FunctionListing> List() const;

 private:
  std::vector<FunctionListing> aliases_;
  std::vector<std::unique_ptr<FunctionDef>> defs_;
  absl::flat_hash_map<std::string, const FunctionDef*> exact_;
  absl::flat_hash_map<std::string, const FunctionDef*> lowercase_;
};

void RegisterArithmeticFunctions(FunctionTable& table);
void RegisterRoundingFunctions(FunctionTable& table);
void RegisterComparisonFunctions(FunctionTable& table);
void RegisterLogicalFunctions(FunctionTable& table);
void RegisterConstantFunctions(FunctionTable& table);
void RegisterDefaultValueFunctions(FunctionTable& table);
void RegisterInFunctions(FunctionTable& table);
void RegisterLikeFunctions(FunctionTable& table);
void RegisterConditionalFunctions(FunctionTable& table);
void RegisterConversionFunctions(FunctionTable& table);
void RegisterDateFunctions(FunctionTable& table);
void RegisterStringFunctions(FunctionTable& table);
void RegisterRegexpFunctions(FunctionTable& table);
void RegisterMathFunctions(FunctionTable& table);
void RegisterStringExtraFunctions(FunctionTable& table);
void RegisterUrlFunctions(FunctionTable& table);
void RegisterHashFunctions(FunctionTable& table);
void RegisterDateExtraFunctions(FunctionTable& table);
void RegisterTimeZoneFunctions(FunctionTable& table);
void RegisterJsonFunctions(FunctionTable& table);
void RegisterMiscFunctions(FunctionTable& table);
void RegisterExtendedTypeFunctions(FunctionTable& table);
// __enumName / __enumValue: the binder's lowering of Enum8 / Enum16 columns (enum_functions.cc).
void RegisterEnumFunctions(FunctionTable& table);
// Array functions (array_functions.cc and friends). The overloads are functions whose names
// also name scalar functions (length, empty, equals, ...): the registry picks the overload when
// an argument is an array.
void RegisterArrayFunctions(FunctionTable& table);
void RegisterArrayTransformFunctions(FunctionTable& table);
void RegisterArrayOverloads(FunctionTable& overloads);
// arrayMap, arrayFilter, arrayCount, ... (higher_order_functions.cc).
void RegisterHigherOrderFunctions(FunctionTable& table);

}  // namespace granite::core

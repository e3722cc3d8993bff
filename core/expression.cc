#include "core/expression.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/dictionary_codes.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"
#include "core/mask_count.h"
#include "core/status_macros.h"

namespace granite::core {

// One node of the compiled tree.
struct ExpressionNode {
  enum class Kind { kColumn, kConstant, kCall, kLambda };

  Kind kind = Kind::kConstant;
  TypeId type = TypeId::kUInt8;
  uint32_t column = 0;     // kColumn: index into the input block
  ColumnPtr constant;      // kConstant: one row
  std::string name;        // kCall: canonical function name
  std::unique_ptr<ScalarKernel> kernel;
  // kCall: the arguments; a higher-order call's first child is its kLambda. kLambda: the body.
  std::vector<std::unique_ptr<ExpressionNode>> children;

  // kLambda: the body runs over a block of `width` columns in which column parameters[i] holds
  // the elements of the call's i-th array and each column of `captured` (the enclosing block's
  // columns and outer lambdas' parameters that the body reads) is replicated once per element.
  std::vector<uint32_t> parameters;
  std::vector<uint32_t> captured;
  size_t width = 0;
  bool varies = false;  // the body calls a random function: never folded

  // and(...) whose arguments are non-Nullable UInt8: the light arguments run first (the
  // cheapest first), then the heavy ones (reading String or Array columns); once few rows are
  // still true, each next argument runs over those only (EvaluateShortCircuitAnd). A filter such
  // as `counter_id = 62 AND url LIKE '%google%'` then matches strings on the few rows left.
  bool short_circuit = false;
  std::vector<size_t> order;                   // children in evaluation order
  std::vector<bool> heavy;                     // per child
  std::vector<std::vector<uint32_t>> columns;  // per child: the input columns it reads
};

namespace {

using Node = ExpressionNode;

// Lambda parameters are compiled into column references past the block's own columns: slot s
// reads column parameter_base + s of the expanded block a lambda's body is evaluated over.
struct CompileContext {
  uint32_t parameter_base = 0;
  size_t width = 0;  // parameter_base + the number of slots
};

bool IsRandom(std::string_view name) {
  return name == "rand" || name == "rand32" || name == "rand64" || name == "randCanonical" ||
         name == "generateUUIDv4";
}

void MeasureTree(const plan::Expr& expr, uint32_t* columns, uint32_t* slots) {
  if (expr.is_column()) *columns = std::max(*columns, expr.column + 1);
  if (expr.is_lambda_parameter()) *slots = std::max(*slots, expr.column + 1);
  for (const plan::Expr& arg : expr.args) MeasureTree(arg, columns, slots);
}

bool IsTupleCall(const plan::Expr& expr) { return expr.IsCall("tuple"); }

// Returns the plan arguments of a call; the tuple of in(x, tuple(...)) is flattened.
std::vector<const plan::Expr*> ArgumentsOf(const plan::Expr& call) {
  std::vector<const plan::Expr*> args;
  const bool is_in = call.function == "in" || call.function == "notIn";
  for (size_t i = 0; i < call.args.size(); ++i) {
    const plan::Expr& arg = call.args[i];
    if (is_in && i == 1 && IsTupleCall(arg)) {
      for (const plan::Expr& element : arg.args) args.push_back(&element);
    } else {
      args.push_back(&arg);
    }
  }
  return args;
}

// Adds to `out` the expanded-block columns `expr` reads that no lambda inside it binds (`bound`
// holds the slots bound on the way down), and notes a random call in `varies`.
void CollectCaptured(const plan::Expr& expr, const CompileContext& context,
                     std::vector<uint32_t>* bound, std::vector<uint32_t>* out, bool* varies) {
  uint32_t column = 0;
  if (expr.is_column()) {
    column = expr.column;
  } else if (expr.is_lambda_parameter()) {
    if (std::find(bound->begin(), bound->end(), expr.column) != bound->end()) return;
    column = context.parameter_base + expr.column;
  } else {
    if (expr.is_call() && IsRandom(expr.function)) *varies = true;
    const bool lambda = expr.IsCall("lambda");
    const size_t depth = bound->size();
    for (size_t i = 0; lambda && i + 1 < expr.args.size(); ++i) bound->push_back(expr.args[i].column);
    for (const plan::Expr& arg : expr.args) CollectCaptured(arg, context, bound, out, varies);
    bound->resize(depth);
    return;
  }
  if (std::find(out->begin(), out->end(), column) == out->end()) out->push_back(column);
}

absl::StatusOr<std::unique_ptr<Node>> Compile(const plan::Expr& expr,
                                              const CompileContext& context);
// Evaluates `node` over `rows` rows of `input` (input.rows(); a lambda's body over its
// expanded block; or fewer for a short-circuit argument, whose block holds compacted copies of
// only the columns it reads).
absl::StatusOr<Operand> EvaluateNode(const Node& node, const Block& input, size_t rows);
absl::StatusOr<Operand> EvaluateShortCircuitAnd(const Node& node, const Block& input,
                                                size_t rows);

// Compiles lambda($a, $b, body), the first argument of a higher-order call.
absl::StatusOr<std::unique_ptr<Node>> CompileLambda(const plan::Expr& lambda,
                                                    const CompileContext& context) {
  if (lambda.args.empty()) return Error(ErrorCode::kLogicalError, "A lambda without a body");
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::kLambda;
  node->type = lambda.type;
  node->width = context.width;
  std::vector<uint32_t> bound;
  for (size_t i = 0; i + 1 < lambda.args.size(); ++i) {
    const plan::Expr& parameter = lambda.args[i];
    if (!parameter.is_lambda_parameter()) {
      return Error(ErrorCode::kLogicalError, "A lambda parameter that is not a parameter node");
    }
    node->parameters.push_back(context.parameter_base + parameter.column);
    bound.push_back(parameter.column);
  }
  const plan::Expr& body = lambda.args.back();
  CollectCaptured(body, context, &bound, &node->captured, &node->varies);
  ASSIGN_OR_RETURN(std::unique_ptr<Node> compiled, Compile(body, context));
  if (compiled->type != lambda.type) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Plan declares type ", ToAbsl(TypeName(lambda.type)),
                              " for a lambda whose body returns ",
                              ToAbsl(TypeName(compiled->type))));
  }
  node->children.push_back(std::move(compiled));
  return node;
}

// Adds the input columns `node` reads to `columns`; returns whether one is a String or an Array.
bool CollectColumns(const Node& node, std::vector<uint32_t>* columns) {
  if (node.kind == Node::Kind::kLambda) {
    // Its body reads the lambda's own block; of this one, only the columns it captures (the
    // call's arrays, its siblings, make the call heavy).
    for (uint32_t column : node.captured) {
      if (std::find(columns->begin(), columns->end(), column) == columns->end()) {
        columns->push_back(column);
      }
    }
    return false;
  }
  if (node.kind == Node::Kind::kColumn) {
    if (std::find(columns->begin(), columns->end(), node.column) == columns->end()) {
      columns->push_back(node.column);
    }
    const TypeId base = BaseOf(RemoveNullable(node.type));
    return base == TypeId::kString || base == TypeId::kArray;
  }
  bool wide = false;
  for (const auto& child : node.children) wide = CollectColumns(*child, columns) || wide;
  return wide;
}

size_t CountNodes(const Node& node) {
  size_t count = 1;
  for (const auto& child : node.children) count += CountNodes(*child);
  return count;
}

// Marks an and(...) call for short-circuit evaluation (ExpressionNode::short_circuit).
void PlanShortCircuit(Node* node) {
  if (node->name != "and" || node->children.size() < 2) return;
  for (const auto& child : node->children) {
    if (child->type != TypeId::kUInt8) return;  // Nullable: three-valued, evaluated whole
  }
  node->heavy.resize(node->children.size());
  node->columns.resize(node->children.size());
  for (size_t i = 0; i < node->children.size(); ++i) {
    node->heavy[i] = CollectColumns(*node->children[i], &node->columns[i]);
  }
  // Light arguments first, the cheapest (fewest nodes) of them first: a key set's `k IN (...)`
  // before a disjunction of ranges, which then runs over the few rows left.
  std::vector<size_t> nodes(node->children.size());
  for (size_t i = 0; i < node->children.size(); ++i) nodes[i] = CountNodes(*node->children[i]);
  for (size_t i = 0; i < node->children.size(); ++i) {
    if (!node->heavy[i]) node->order.push_back(i);
  }
  std::stable_sort(node->order.begin(), node->order.end(),
                   [&](size_t a, size_t b) { return nodes[a] < nodes[b]; });
  for (size_t i = 0; i < node->children.size(); ++i) {
    if (node->heavy[i]) node->order.push_back(i);
  }
  node->short_circuit = true;
}

// CompileCall's work outside its recursion lives in these functions, kept out of its frame:
// calls nest as deep as max_ast_depth allows, and each level of the recursion pays
// CompileCall's frame and Compile's (large under ASan, which gives every temporary a slot).

// Compiles the lambda argument `arg` of `node` and adds it.
[[gnu::noinline]] absl::Status AddLambdaArgument(const plan::Expr& arg,
                                                 const CompileContext& context, Node* node,
                                                 std::vector<ArgumentInfo>* infos,
                                                 bool* all_constant) {
  ASSIGN_OR_RETURN(std::unique_ptr<Node> lambda, CompileLambda(arg, context));
  ArgumentInfo info{MakeArray(lambda->type), std::nullopt};
  info.lambda = true;
  if (!lambda->captured.empty() || lambda->varies) *all_constant = false;
  infos->push_back(std::move(info));
  node->children.push_back(std::move(lambda));
  return absl::OkStatus();
}

// Adds the compiled argument `child` to `node`.
[[gnu::noinline]] void AddArgument(std::unique_ptr<Node> child, Node* node,
                                   std::vector<ArgumentInfo>* infos, bool* all_constant) {
  ArgumentInfo info{child->type, std::nullopt};
  if (child->kind == Node::Kind::kConstant) {
    info.constant = ValueAt(*child->constant, 0);
    info.constant_is_null = child->constant->IsNullAt(0);
  } else {
    *all_constant = false;
  }
  infos->push_back(std::move(info));
  node->children.push_back(std::move(child));
}

// Adds the set of in / notIn (a kSet node): the kernel takes its values from the argument's
// info; the child is a one-row placeholder, so operands keep their positions.
[[gnu::noinline]] absl::Status AddSetArgument(const plan::Expr& arg, Node* node,
                                              std::vector<ArgumentInfo>* infos) {
  if (arg.set == nullptr || arg.set->size() == 0 || arg.set->nullable() ||
      arg.set->type() != arg.type) {
    return Error(ErrorCode::kLogicalError, "A malformed IN set in a plan");
  }
  auto placeholder = std::make_unique<Node>();
  placeholder->kind = Node::Kind::kConstant;
  placeholder->type = arg.type;
  ASSIGN_OR_RETURN(placeholder->constant, MakeConstantColumn(ValueAt(*arg.set, 0), arg.type));
  ArgumentInfo info{arg.type, std::nullopt};
  info.set = arg.set;
  infos->push_back(std::move(info));
  node->children.push_back(std::move(placeholder));
  return absl::OkStatus();
}

// Binds `node` (the call `call` with its arguments compiled) to its kernel, or folds it into a
// constant when every argument is one.
[[gnu::noinline]] absl::StatusOr<std::unique_ptr<Node>> FinishCall(
    const plan::Expr& call, std::unique_ptr<Node> node, const std::vector<ArgumentInfo>& infos,
    bool all_constant) {
  const TypeId type = call.type;
  ASSIGN_OR_RETURN(CompiledFunction compiled, CompileFunction(call.function, infos));
  if (compiled.resolved.result_type != type) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Plan declares type ", ToAbsl(TypeName(type)), " for function ",
                              compiled.resolved.name, ", which returns ",
                              ToAbsl(TypeName(compiled.resolved.result_type))));
  }
  node->name = std::move(compiled.resolved.name);
  node->kernel = std::move(compiled.kernel);
  // Random functions give a new value per row even without column arguments.
  if (!all_constant || IsRandom(node->name)) {
    PlanShortCircuit(node.get());
    return node;
  }

  // Constant folding: evaluate once on the one-row constants (a lambda over constant arrays
  // included).
  ASSIGN_OR_RETURN(Operand folded, EvaluateNode(*node, Block{}, 1));
  auto constant = std::make_unique<Node>();
  constant->kind = Node::Kind::kConstant;
  constant->type = type;
  constant->constant = std::move(folded.column);
  return constant;
}

// A literal's constant node (out of Compile's frame, as the functions above).
[[gnu::noinline]] absl::StatusOr<std::unique_ptr<Node>> CompileLiteral(const plan::Expr& expr) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::kConstant;
  node->type = expr.type;
  ASSIGN_OR_RETURN(node->constant, MakeConstantColumn(expr.literal, expr.type));
  return node;
}

absl::StatusOr<std::unique_ptr<Node>> CompileCall(const plan::Expr& call,
                                                  const CompileContext& context) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::kCall;
  node->type = call.type;
  std::vector<ArgumentInfo> infos;
  bool all_constant = true;
  for (const plan::Expr* arg : ArgumentsOf(call)) {
    if (arg->IsCall("lambda") && infos.empty()) {
      RETURN_IF_ERROR(AddLambdaArgument(*arg, context, node.get(), &infos, &all_constant));
      continue;
    }
    if (arg->is_set()) {
      RETURN_IF_ERROR(AddSetArgument(*arg, node.get(), &infos));
      continue;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Node> child, Compile(*arg, context));
    AddArgument(std::move(child), node.get(), &infos, &all_constant);
  }
  return FinishCall(call, std::move(node), infos, all_constant);
}

absl::StatusOr<std::unique_ptr<Node>> Compile(const plan::Expr& expr,
                                              const CompileContext& context) {
  switch (expr.kind) {
    case plan::Expr::Kind::kColumn:
    case plan::Expr::Kind::kLambdaParameter: {
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::kColumn;
      node->type = expr.type;
      node->column = expr.is_column() ? expr.column : context.parameter_base + expr.column;
      return node;
    }
    case plan::Expr::Kind::kLiteral:
      return CompileLiteral(expr);
    case plan::Expr::Kind::kSet:
      return Error(ErrorCode::kLogicalError, "An IN set outside the right side of in / notIn");
    case plan::Expr::Kind::kCall:
      break;
  }
  if (expr.IsCall("lambda")) {
    return Error(ErrorCode::kLogicalError, "A lambda outside the first argument of a call");
  }
  return CompileCall(expr, context);
}

// Returns `column` as a column this caller may change: moved out when nobody else holds it.
Column TakeColumn(ColumnPtr column) {
  if (column.use_count() == 1) return std::move(const_cast<Column&>(*column));
  return *column;
}

// Evaluates a call whose first child is a lambda: the body runs once over the flattened
// elements of the whole batch (each captured column replicated per element), and the kernel
// receives its values as an array with the first array's offsets, then the arrays.
[[gnu::noinline]] absl::StatusOr<Operand> EvaluateHigherOrder(const Node& node, const Block& input,
                                                              size_t rows) {
  const Node& lambda = *node.children[0];
  std::vector<Operand> operands(node.children.size());
  bool all_constant = lambda.captured.empty() && !lambda.varies;
  for (size_t i = 1; i < node.children.size(); ++i) {
    ASSIGN_OR_RETURN(operands[i], EvaluateNode(*node.children[i], input, rows));
    all_constant = all_constant && operands[i].is_constant;
  }
  const size_t batch_rows = all_constant ? 1 : rows;
  for (size_t i = 1; i < operands.size() && !all_constant; ++i) {
    if (operands[i].is_constant) operands[i] = {Broadcast(*operands[i].column, rows), false};
  }
  const Column& first = *operands[1].column;
  for (size_t i = 2; i < operands.size(); ++i) {
    const Column& other = *operands[i].column;
    if (other.Offsets() == first.Offsets()) continue;
    size_t row = 0;
    while (row + 1 < batch_rows && other.ArraySizeAt(row) == first.ArraySizeAt(row)) ++row;
    return Error(kSizesOfArraysDontMatch,
                 absl::StrCat("Arrays passed to ", node.name,
                              " must have equal size. Argument ", i + 1, " has size ",
                              other.ArraySizeAt(row),
                              " which differs with the size of another argument, ",
                              first.ArraySizeAt(row)));
  }
  const size_t elements = first.Nested().size();
  Block expanded;
  expanded.columns.resize(lambda.width);
  for (size_t p = 0; p < lambda.parameters.size(); ++p) {
    const ColumnPtr& array = operands[p + 1].column;
    expanded.columns[lambda.parameters[p]] = ColumnPtr(array, &array->Nested());
  }
  if (!lambda.captured.empty()) {
    std::vector<uint32_t> row_of_element(elements);
    for (size_t row = 0; row < batch_rows; ++row) {
      std::fill(row_of_element.begin() + static_cast<std::ptrdiff_t>(first.ArrayBegin(row)),
                row_of_element.begin() + static_cast<std::ptrdiff_t>(first.Offsets()[row]),
                static_cast<uint32_t>(row));
    }
    for (uint32_t column : lambda.captured) {
      if (column >= input.columns.size() || input.columns[column] == nullptr) {
        return Error(ErrorCode::kLogicalError,
                     absl::StrCat("Lambda refers to column ", column, " of a block with ",
                                  input.columns.size(), " columns"));
      }
      expanded.columns[column] = std::make_shared<Column>(
          input.columns[column]->Take(row_of_element.data(), elements));
    }
  }
  ASSIGN_OR_RETURN(Operand body, EvaluateNode(*lambda.children[0], expanded, elements));
  Column values =
      TakeColumn(body.is_constant ? Broadcast(*body.column, elements) : std::move(body.column));
  if (IsNullable(lambda.type)) values.MakeNullable();
  auto mapped = std::make_shared<Column>(MakeArray(lambda.type));
  mapped->MutableNested() = std::move(values);
  mapped->MutableOffsets() = first.Offsets();
  mapped->SetSize(first.size());
  operands[0] = {std::move(mapped), all_constant};
  ASSIGN_OR_RETURN(ColumnPtr result, node.kernel->Execute(operands, batch_rows));
  return Operand{std::move(result), all_constant};
}

// EvaluateNode's work outside its recursion lives in these functions, kept out of its frame
// (as CompileCall's: see AddLambdaArgument).

// The input column a column node reads.
[[gnu::noinline]] absl::StatusOr<Operand> EvaluateColumn(const Node& node, const Block& input) {
  if (node.column >= input.columns.size() || input.columns[node.column] == nullptr) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Expression refers to column ", node.column, " of a block with ",
                              input.columns.size(), " columns"));
  }
  const ColumnPtr& column = input.columns[node.column];
  // The values' type must match; a Nullable column's null map rides along.
  if (column->type() != RemoveNullable(node.type)) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Column ", node.column, " has type ",
                              ToAbsl(TypeName(column->type())), ", the plan expects ",
                              ToAbsl(TypeName(node.type))));
  }
  return Operand{column, false};
}

// `result`, the value of the call `node`, if it has the rows and the type the plan says.
[[gnu::noinline]] absl::StatusOr<Operand> CheckedResult(const Node& node,
                                                        absl::StatusOr<ColumnPtr> result,
                                                        bool constant, size_t rows) {
  if (!result.ok()) return result.status();
  const size_t expected = constant ? 1 : rows;
  if ((*result)->size() != expected || (*result)->type() != RemoveNullable(node.type)) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Function ", node.name, " returned ", (*result)->size(),
                              " rows of ", ToAbsl(TypeName((*result)->type())), " for ",
                              expected, " rows of ", ToAbsl(TypeName(node.type))));
  }
  return Operand{*std::move(result), constant};
}

// The call `node` over its evaluated arguments.
[[gnu::noinline]] absl::StatusOr<Operand> ExecuteCall(const Node& node,
                                                      const std::vector<Operand>& operands,
                                                      size_t rows) {
  return CheckedResult(node, node.kernel->Execute(operands, rows), false, rows);
}

// A call whose first argument is a lambda.
[[gnu::noinline]] absl::StatusOr<Operand> ExecuteHigherOrder(const Node& node, const Block& input,
                                                             size_t rows) {
  absl::StatusOr<Operand> result = EvaluateHigherOrder(node, input, rows);
  if (!result.ok()) return result.status();
  return CheckedResult(node, std::move(result->column), result->is_constant, rows);
}

absl::StatusOr<Operand> EvaluateNode(const Node& node, const Block& input, size_t rows) {
  switch (node.kind) {
    case Node::Kind::kConstant:
      return Operand{node.constant, true};
    case Node::Kind::kColumn:
      return EvaluateColumn(node, input);
    case Node::Kind::kLambda:
      return Error(ErrorCode::kLogicalError, "A lambda evaluated outside its call");
    case Node::Kind::kCall:
      break;
  }
  if (node.short_circuit) return EvaluateShortCircuitAnd(node, input, rows);
  if (!node.children.empty() && node.children[0]->kind == Node::Kind::kLambda) {
    return ExecuteHigherOrder(node, input, rows);
  }
  std::vector<Operand> operands;
  operands.reserve(node.children.size());
  for (const auto& child : node.children) {
    ASSIGN_OR_RETURN(Operand operand, EvaluateNode(*child, input, rows));
    operands.push_back(std::move(operand));
  }
  return ExecuteCall(node, operands, rows);
}

[[gnu::noinline]] absl::StatusOr<Operand> EvaluateShortCircuitAnd(const Node& node,
                                                                  const Block& input,
                                                                  size_t rows) {
  auto out = std::make_shared<Column>(TypeId::kUInt8);
  out->Resize(rows);
  uint8_t* mask = out->Data<uint8_t>();
  std::fill(mask, mask + rows, uint8_t{1});
  size_t passing = rows;
  std::vector<uint32_t> selected;
  for (size_t i : node.order) {
    if (passing == 0) break;
    const Node& child = *node.children[i];
    // Copying the kept rows' strings costs about what a fast string kernel (LIKE's substring
    // search runs over the whole buffer) saves on the others at one row in ten (a substring
    // LIKE after a string-size condition that keeps ~13% of rows; figures in
    // bench/results/short-circuit-and-2026-11-29.md): compact below one in sixteen. Light
    // arguments too: copying a sixteenth of the rows of the numbers they read costs less than
    // running their comparisons over every row.
    if (passing > rows / 16) {
      ASSIGN_OR_RETURN(Operand value, EvaluateNode(child, input, rows));
      const uint8_t* values = value.column->Data<uint8_t>();
      if (value.is_constant) {
        if (values[0] == 0) std::fill(mask, mask + rows, uint8_t{0});
      } else {
        for (size_t r = 0; r < rows; ++r) mask[r] &= static_cast<uint8_t>(values[r] != 0);
      }
    } else {
      selected.resize(passing);
      SelectNonZero(mask, rows, passing, selected.data());
      Block compact = input;
      for (uint32_t c : node.columns[i]) {
        if (c >= input.columns.size() || input.columns[c] == nullptr) continue;  // reported there
        compact.columns[c] =
            std::make_shared<Column>(input.columns[c]->Take(selected.data(), selected.size()));
      }
      ASSIGN_OR_RETURN(Operand value, EvaluateNode(child, compact, selected.size()));
      const uint8_t* values = value.column->Data<uint8_t>();
      for (size_t j = 0; j < selected.size(); ++j) {
        if (values[value.is_constant ? 0 : j] == 0) mask[selected[j]] = 0;
      }
    }
    passing = CountNonZero(mask, rows);
  }
  return Operand{std::move(out), false};
}

}  // namespace

namespace {

// Notes in *column the one input column `expr` reads (-2 once it reads a second one, a lambda
// or a random function).
void FindSingleColumn(const plan::Expr& expr, int* column) {
  if (*column == -2) return;
  if (expr.is_column()) {
    if (!HasStringLayout(expr.type) || IsArray(expr.type) ||
        (*column >= 0 && *column != static_cast<int>(expr.column))) {
      *column = -2;
    } else {
      *column = static_cast<int>(expr.column);
    }
    return;
  }
  if (expr.is_lambda_parameter() || (expr.is_call() && (expr.IsCall("lambda") ||
                                                        IsRandom(expr.function)))) {
    *column = -2;
    return;
  }
  for (const plan::Expr& arg : expr.args) FindSingleColumn(arg, column);
}

}  // namespace

int DictionaryColumnOf(const plan::Expr& expr) {
  if (!expr.is_call()) return -1;
  int column = -1;
  FindSingleColumn(expr, &column);
  return column >= 0 ? column : -1;
}

Expression::Expression(std::unique_ptr<ExpressionNode> root) : root_(std::move(root)) {}
Expression::~Expression() = default;

absl::StatusOr<std::unique_ptr<Expression>> Expression::Compile(const plan::Expr& expr) {
  CompileContext context;
  uint32_t slots = 0;
  MeasureTree(expr, &context.parameter_base, &slots);
  context.width = context.parameter_base + slots;
  ASSIGN_OR_RETURN(std::unique_ptr<ExpressionNode> root, granite::core::Compile(expr, context));
  std::unique_ptr<Expression> compiled(new Expression(std::move(root)));
  // A call folded to a constant reads nothing.
  if (compiled->root_->kind == Node::Kind::kCall) {
    compiled->dictionary_column_ = DictionaryColumnOf(expr);
  }
  return compiled;
}

TypeId Expression::type() const { return root_->type; }

std::optional<Value> Expression::constant() const {
  if (root_->kind != Node::Kind::kConstant) return std::nullopt;
  return ValueAt(*root_->constant, 0);
}

absl::StatusOr<ColumnPtr> Expression::Evaluate(const Block& input) const {
  if (dictionary_column_ >= 0 && static_cast<size_t>(dictionary_column_) < input.columns.size()) {
    const Column& column = *input.columns[dictionary_column_];
    const DictionaryCodes* codes = column.dictionary_codes();
    if (codes != nullptr && !column.nullable() && codes->codes.size() == column.size()) {
      return EvaluateByDictionary(*codes, input.columns.size());
    }
  }
  ASSIGN_OR_RETURN(Operand result, EvaluateNode(*root_, input, input.rows()));
  if (result.is_constant) return Broadcast(*result.column, input.rows());
  return result.column;
}

absl::StatusOr<ColumnPtr> Expression::EvaluateByDictionary(const DictionaryCodes& codes,
                                                           size_t width) const {
  // Evaluates over the distinct values the rows use (not the whole dictionary: a value of
  // another block must not raise an error here), then spreads the results by code.
  const size_t rows = codes.codes.size();
  const uint32_t* row_codes = codes.codes.data();
  std::vector<uint32_t> slot(codes.dictionary->size(), UINT32_MAX);
  std::vector<uint32_t> used;
  std::vector<uint32_t> local(rows);
  for (size_t row = 0; row < rows; ++row) {
    uint32_t& s = slot[row_codes[row]];
    if (s == UINT32_MAX) {
      s = static_cast<uint32_t>(used.size());
      used.push_back(row_codes[row]);
    }
    local[row] = s;
  }
  auto values = std::make_shared<Column>(codes.dictionary->Take(used.data(), used.size()));
  Block distinct;
  distinct.columns.assign(width, values);  // only column dictionary_column_ is read
  ASSIGN_OR_RETURN(Operand result, EvaluateNode(*root_, distinct, used.size()));
  ColumnPtr per_value =
      result.is_constant ? Broadcast(*result.column, used.size()) : std::move(result.column);
  return std::make_shared<Column>(per_value->Take(local.data(), rows));
}

}  // namespace granite::core

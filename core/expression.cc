#include "core/expression.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"
#include "core/status_macros.h"

namespace granite::core {

// One node of the compiled tree.
struct ExpressionNode {
  enum class Kind { kColumn, kConstant, kCall };

  Kind kind = Kind::kConstant;
  TypeId type = TypeId::kUInt8;
  uint32_t column = 0;     // kColumn: index into the input block
  ColumnPtr constant;      // kConstant: one row
  std::string name;        // kCall: canonical function name
  std::unique_ptr<ScalarKernel> kernel;
  std::vector<std::unique_ptr<ExpressionNode>> children;
  // and(...) whose arguments are non-Nullable UInt8 and some of which read String or Array
  // columns (`heavy`): the light arguments run first over every row, then each heavy one only
  // over the rows still true once few are (EvaluateShortCircuitAnd). A filter such as
  // `counter_id = 62 AND url LIKE '%google%'` then matches strings on the few rows left.
  bool short_circuit = false;
  std::vector<size_t> order;                   // children in evaluation order
  std::vector<bool> heavy;                     // per child
  std::vector<std::vector<uint32_t>> columns;  // per child: the input columns it reads
};

namespace {

using Node = ExpressionNode;

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

absl::StatusOr<std::unique_ptr<Node>> Compile(const plan::Expr& expr);

// Adds the input columns `node` reads to `columns`; returns whether one is a String or an Array.
bool CollectColumns(const Node& node, std::vector<uint32_t>* columns) {
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
  if (std::none_of(node->heavy.begin(), node->heavy.end(), [](bool h) { return h; })) return;
  for (size_t i = 0; i < node->children.size(); ++i) {
    if (!node->heavy[i]) node->order.push_back(i);
  }
  for (size_t i = 0; i < node->children.size(); ++i) {
    if (node->heavy[i]) node->order.push_back(i);
  }
  node->short_circuit = true;
}

absl::StatusOr<std::unique_ptr<Node>> CompileCall(const plan::Expr& call) {
  const TypeId type = call.type;
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::kCall;
  node->type = type;
  std::vector<ArgumentInfo> infos;
  bool all_constant = true;
  for (const plan::Expr* arg : ArgumentsOf(call)) {
    ASSIGN_OR_RETURN(std::unique_ptr<Node> child, Compile(*arg));
    ArgumentInfo info{child->type, std::nullopt};
    if (child->kind == Node::Kind::kConstant) {
      info.constant = ValueAt(*child->constant, 0);
      info.constant_is_null = child->constant->IsNullAt(0);
    } else {
      all_constant = false;
    }
    infos.push_back(std::move(info));
    node->children.push_back(std::move(child));
  }
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
  const bool random = node->name == "rand" || node->name == "rand32" ||
                      node->name == "rand64" || node->name == "randCanonical" ||
                      node->name == "generateUUIDv4";
  if (!all_constant || random) {
    PlanShortCircuit(node.get());
    return node;
  }

  // Constant folding: evaluate once on the one-row constants.
  std::vector<Operand> operands;
  for (const auto& child : node->children) operands.push_back(Operand{child->constant, true});
  ASSIGN_OR_RETURN(ColumnPtr folded, node->kernel->Execute(operands, 1));
  auto constant = std::make_unique<Node>();
  constant->kind = Node::Kind::kConstant;
  constant->type = type;
  constant->constant = std::move(folded);
  return constant;
}

absl::StatusOr<std::unique_ptr<Node>> Compile(const plan::Expr& expr) {
  switch (expr.kind) {
    case plan::Expr::Kind::kColumn: {
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::kColumn;
      node->type = expr.type;
      node->column = expr.column;
      return node;
    }
    case plan::Expr::Kind::kLiteral: {
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::kConstant;
      node->type = expr.type;
      ASSIGN_OR_RETURN(node->constant, MakeConstantColumn(expr.literal, expr.type));
      return node;
    }
    case plan::Expr::Kind::kCall:
      break;
  }
  return CompileCall(expr);
}

absl::StatusOr<Operand> EvaluateShortCircuitAnd(const Node& node, const Block& input,
                                                size_t rows);

// Evaluates `node` over `rows` rows of `input` (input.rows(), or fewer for a short-circuit
// argument, whose block holds compacted copies of only the columns it reads).
absl::StatusOr<Operand> EvaluateNode(const Node& node, const Block& input, size_t rows) {
  switch (node.kind) {
    case Node::Kind::kConstant:
      return Operand{node.constant, true};
    case Node::Kind::kColumn: {
      if (node.column >= input.columns.size()) {
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
    case Node::Kind::kCall:
      break;
  }
  if (node.short_circuit) return EvaluateShortCircuitAnd(node, input, rows);
  std::vector<Operand> operands;
  operands.reserve(node.children.size());
  for (const auto& child : node.children) {
    ASSIGN_OR_RETURN(Operand operand, EvaluateNode(*child, input, rows));
    operands.push_back(std::move(operand));
  }
  ASSIGN_OR_RETURN(ColumnPtr result, node.kernel->Execute(operands, rows));
  if (result->size() != rows || result->type() != RemoveNullable(node.type)) {
    return Error(ErrorCode::kLogicalError,
                 absl::StrCat("Function ", node.name, " returned ", result->size(), " rows of ",
                              ToAbsl(TypeName(result->type())), " for ", rows, " rows of ",
                              ToAbsl(TypeName(node.type))));
  }
  return Operand{std::move(result), false};
}

absl::StatusOr<Operand> EvaluateShortCircuitAnd(const Node& node, const Block& input,
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
    // search runs over the whole buffer) saves on the others at one row in ten (ClickBench's
    // shapes, bench/results/short-circuit-and-2026-11-29.md): compact below one in sixteen.
    if (!node.heavy[i] || passing > rows / 16) {
      ASSIGN_OR_RETURN(Operand value, EvaluateNode(child, input, rows));
      const uint8_t* values = value.column->Data<uint8_t>();
      if (value.is_constant) {
        if (values[0] == 0) std::fill(mask, mask + rows, uint8_t{0});
      } else {
        for (size_t r = 0; r < rows; ++r) mask[r] &= static_cast<uint8_t>(values[r] != 0);
      }
    } else {
      selected.clear();
      for (size_t r = 0; r < rows; ++r) {
        if (mask[r] != 0) selected.push_back(static_cast<uint32_t>(r));
      }
      Block compact = input;
      for (uint32_t c : node.columns[i]) {
        if (c >= input.columns.size()) continue;  // EvaluateNode reports it
        compact.columns[c] =
            std::make_shared<Column>(input.columns[c]->Take(selected.data(), selected.size()));
      }
      ASSIGN_OR_RETURN(Operand value, EvaluateNode(child, compact, selected.size()));
      const uint8_t* values = value.column->Data<uint8_t>();
      for (size_t j = 0; j < selected.size(); ++j) {
        if (values[value.is_constant ? 0 : j] == 0) mask[selected[j]] = 0;
      }
    }
    passing = static_cast<size_t>(std::count(mask, mask + rows, uint8_t{1}));
  }
  return Operand{std::move(out), false};
}

}  // namespace

Expression::Expression(std::unique_ptr<ExpressionNode> root) : root_(std::move(root)) {}
Expression::~Expression() = default;

absl::StatusOr<std::unique_ptr<Expression>> Expression::Compile(const plan::Expr& expr) {
  ASSIGN_OR_RETURN(std::unique_ptr<ExpressionNode> root, granite::core::Compile(expr));
  return std::unique_ptr<Expression>(new Expression(std::move(root)));
}

TypeId Expression::type() const { return root_->type; }

std::optional<Value> Expression::constant() const {
  if (root_->kind != Node::Kind::kConstant) return std::nullopt;
  return ValueAt(*root_->constant, 0);
}

absl::StatusOr<ColumnPtr> Expression::Evaluate(const Block& input) const {
  ASSIGN_OR_RETURN(Operand result, EvaluateNode(*root_, input, input.rows()));
  if (result.is_constant) return Broadcast(*result.column, input.rows());
  return result.column;
}

}  // namespace granite::core

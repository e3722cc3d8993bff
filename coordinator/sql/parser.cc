// Statement half of the recursive-descent parser; expressions live in expression_parser.cc.
#include "coordinator/sql/parser.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "coordinator/sql/access_statement_parser.h"
#include "coordinator/sql/catalog_statement_parser.h"
#include "coordinator/sql/expression_parser.h"
#include "coordinator/sql/token_stream.h"

namespace granite::coordinator::sql {
namespace {

// ROLLUP(a, b): the sets (a, b), (a), ().
std::vector<std::vector<ExprPtr>> RollupSets(const std::vector<ExprPtr>& keys) {
  std::vector<std::vector<ExprPtr>> sets;
  for (size_t n = keys.size() + 1; n-- > 0;) sets.emplace_back(keys.begin(), keys.begin() + n);
  return sets;
}

// CUBE(a, b): every subset, from all keys down to none: (a, b), (a), (b), ().
std::vector<std::vector<ExprPtr>> CubeSets(const std::vector<ExprPtr>& keys) {
  std::vector<std::vector<ExprPtr>> sets;
  const size_t n = std::min<size_t>(keys.size(), 16);
  for (size_t count = n + 1; count-- > 0;) {
    for (uint32_t mask = (1u << n); mask-- > 0;) {
      if (static_cast<size_t>(__builtin_popcount(mask)) != count) continue;
      std::vector<ExprPtr> set;
      for (size_t k = 0; k < n; ++k) {
        if (mask & (1u << (n - 1 - k))) set.push_back(keys[k]);
      }
      sets.push_back(std::move(set));
    }
  }
  return sets;
}

// The keys of all grouping sets, each once, in first-appearance order.
std::vector<ExprPtr> DistinctKeys(const std::vector<std::vector<ExprPtr>>& sets) {
  std::vector<ExprPtr> keys;
  std::vector<std::string> names;
  for (const auto& set : sets) {
    for (const ExprPtr& key : set) {
      std::string name = ColumnName(*key);
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      names.push_back(std::move(name));
      keys.push_back(key);
    }
  }
  return keys;
}

constexpr char kStatementKeywords[] =
    "Expected one of: SELECT, INSERT, CREATE, DROP, SHOW, DESCRIBE, DESC, OPTIMIZE, KILL, ALTER, "
    "CHECK, SET, EXPLAIN, USE, EXISTS, TRUNCATE, RENAME";

// Returns the items of a key given as `(a, b)` or `tuple(a, b)`, or the key itself.
std::vector<ExprPtr> KeyColumns(ExprPtr key) {
  if (key->kind == ExprKind::kFunction && key->name == "tuple" && !key->distinct) {
    return key->args;
  }
  return {std::move(key)};
}

template <typename T>
absl::StatusOr<Statement> ToStatement(absl::StatusOr<T> parsed) {
  if (!parsed.ok()) return parsed.status();
  return absl::StatusOr<Statement>(absl::in_place, std::in_place_type<T>, std::move(*parsed));
}

// Parses statements; see ParseStatement in parser.h.
class StatementParser {
 public:
  explicit StatementParser(std::string_view sql)
      : sql_(sql), tokens_(sql), expressions_(&tokens_) {
    expressions_.set_subquery_parser([this]() -> absl::StatusOr<SelectPtr> {
      ASSIGN_OR_RETURN(SelectStatement select, ParseSelectQuery());
      return std::make_shared<SelectStatement>(std::move(select));
    });
  }

  absl::StatusOr<Statement> Parse();

 private:
  // Parses a SELECT with its set operators (UNION, INTERSECT, EXCEPT).
  absl::StatusOr<SelectStatement> ParseSelectQuery();
  // Parses one operand of a set operator: a SELECT or a parenthesized query.
  absl::StatusOr<SelectPtr> ParseSetOperand();
  absl::StatusOr<SelectStatement> ParseSelect();
  absl::Status ParseWith(SelectStatement* select);
  // Parses the joins after FROM's first table: `, t` and `[kind] JOIN t ON ... | USING ...`.
  absl::Status ParseJoins(SelectStatement* select);
  // Parses `[LEFT | INNER] ARRAY JOIN e [AS a], ...` clauses right after FROM's table.
  absl::Status ParseArrayJoins(SelectStatement* select);
  // Parses the kind and strictness words before JOIN; false if the next tokens start no join.
  absl::StatusOr<bool> ParseJoinHead(JoinClause* join);
  absl::Status ParseSelectItems(SelectStatement* select);
  absl::Status ParseOrderBy(SelectStatement* select);
  absl::Status ParseGroupBy(SelectStatement* select);
  absl::Status ParseGroupByModifiers(SelectStatement* select);
  absl::Status ParseLimit(SelectStatement* select);
  absl::StatusOr<TableRef> ParseTableRef();
  absl::StatusOr<CreateTableStatement> ParseCreate();
  // Parses one column declaration into create->columns. `type_optional`: the type may be left
  // out before CODEC / COMMENT / the end (ALTER TABLE ... MODIFY COLUMN).
  absl::Status ParseColumnDef(CreateTableStatement* create, bool type_optional = false);
  // DELETE FROM t WHERE cond (kept as an AlterSettingsStatement with delete_where).
  absl::StatusOr<Statement> ParseDelete();
  // Parses one ADD / DROP / RENAME / MODIFY / COMMENT COLUMN command of ALTER TABLE.
  absl::StatusOr<AlterColumnCommand> ParseAlterColumn();
  absl::Status ParseTableOptions(CreateTableStatement* create);
  absl::StatusOr<DropTableStatement> ParseDrop();
  absl::StatusOr<DescribeStatement> ParseDescribe();
  absl::StatusOr<InsertStatement> ParseInsert();
  absl::Status ParseValuesRows(InsertStatement* insert);
  absl::StatusOr<OptimizeStatement> ParseOptimize();
  absl::StatusOr<Statement> ParseAlter();
  absl::StatusOr<CheckTableStatement> ParseCheck();
  // Parses the 'name' of ATTACH PART / DROP DETACHED PART.
  absl::StatusOr<std::string> ParseStringLiteral(std::string_view what);
  absl::StatusOr<KillQueryStatement> ParseKill();
  absl::StatusOr<SetStatement> ParseSet();
  absl::StatusOr<ExplainStatement> ParseExplain();

  // Parses an identifier, bare or quoted; `what` names it in the error.
  absl::StatusOr<std::string> ParseName(std::string_view what = "identifier");
  // Parses [db.]name for DDL and INSERT, kept as written ("t", "db.t"); the executor resolves it
  // against the current database (coordinator/exec/database_resolver.h).
  absl::StatusOr<std::string> ParseTableName();
  absl::StatusOr<uint64_t> ParseUnsigned();
  absl::Status ParseSettings(std::map<std::string, std::string>* settings);
  // Parses an alias after AS, or a bare alias when the next word is not reserved.
  absl::StatusOr<std::string> ParseOptionalAlias();
  // Accepts an optional ';' and then requires the end of the query.
  absl::Status ExpectEnd(std::string_view expected);

  // CREATE VIEW after CREATE [OR REPLACE] VIEW.
  absl::StatusOr<CreateTableStatement> ParseCreateView(CreateTableStatement create);

  std::string_view sql_;
  TokenStream tokens_;
  ExpressionParser expressions_;
  std::string select_expected_;  // what could have continued the last SELECT parsed
};

absl::StatusOr<Statement> StatementParser::Parse() {
  const Token first = tokens_.Peek();
  if (first.kind == TokenKind::kEnd) return tokens_.Error("Empty query");
  if (first.Is("SELECT") || first.Is("WITH")) {
    ASSIGN_OR_RETURN(SelectStatement select, ParseSelectQuery());
    RETURN_IF_ERROR(ExpectEnd(select_expected_));
    return absl::StatusOr<Statement>(absl::in_place, std::in_place_type<SelectStatement>,
                                     std::move(select));
  }
  if (IsAccessStatement(tokens_)) return ParseAccessStatement(&tokens_);
  if (IsCatalogStatement(tokens_)) return ParseCatalogStatement(&tokens_);
  if (first.Is("CREATE")) return ToStatement(ParseCreate());
  if (first.Is("DROP")) return ToStatement(ParseDrop());
  if (first.Is("DESCRIBE") || first.Is("DESC")) return ToStatement(ParseDescribe());
  if (first.Is("INSERT")) return ToStatement(ParseInsert());
  if (first.Is("OPTIMIZE")) return ToStatement(ParseOptimize());
  if (first.Is("KILL")) return ToStatement(ParseKill());
  if (first.Is("ALTER")) return ParseAlter();
  if (first.Is("DELETE")) return ParseDelete();
  if (first.Is("CHECK")) return ToStatement(ParseCheck());
  if (first.Is("SET")) return ToStatement(ParseSet());
  if (first.Is("EXPLAIN")) return ToStatement(ParseExplain());
  return tokens_.Error(kStatementKeywords);
}

absl::Status StatementParser::ExpectEnd(std::string_view expected) {
  const bool semicolon = tokens_.TakeSymbol(";");
  if (tokens_.Peek().kind == TokenKind::kEnd) return absl::OkStatus();
  if (semicolon) return tokens_.Error("Expected end of query (multi-statements are not allowed)");
  return tokens_.Error(expected);
}

absl::StatusOr<std::string> StatementParser::ParseName(std::string_view what) {
  const Token token = tokens_.Peek();
  if (token.kind == TokenKind::kBareWord) return std::string(tokens_.Take().text);
  if (token.kind == TokenKind::kQuotedIdentifier) return Unquote(tokens_.Take().text);
  return tokens_.Error(absl::StrCat("Expected ", core::ToAbsl(what)));
}

absl::StatusOr<std::string> StatementParser::ParseTableName() {
  ASSIGN_OR_RETURN(std::string name, ParseName("table name"));
  if (!tokens_.TakeSymbol(".")) return name;
  ASSIGN_OR_RETURN(std::string table, ParseName("table name"));
  return absl::StrCat(name, ".", table);
}

absl::StatusOr<uint64_t> StatementParser::ParseUnsigned() {
  const Token token = tokens_.Peek();
  if (token.kind == TokenKind::kNumber) {
    ASSIGN_OR_RETURN(ExprPtr literal, expressions_.ParseNumber(token, false, token.position));
    if (const auto* value = std::get_if<uint64_t>(&literal->value)) {
      tokens_.Take();
      return *value;
    }
  }
  return tokens_.Error("Expected unsigned integer");
}

absl::Status StatementParser::ParseSettings(std::map<std::string, std::string>* settings) {
  do {
    ASSIGN_OR_RETURN(std::string name, ParseName("setting name"));
    RETURN_IF_ERROR(tokens_.ExpectSymbol("="));
    const Token token = tokens_.Peek();
    std::string value;
    if (token.IsSymbol("-") && tokens_.Peek(1).kind == TokenKind::kNumber) {
      tokens_.Take();
      value = absl::StrCat("-", core::ToAbsl(tokens_.Take().text));
    } else if (token.kind == TokenKind::kNumber || token.kind == TokenKind::kBareWord) {
      value = std::string(tokens_.Take().text);
      if (token.Is("TRUE")) value = "1";
      if (token.Is("FALSE")) value = "0";
    } else if (token.kind == TokenKind::kString) {
      value = Unquote(tokens_.Take().text);
    } else {
      return tokens_.Error("Expected setting value (number, string or identifier)");
    }
    (*settings)[std::move(name)] = std::move(value);
  } while (tokens_.TakeSymbol(","));
  return absl::OkStatus();
}

absl::StatusOr<std::string> StatementParser::ParseOptionalAlias() {
  if (tokens_.TakeKeyword("AS")) return ParseName("alias");
  const Token token = tokens_.Peek();
  if (token.kind == TokenKind::kQuotedIdentifier ||
      (token.kind == TokenKind::kBareWord && !IsReservedWord(token.text))) {
    return ParseName("alias");
  }
  return std::string();
}

absl::StatusOr<SelectStatement> StatementParser::ParseSelectQuery() {
  ASSIGN_OR_RETURN(SelectStatement first, ParseSelect());
  while (true) {
    const Token token = tokens_.Peek();
    SetOperator op;
    if (token.Is("UNION")) {
      tokens_.Take();
      if (tokens_.TakeKeyword("DISTINCT")) {
        op = SetOperator::kUnionDistinct;
      } else {
        // ClickHouse's default union_default_mode is empty: a bare UNION is an error there.
        if (!tokens_.TakeKeyword("ALL")) {
          return core::Error(core::ErrorCode::kExpectedAllOrDistinct,
                             "Expected ALL or DISTINCT after UNION (at position " +
                                 std::to_string(token.position + 1) +
                                 "): write UNION ALL to keep duplicate rows or UNION DISTINCT "
                                 "to remove them");
        }
        op = SetOperator::kUnionAll;
      }
    } else if (token.Is("INTERSECT") || token.Is("EXCEPT")) {
      tokens_.Take();
      const bool distinct = tokens_.TakeKeyword("DISTINCT");
      if (!distinct) tokens_.TakeKeyword("ALL");
      op = token.Is("INTERSECT") ? (distinct ? SetOperator::kIntersectDistinct : SetOperator::kIntersect)
                                 : (distinct ? SetOperator::kExceptDistinct : SetOperator::kExcept);
    } else {
      break;
    }
    ASSIGN_OR_RETURN(SelectPtr operand, ParseSetOperand());
    first.set_operands.emplace_back(op, std::move(operand));
  }
  if (!first.set_operands.empty()) {
    // FORMAT and SETTINGS written after the last operand belong to the whole query.
    SelectStatement& last = *first.set_operands.back().second;
    if (first.format.empty()) first.format = std::move(last.format);
    last.format.clear();
    for (auto& [name, value] : last.settings) first.settings[name] = value;
  }
  return first;
}

absl::StatusOr<SelectPtr> StatementParser::ParseSetOperand() {
  if (tokens_.TakeSymbol("(")) {
    ASSIGN_OR_RETURN(SelectStatement inner, ParseSelectQuery());
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
    return std::make_shared<SelectStatement>(std::move(inner));
  }
  ASSIGN_OR_RETURN(SelectStatement operand, ParseSelect());
  return std::make_shared<SelectStatement>(std::move(operand));
}

absl::Status StatementParser::ParseWith(SelectStatement* select) {
  do {
    WithItem item;
    const Token name = tokens_.Peek();
    if ((name.kind == TokenKind::kBareWord || name.kind == TokenKind::kQuotedIdentifier) &&
        tokens_.Peek(1).Is("AS") && tokens_.Peek(2).IsSymbol("(") &&
        (tokens_.Peek(3).Is("SELECT") || tokens_.Peek(3).Is("WITH") ||
         tokens_.Peek(3).IsSymbol("("))) {
      ASSIGN_OR_RETURN(item.name, ParseName("name"));
      tokens_.Take();  // AS
      tokens_.Take();  // (
      ASSIGN_OR_RETURN(SelectStatement inner, ParseSelectQuery());
      RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
      item.subquery = std::make_shared<SelectStatement>(std::move(inner));
    } else {
      ASSIGN_OR_RETURN(item.expr, expressions_.Parse());
      RETURN_IF_ERROR(tokens_.ExpectKeyword("AS"));
      ASSIGN_OR_RETURN(item.name, ParseName("alias"));
      item.expr->alias = item.name;
    }
    select->with.push_back(std::move(item));
  } while (tokens_.TakeSymbol(","));
  return absl::OkStatus();
}

absl::StatusOr<bool> StatementParser::ParseJoinHead(JoinClause* join) {
  // Up to four words before JOIN, in ClickHouse's orders: [GLOBAL|LOCAL] [ANY|ALL|SEMI|ANTI]
  // [INNER|LEFT|RIGHT|FULL|CROSS] [OUTER] [ANY|ALL|SEMI|ANTI] JOIN.
  size_t ahead = 0;
  // ARRAY JOIN after a join: the rewrite (exec/array_join.h) folds FROM's table and its ARRAY
  // JOINs into one subquery, so they must come first.
  const size_t array_at = tokens_.Peek().Is("LEFT") || tokens_.Peek().Is("INNER") ? 1 : 0;
  if (tokens_.Peek(array_at).Is("ARRAY") && tokens_.Peek(array_at + 1).Is("JOIN")) {
    return core::Error(core::ErrorCode::kNotImplemented,
                       "ARRAY JOIN after a JOIN (position " +
                           std::to_string(tokens_.Peek().position + 1) +
                           ") is not supported yet: write it right after FROM's table");
  }
  while (ahead < 5 && !tokens_.Peek(ahead).Is("JOIN")) {
    const Token word = tokens_.Peek(ahead);
    static constexpr std::string_view kWords[] = {"GLOBAL", "LOCAL", "ANY",  "ALL",   "SEMI",
                                                  "ANTI",   "INNER", "LEFT", "RIGHT", "FULL",
                                                  "CROSS",  "OUTER", "ASOF"};
    bool known = false;
    for (std::string_view w : kWords) known = known || word.Is(w);
    if (!known) return false;
    ++ahead;
  }
  if (!tokens_.Peek(ahead).Is("JOIN")) return false;
  join->position = tokens_.Peek().position;
  bool right_side = false;
  for (size_t i = 0; i < ahead; ++i) {
    const Token word = tokens_.Take();
    if (word.Is("LEFT")) join->kind = JoinKind::kLeft;
    if (word.Is("RIGHT")) join->kind = JoinKind::kRight, right_side = true;
    if (word.Is("FULL")) join->kind = JoinKind::kFull;
    if (word.Is("CROSS")) join->kind = JoinKind::kCross;
    if (word.Is("ANY")) join->strictness = JoinStrictness::kAny;
    if (word.Is("SEMI")) join->strictness = JoinStrictness::kSemi;
    if (word.Is("ANTI")) join->strictness = JoinStrictness::kAnti;
    if (word.Is("ASOF")) {
      return tokens_.ErrorAt(word, "ASOF JOIN is not supported");
    }
  }
  tokens_.Take();  // JOIN
  const bool semi_or_anti = join->strictness == JoinStrictness::kSemi ||
                            join->strictness == JoinStrictness::kAnti;
  if (semi_or_anti && join->kind != JoinKind::kLeft && !right_side) {
    return tokens_.Error("SEMI and ANTI joins need LEFT or RIGHT");
  }
  return true;
}

absl::Status StatementParser::ParseArrayJoins(SelectStatement* select) {
  while (true) {
    const size_t array_at = tokens_.Peek().Is("LEFT") || tokens_.Peek().Is("INNER") ? 1 : 0;
    if (!tokens_.Peek(array_at).Is("ARRAY") || !tokens_.Peek(array_at + 1).Is("JOIN")) {
      return absl::OkStatus();
    }
    ArrayJoinClause clause;
    clause.position = tokens_.Peek().position;
    clause.left = tokens_.Peek().Is("LEFT");
    for (size_t i = 0; i < array_at + 2; ++i) tokens_.Take();
    do {
      ASSIGN_OR_RETURN(ExprPtr array, expressions_.Parse());
      ASSIGN_OR_RETURN(array->alias, ParseOptionalAlias());
      clause.arrays.push_back(std::move(array));
    } while (tokens_.TakeSymbol(","));
    select->array_joins.push_back(std::move(clause));
  }
}

absl::Status StatementParser::ParseJoins(SelectStatement* select) {
  while (true) {
    JoinClause join;
    if (tokens_.Peek().IsSymbol(",")) {
      join.position = tokens_.Take().position;
      join.comma = true;
      join.kind = JoinKind::kCross;
      ASSIGN_OR_RETURN(join.table, ParseTableRef());
      select->joins.push_back(std::move(join));
      continue;
    }
    ASSIGN_OR_RETURN(bool is_join, ParseJoinHead(&join));
    if (!is_join) return absl::OkStatus();
    ASSIGN_OR_RETURN(join.table, ParseTableRef());
    if (join.kind != JoinKind::kCross) {
      if (tokens_.TakeKeyword("ON")) {
        ASSIGN_OR_RETURN(join.on, expressions_.Parse());
      } else if (tokens_.TakeKeyword("USING")) {
        const bool parenthesized = tokens_.TakeSymbol("(");
        do {
          ASSIGN_OR_RETURN(std::string column, ParseName("column name"));
          join.using_columns.push_back(std::move(column));
        } while (tokens_.TakeSymbol(","));
        if (parenthesized) RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
      } else {
        return tokens_.Error("Expected one of: ON, USING");
      }
    }
    select->joins.push_back(std::move(join));
  }
}

absl::StatusOr<SelectStatement> StatementParser::ParseSelect() {
  SelectStatement select;
  if (tokens_.TakeKeyword("WITH")) RETURN_IF_ERROR(ParseWith(&select));
  RETURN_IF_ERROR(tokens_.ExpectKeyword("SELECT"));
  select.distinct = tokens_.TakeKeyword("DISTINCT");
  if (!select.distinct) tokens_.TakeKeyword("ALL");
  RETURN_IF_ERROR(ParseSelectItems(&select));
  // Clauses in their fixed order; `expected` lists those that may still follow.
  static constexpr std::string_view kClauses[] = {
      "FROM",     "WHERE",    "GROUP BY", "WITH",   "HAVING", "WINDOW",  "QUALIFY",
      "ORDER BY", "LIMIT",    "OFFSET",   "SETTINGS", "FORMAT"};
  size_t next_clause = 0;
  auto done = [&next_clause](size_t clause) { next_clause = clause + 1; };
  if (tokens_.TakeKeyword("FROM")) {
    ASSIGN_OR_RETURN(select.from, ParseTableRef());
    RETURN_IF_ERROR(ParseArrayJoins(&select));
    RETURN_IF_ERROR(ParseJoins(&select));
    done(0);
  }
  if (tokens_.TakeKeyword("WHERE")) {
    ASSIGN_OR_RETURN(select.where, expressions_.Parse());
    done(1);
  }
  if (tokens_.Peek().Is("GROUP")) {
    RETURN_IF_ERROR(ParseGroupBy(&select));
    done(2);
  }
  if (tokens_.Peek().Is("WITH")) {
    RETURN_IF_ERROR(ParseGroupByModifiers(&select));
    done(3);
  }
  if (tokens_.TakeKeyword("HAVING")) {
    ASSIGN_OR_RETURN(select.having, expressions_.Parse());
    done(4);
  }
  if (tokens_.TakeKeyword("WINDOW")) {
    do {
      ASSIGN_OR_RETURN(std::string name, ParseName("window name"));
      RETURN_IF_ERROR(tokens_.ExpectKeyword("AS"));
      WindowSpec spec;
      if (!tokens_.Peek().IsSymbol("(")) return tokens_.Error("Expected window definition");
      RETURN_IF_ERROR(expressions_.ParseWindowSpec(&spec));
      select.windows.emplace_back(std::move(name), std::move(spec));
    } while (tokens_.TakeSymbol(","));
    done(5);
  }
  if (tokens_.TakeKeyword("QUALIFY")) {
    ASSIGN_OR_RETURN(select.qualify, expressions_.Parse());
    done(6);
  }
  if (tokens_.Peek().Is("ORDER")) {
    RETURN_IF_ERROR(ParseOrderBy(&select));
    done(7);
  }
  if (tokens_.Peek().Is("LIMIT") || tokens_.Peek().Is("OFFSET")) {
    RETURN_IF_ERROR(ParseLimit(&select));
    done(9);
  }
  bool has_settings = false;
  if (tokens_.TakeKeyword("SETTINGS")) {
    RETURN_IF_ERROR(ParseSettings(&select.settings));
    has_settings = true;
    done(10);
  }
  if (tokens_.TakeKeyword("FORMAT")) {
    ASSIGN_OR_RETURN(select.format, ParseName("format name"));
    done(11);
    if (!has_settings && tokens_.TakeKeyword("SETTINGS")) {
      RETURN_IF_ERROR(ParseSettings(&select.settings));
    }
  }
  select_expected_ = "Expected one of: ";
  for (size_t i = next_clause; i < std::size(kClauses); ++i) {
    absl::StrAppend(&select_expected_, core::ToAbsl(kClauses[i]), ", ");
  }
  absl::StrAppend(&select_expected_, "';', end of query");
  return select;
}

absl::Status StatementParser::ParseSelectItems(SelectStatement* select) {
  do {
    const Token token = tokens_.Peek();
    if (token.IsSymbol("*")) {
      tokens_.Take();
      auto star = std::make_shared<Expr>();
      star->kind = ExprKind::kStar;
      star->position = token.position;
      select->select.push_back(std::move(star));
      continue;
    }
    const Token next = tokens_.Peek(1);
    if ((token.kind == TokenKind::kBareWord || token.kind == TokenKind::kQuotedIdentifier) &&
        next.IsSymbol(".") && tokens_.Peek(2).IsSymbol("*")) {
      // t.*: every column of the relation named t.
      ASSIGN_OR_RETURN(std::string qualifier, ParseName("table name"));
      tokens_.Take();  // .
      tokens_.Take();  // *
      auto star = std::make_shared<Expr>();
      star->kind = ExprKind::kStar;
      star->qualifier = std::move(qualifier);
      star->position = token.position;
      select->select.push_back(std::move(star));
      continue;
    }
    ASSIGN_OR_RETURN(ExprPtr item, expressions_.Parse());
    ASSIGN_OR_RETURN(item->alias, ParseOptionalAlias());
    select->select.push_back(std::move(item));
  } while (tokens_.TakeSymbol(","));
  return absl::OkStatus();
}

absl::Status StatementParser::ParseOrderBy(SelectStatement* select) {
  tokens_.Take();  // ORDER
  RETURN_IF_ERROR(tokens_.ExpectKeyword("BY"));
  if (tokens_.Peek().Is("ALL") && !tokens_.Peek(1).IsSymbol("(")) {
    tokens_.Take();
    select->order_by_all = true;
    select->order_by_all_descending = tokens_.TakeKeyword("DESC") || tokens_.TakeKeyword("DESCENDING");
    if (!select->order_by_all_descending && !tokens_.TakeKeyword("ASC")) {
      tokens_.TakeKeyword("ASCENDING");
    }
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(expressions_.ParseOrderItems(&select->order_by, /*allow_fill=*/true));
  if (!tokens_.TakeKeyword("INTERPOLATE")) return absl::OkStatus();
  select->interpolate.emplace();
  if (!tokens_.TakeSymbol("(")) return absl::OkStatus();
  if (tokens_.TakeSymbol(")")) return absl::OkStatus();
  do {
    const Token name = tokens_.Take();
    if (name.kind != TokenKind::kBareWord && name.kind != TokenKind::kQuotedIdentifier) {
      return tokens_.ErrorAt(name, "Expected a column name in INTERPOLATE");
    }
    InterpolateItem item;
    item.column = name.kind == TokenKind::kQuotedIdentifier ? Unquote(name.text)
                                                           : std::string(name.text);
    item.position = name.position;
    if (tokens_.TakeKeyword("AS")) {
      ASSIGN_OR_RETURN(item.expr, expressions_.Parse());
    }
    select->interpolate->push_back(std::move(item));
  } while (tokens_.TakeSymbol(","));
  return tokens_.ExpectSymbol(")");
}

// GROUP BY keys | ROLLUP(keys) | CUBE(keys) | GROUPING SETS ((keys), key, ()).
absl::Status StatementParser::ParseGroupBy(SelectStatement* select) {
  tokens_.Take();  // GROUP
  RETURN_IF_ERROR(tokens_.ExpectKeyword("BY"));
  if (tokens_.Peek().Is("GROUPING") && tokens_.Peek(1).Is("SETS")) {
    tokens_.Take();
    tokens_.Take();
    RETURN_IF_ERROR(tokens_.ExpectSymbol("("));
    ASSIGN_OR_RETURN(std::vector<ExprPtr> sets, expressions_.ParseList());
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
    select->grouping_sets_written = true;
    for (const ExprPtr& set : sets) {
      const bool tuple = set->kind == ExprKind::kFunction && set->name == "tuple" && !set->over;
      select->grouping_sets.push_back(tuple ? set->args : std::vector<ExprPtr>{set});
    }
    select->group_by = DistinctKeys(select->grouping_sets);
    return absl::OkStatus();
  }
  if (tokens_.TakeKeyword("ALL")) {
    select->group_by_all = true;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(select->group_by, expressions_.ParseList());
  if (select->group_by.size() == 1 && select->group_by[0]->kind == ExprKind::kFunction &&
      !select->group_by[0]->over) {
    const std::string name = absl::AsciiStrToLower(select->group_by[0]->name);
    if (name == "rollup" || name == "cube") {
      std::vector<ExprPtr> keys = select->group_by[0]->args;
      select->group_by = keys;
      select->grouping_sets_written = true;
      select->grouping_sets = name == "rollup" ? RollupSets(keys) : CubeSets(keys);
    }
  }
  return absl::OkStatus();
}

// WITH ROLLUP | WITH CUBE | WITH TOTALS after GROUP BY (ROLLUP/CUBE only with plain keys).
absl::Status StatementParser::ParseGroupByModifiers(SelectStatement* select) {
  while (tokens_.Peek().Is("WITH")) {
    const Token with = tokens_.Take();
    if (tokens_.TakeKeyword("TOTALS")) {
      select->with_totals = true;
      continue;
    }
    const bool rollup = tokens_.Peek().Is("ROLLUP");
    if (!rollup && !tokens_.Peek().Is("CUBE")) {
      return tokens_.Error("Expected one of: ROLLUP, CUBE, TOTALS");
    }
    tokens_.Take();
    if (select->group_by.empty() || select->grouping_sets_written) {
      return tokens_.ErrorAt(with, "WITH ROLLUP / CUBE needs plain GROUP BY keys");
    }
    select->grouping_sets_written = true;
    select->grouping_sets = rollup ? RollupSets(select->group_by) : CubeSets(select->group_by);
  }
  return absl::OkStatus();
}

// LIMIT n [OFFSET m] BY exprs | LIMIT m, n BY exprs, then optionally the plain LIMIT / OFFSET:
// LIMIT n [OFFSET m] | LIMIT m, n | OFFSET m [ROW|ROWS].
absl::Status StatementParser::ParseLimit(SelectStatement* select) {
  for (int round = 0; round < 2; ++round) {
    std::optional<uint64_t> limit;
    std::optional<uint64_t> offset;
    if (tokens_.TakeKeyword("LIMIT")) {
      ASSIGN_OR_RETURN(uint64_t first, ParseUnsigned());
      if (tokens_.TakeSymbol(",")) {
        offset = first;
        ASSIGN_OR_RETURN(limit, ParseUnsigned());
      } else {
        limit = first;
      }
    }
    if (!offset && tokens_.TakeKeyword("OFFSET")) {
      ASSIGN_OR_RETURN(offset, ParseUnsigned());
      if (!tokens_.TakeKeyword("ROWS")) tokens_.TakeKeyword("ROW");
    }
    if (round == 0 && limit && tokens_.Peek().Is("BY")) {
      tokens_.Take();
      ASSIGN_OR_RETURN(select->limit_by, expressions_.ParseList());
      select->limit_by_limit = *limit;
      select->limit_by_offset = offset.value_or(0);
      if (!tokens_.Peek().Is("LIMIT") && !tokens_.Peek().Is("OFFSET")) break;
      continue;
    }
    select->limit = limit;
    select->offset = offset;
    break;
  }
  return absl::OkStatus();
}

absl::StatusOr<TableRef> StatementParser::ParseTableRef() {
  TableRef table;
  table.position = tokens_.Peek().position;
  if (tokens_.Peek().IsSymbol("(")) {
    tokens_.Take();
    ASSIGN_OR_RETURN(SelectStatement inner, ParseSelectQuery());
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
    table.subquery = std::make_shared<SelectStatement>(std::move(inner));
    ASSIGN_OR_RETURN(table.alias, ParseOptionalAlias());
    return table;
  }
  if (tokens_.Peek().kind == TokenKind::kBareWord && IsReservedWord(tokens_.Peek().text) &&
      !tokens_.Peek(1).IsSymbol("(")) {
    return tokens_.Error("Expected table name or table function");
  }
  ASSIGN_OR_RETURN(table.name, ParseName("table name or table function"));
  if (tokens_.TakeSymbol(".")) {
    table.database = std::move(table.name);
    ASSIGN_OR_RETURN(table.name, ParseName("table name"));
  }
  if (table.database.empty() && tokens_.TakeSymbol("(")) {
    table.is_function = true;
    if (!tokens_.Peek().IsSymbol(")")) {
      ASSIGN_OR_RETURN(table.args, expressions_.ParseList());
    }
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  }
  ASSIGN_OR_RETURN(table.alias, ParseOptionalAlias());
  return table;
}

absl::StatusOr<CreateTableStatement> StatementParser::ParseCreate() {
  CreateTableStatement create;
  tokens_.Take();  // CREATE
  if (tokens_.TakeKeyword("OR")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("REPLACE"));
    create.or_replace = true;
  }
  if (tokens_.TakeKeyword("VIEW")) return ParseCreateView(std::move(create));
  if (!tokens_.Peek().Is("TABLE")) return tokens_.Error("Expected one of: TABLE, VIEW");
  tokens_.Take();
  if (tokens_.TakeKeyword("IF")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("NOT"));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
    create.if_not_exists = true;
  }
  ASSIGN_OR_RETURN(create.name, ParseTableName());
  RETURN_IF_ERROR(tokens_.ExpectSymbol("("));
  do {
    if (tokens_.Peek().Is("PRIMARY") && tokens_.Peek(1).Is("KEY")) {
      tokens_.Take();
      tokens_.Take();
      ASSIGN_OR_RETURN(ExprPtr key, expressions_.Parse());
      create.primary_key = KeyColumns(std::move(key));
    } else {
      RETURN_IF_ERROR(ParseColumnDef(&create));
    }
  } while (tokens_.TakeSymbol(","));
  RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  RETURN_IF_ERROR(ParseTableOptions(&create));
  RETURN_IF_ERROR(ExpectEnd(
      "Expected one of: ENGINE, PARTITION BY, ORDER BY, PRIMARY KEY, SETTINGS, ';', end of query"));
  return create;
}

absl::StatusOr<CreateTableStatement> StatementParser::ParseCreateView(
    CreateTableStatement create) {
  if (tokens_.TakeKeyword("IF")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("NOT"));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
    create.if_not_exists = true;
  }
  ASSIGN_OR_RETURN(create.name, ParseTableName());
  if (tokens_.TakeSymbol("(")) {
    do {
      ASSIGN_OR_RETURN(std::string column, ParseName("column name"));
      create.view_columns.push_back(std::move(column));
    } while (tokens_.TakeSymbol(","));
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  }
  RETURN_IF_ERROR(tokens_.ExpectKeyword("AS"));
  const size_t begin = tokens_.Peek().position;
  if (!tokens_.Peek().Is("SELECT") && !tokens_.Peek().Is("WITH")) {
    return tokens_.Error("Expected SELECT");
  }
  ASSIGN_OR_RETURN(SelectStatement select, ParseSelectQuery());
  const size_t end = std::min(tokens_.Peek().position, sql_.size());
  create.view_query = std::string(sql_.substr(begin, end - begin));
  while (!create.view_query.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(create.view_query.back()))) {
    create.view_query.pop_back();
  }
  create.view = std::make_shared<SelectStatement>(std::move(select));
  RETURN_IF_ERROR(ExpectEnd(select_expected_));
  return create;
}

absl::Status StatementParser::ParseColumnDef(CreateTableStatement* create, bool type_optional) {
  ColumnDef column;
  column.position = tokens_.Peek().position;
  ASSIGN_OR_RETURN(column.name, ParseName("column name or PRIMARY KEY"));
  const Token first = tokens_.Peek();
  const bool no_type =
      first.Is("DEFAULT") || first.Is("MATERIALIZED") || first.Is("ALIAS") ||
      (type_optional && (first.Is("CODEC") || first.Is("COMMENT") || first.Is("TTL") ||
                         first.kind == TokenKind::kEnd || first.IsSymbol(",") ||
                         first.IsSymbol(";")));
  if (!no_type) {
    ASSIGN_OR_RETURN(column.type, expressions_.ParseTypeText());
  }
  while (true) {
    const Token token = tokens_.Peek();
    if (token.Is("NOT") && tokens_.Peek(1).Is("NULL")) {
      tokens_.Take();
      tokens_.Take();
      column.not_null = true;
    } else if (token.Is("NULL")) {
      tokens_.Take();
      column.nullable = true;
    } else if (token.Is("CODEC") && tokens_.Peek(1).IsSymbol("(")) {
      // Kept as written; the DDL executor validates it (core/codec_spec.h).
      tokens_.Take();
      tokens_.Take();
      const size_t begin = tokens_.Peek().position;
      int depth = 1;
      while (depth > 0) {
        const Token inner = tokens_.Peek();
        if (inner.kind == TokenKind::kEnd) return tokens_.Error("Expected ) closing CODEC(");
        if (inner.IsSymbol("(")) ++depth;
        if (inner.IsSymbol(")") && --depth == 0) break;
        tokens_.Take();
      }
      const size_t end = std::min(tokens_.Peek().position, sql_.size());
      column.codec =
          std::string(absl::StripAsciiWhitespace(core::ToAbsl(sql_.substr(begin, end - begin))));
      column.codec_position = begin;
      tokens_.Take();
    } else if ((token.Is("DEFAULT") || token.Is("MATERIALIZED") || token.Is("ALIAS")) &&
               column.default_kind.empty()) {
      tokens_.Take();
      column.default_kind = absl::AsciiStrToUpper(core::ToAbsl(token.text));
      const size_t begin = tokens_.Peek().position;
      ASSIGN_OR_RETURN(column.default_expr, expressions_.Parse());
      const size_t end = std::min(tokens_.Peek().position, sql_.size());
      column.default_text =
          std::string(absl::StripAsciiWhitespace(core::ToAbsl(sql_.substr(begin, end - begin))));
    } else if (token.Is("EPHEMERAL") || token.Is("TTL")) {
      // Accepted for compatibility and ignored.
      tokens_.Take();
      RETURN_IF_ERROR(expressions_.Parse().status());
    } else if (token.Is("COMMENT") && tokens_.Peek(1).kind == TokenKind::kString) {
      tokens_.Take();
      column.comment = Unquote(tokens_.Take().text);
    } else {
      break;
    }
  }
  create->columns.push_back(std::move(column));
  return absl::OkStatus();
}

absl::Status StatementParser::ParseTableOptions(CreateTableStatement* create) {
  while (true) {
    const Token token = tokens_.Peek();
    if (token.Is("ENGINE")) {
      tokens_.Take();
      tokens_.TakeSymbol("=");
      ASSIGN_OR_RETURN(create->engine, ParseName("engine name"));
      if (tokens_.TakeSymbol("(")) {
        if (!tokens_.Peek().IsSymbol(")")) RETURN_IF_ERROR(expressions_.ParseList().status());
        RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
      }
    } else if (token.Is("PARTITION") || token.Is("ORDER") || token.Is("PRIMARY") ||
               token.Is("SAMPLE")) {
      tokens_.Take();
      RETURN_IF_ERROR(tokens_.ExpectKeyword(token.Is("PRIMARY") ? "KEY" : "BY"));
      ASSIGN_OR_RETURN(ExprPtr key, expressions_.Parse());
      if (token.Is("PARTITION")) create->partition_by = std::move(key);
      if (token.Is("ORDER")) create->order_by = KeyColumns(std::move(key));
      if (token.Is("PRIMARY")) create->primary_key = KeyColumns(std::move(key));
    } else if (token.Is("SETTINGS")) {
      tokens_.Take();
      RETURN_IF_ERROR(ParseSettings(&create->settings));
    } else if (token.Is("COMMENT") && tokens_.Peek(1).kind == TokenKind::kString) {
      tokens_.Take();
      tokens_.Take();
    } else {
      return absl::OkStatus();
    }
  }
}

absl::StatusOr<DropTableStatement> StatementParser::ParseDrop() {
  DropTableStatement drop;
  tokens_.Take();  // DROP
  drop.view = tokens_.TakeKeyword("VIEW");
  if (!drop.view) RETURN_IF_ERROR(tokens_.ExpectKeyword("TABLE"));
  if (tokens_.TakeKeyword("IF")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
    drop.if_exists = true;
  }
  ASSIGN_OR_RETURN(drop.name, ParseTableName());
  tokens_.TakeKeyword("SYNC");
  RETURN_IF_ERROR(ExpectEnd("Expected one of: SYNC, ';', end of query"));
  return drop;
}

absl::StatusOr<DescribeStatement> StatementParser::ParseDescribe() {
  DescribeStatement describe;
  tokens_.Take();  // DESCRIBE or DESC
  tokens_.TakeKeyword("TABLE");
  ASSIGN_OR_RETURN(describe.table, ParseTableName());
  if (tokens_.TakeKeyword("FORMAT")) {
    ASSIGN_OR_RETURN(describe.format, ParseName("format name"));
  }
  RETURN_IF_ERROR(ExpectEnd("Expected one of: FORMAT, ';', end of query"));
  return describe;
}

absl::StatusOr<InsertStatement> StatementParser::ParseInsert() {
  InsertStatement insert;
  tokens_.Take();  // INSERT
  RETURN_IF_ERROR(tokens_.ExpectKeyword("INTO"));
  tokens_.TakeKeyword("TABLE");
  ASSIGN_OR_RETURN(insert.table, ParseTableName());
  if (tokens_.TakeSymbol("(")) {
    do {
      ASSIGN_OR_RETURN(std::string column, ParseName("column name"));
      insert.columns.push_back(std::move(column));
    } while (tokens_.TakeSymbol(","));
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
  }
  if (tokens_.TakeKeyword("VALUES")) {
    insert.format = "Values";
    RETURN_IF_ERROR(ParseValuesRows(&insert));
    RETURN_IF_ERROR(ExpectEnd("Expected one of: '(', ';', end of query"));
    return insert;
  }
  if (tokens_.TakeKeyword("FORMAT")) {
    // Nothing after the format name has been read: the lexer must not see the data.
    const Token name = tokens_.Peek();
    ASSIGN_OR_RETURN(insert.format, ParseName("format name"));
    if (absl::AsciiStrToLower(insert.format) == "values") {
      insert.format = "Values";
      RETURN_IF_ERROR(ParseValuesRows(&insert));
      RETURN_IF_ERROR(ExpectEnd("Expected one of: '(', ';', end of query"));
      return insert;
    }
    const std::string_view query = tokens_.query();
    size_t data = name.end();
    if (data < query.size() && (query[data] == ' ' || query[data] == '\t' ||
                                query[data] == '\n' || query[data] == '\r')) {
      data += query.compare(data, 2, "\r\n") == 0 ? 2 : 1;
    }
    insert.inline_data = std::string(query.substr(data));
    return insert;
  }
  if (tokens_.Peek().Is("SELECT")) {
    ASSIGN_OR_RETURN(SelectStatement select, ParseSelect());
    RETURN_IF_ERROR(ExpectEnd(select_expected_));
    insert.select = std::make_shared<SelectStatement>(std::move(select));
    return insert;
  }
  return tokens_.Error(insert.columns.empty() ? "Expected one of: '(', VALUES, FORMAT, SELECT"
                                              : "Expected one of: VALUES, FORMAT, SELECT");
}

absl::Status StatementParser::ParseValuesRows(InsertStatement* insert) {
  if (!tokens_.Peek().IsSymbol("(")) return tokens_.Error("Expected '('");
  while (tokens_.TakeSymbol("(")) {
    std::vector<ExprPtr> row;
    if (!tokens_.Peek().IsSymbol(")")) {
      ASSIGN_OR_RETURN(row, expressions_.ParseList());
    }
    RETURN_IF_ERROR(tokens_.ExpectSymbol(")"));
    insert->values.push_back(std::move(row));
    tokens_.TakeSymbol(",");  // ClickHouse also accepts rows without commas between them
  }
  return absl::OkStatus();
}

absl::StatusOr<OptimizeStatement> StatementParser::ParseOptimize() {
  OptimizeStatement optimize;
  tokens_.Take();  // OPTIMIZE
  RETURN_IF_ERROR(tokens_.ExpectKeyword("TABLE"));
  ASSIGN_OR_RETURN(optimize.table, ParseTableName());
  optimize.final = tokens_.TakeKeyword("FINAL");
  RETURN_IF_ERROR(ExpectEnd("Expected one of: FINAL, ';', end of query"));
  return optimize;
}

absl::StatusOr<Statement> StatementParser::ParseAlter() {
  AlterSettingsStatement alter;
  tokens_.Take();  // ALTER
  RETURN_IF_ERROR(tokens_.ExpectKeyword("TABLE"));
  ASSIGN_OR_RETURN(alter.table, ParseTableName());
  if (tokens_.TakeKeyword("DELETE")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("WHERE"));
    ASSIGN_OR_RETURN(alter.delete_where, expressions_.Parse());
    RETURN_IF_ERROR(ExpectEnd("Expected one of: ';', end of query"));
    return ToStatement(absl::StatusOr<AlterSettingsStatement>(std::move(alter)));
  }
  const Token verb = tokens_.Peek();
  if ((verb.Is("ADD") || verb.Is("DROP") || verb.Is("RENAME") || verb.Is("MODIFY") ||
       verb.Is("COMMENT")) &&
      tokens_.Peek(1).Is("COLUMN")) {
    do {
      ASSIGN_OR_RETURN(AlterColumnCommand command, ParseAlterColumn());
      alter.columns.push_back(std::move(command));
    } while (tokens_.TakeSymbol(","));
    RETURN_IF_ERROR(ExpectEnd("Expected one of: ',', ';', end of query"));
    return ToStatement(absl::StatusOr<AlterSettingsStatement>(std::move(alter)));
  }
  if (tokens_.Peek().Is("ATTACH") || tokens_.Peek().Is("DROP")) {
    AlterPartStatement part;
    part.table = alter.table;
    if (tokens_.TakeKeyword("DROP")) {
      RETURN_IF_ERROR(tokens_.ExpectKeyword("DETACHED"));
      part.drop_detached = true;
    } else {
      tokens_.Take();  // ATTACH
    }
    RETURN_IF_ERROR(tokens_.ExpectKeyword("PART"));
    ASSIGN_OR_RETURN(part.part, ParseStringLiteral("part name as a string literal"));
    if (tokens_.TakeKeyword("SETTINGS")) RETURN_IF_ERROR(ParseSettings(&part.settings));
    RETURN_IF_ERROR(ExpectEnd("Expected one of: SETTINGS, ';', end of query"));
    return ToStatement(absl::StatusOr<AlterPartStatement>(std::move(part)));
  }
  if (tokens_.TakeKeyword("MODIFY")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("SETTING"));
    RETURN_IF_ERROR(ParseSettings(&alter.modify));
  } else if (tokens_.TakeKeyword("RESET")) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("SETTING"));
    do {
      ASSIGN_OR_RETURN(std::string name, ParseName("setting name"));
      alter.reset.push_back(std::move(name));
    } while (tokens_.TakeSymbol(","));
  } else {
    return tokens_.Error(
        "Expected one of: ADD COLUMN, DROP COLUMN, RENAME COLUMN, MODIFY COLUMN, COMMENT COLUMN, "
        "MODIFY SETTING, RESET SETTING, ATTACH PART, DROP DETACHED PART");
  }
  RETURN_IF_ERROR(ExpectEnd("Expected one of: ',', ';', end of query"));
  return ToStatement(absl::StatusOr<AlterSettingsStatement>(std::move(alter)));
}

absl::StatusOr<Statement> StatementParser::ParseDelete() {
  AlterSettingsStatement alter;
  tokens_.Take();  // DELETE
  RETURN_IF_ERROR(tokens_.ExpectKeyword("FROM"));
  ASSIGN_OR_RETURN(alter.table, ParseTableName());
  RETURN_IF_ERROR(tokens_.ExpectKeyword("WHERE"));
  ASSIGN_OR_RETURN(alter.delete_where, expressions_.Parse());
  RETURN_IF_ERROR(ExpectEnd("Expected one of: ';', end of query"));
  return ToStatement(absl::StatusOr<AlterSettingsStatement>(std::move(alter)));
}

absl::StatusOr<AlterColumnCommand> StatementParser::ParseAlterColumn() {
  using Kind = AlterColumnCommand::Kind;
  AlterColumnCommand command;
  const Token verb = tokens_.Take();
  tokens_.Take();  // COLUMN
  command.kind = verb.Is("ADD")      ? Kind::kAdd
                 : verb.Is("DROP")   ? Kind::kDrop
                 : verb.Is("RENAME") ? Kind::kRename
                 : verb.Is("MODIFY") ? Kind::kModify
                                     : Kind::kComment;
  if (tokens_.TakeKeyword("IF")) {
    if (command.kind == Kind::kAdd) RETURN_IF_ERROR(tokens_.ExpectKeyword("NOT"));
    RETURN_IF_ERROR(tokens_.ExpectKeyword("EXISTS"));
    command.if_exists = true;
  }
  command.column.position = tokens_.Peek().position;
  if (command.kind == Kind::kAdd || command.kind == Kind::kModify) {
    CreateTableStatement holder;
    RETURN_IF_ERROR(ParseColumnDef(&holder, /*type_optional=*/command.kind == Kind::kModify));
    command.column = std::move(holder.columns[0]);
    if (command.kind == Kind::kAdd && command.column.type.empty() &&
        command.column.default_kind.empty()) {
      return tokens_.Error("Expected the column's type or default expression");
    }
    if (command.kind == Kind::kAdd) {
      if (tokens_.TakeKeyword("FIRST")) {
        command.first = true;
      } else if (tokens_.TakeKeyword("AFTER")) {
        ASSIGN_OR_RETURN(command.after, ParseName("column name"));
      }
    }
    return command;
  }
  ASSIGN_OR_RETURN(command.column.name, ParseName("column name"));
  if (command.kind == Kind::kRename) {
    RETURN_IF_ERROR(tokens_.ExpectKeyword("TO"));
    ASSIGN_OR_RETURN(command.new_name, ParseName("column name"));
  } else if (command.kind == Kind::kComment) {
    ASSIGN_OR_RETURN(command.column.comment, ParseStringLiteral("comment as a string literal"));
  }
  return command;
}

absl::StatusOr<std::string> StatementParser::ParseStringLiteral(std::string_view what) {
  if (tokens_.Peek().kind != TokenKind::kString) {
    return tokens_.Error(absl::StrCat("Expected ", core::ToAbsl(what)));
  }
  return Unquote(tokens_.Take().text);
}

absl::StatusOr<CheckTableStatement> StatementParser::ParseCheck() {
  CheckTableStatement check;
  tokens_.Take();  // CHECK
  RETURN_IF_ERROR(tokens_.ExpectKeyword("TABLE"));
  ASSIGN_OR_RETURN(check.table, ParseTableName());
  for (int clause = 0; clause < 2; ++clause) {  // FORMAT and SETTINGS, in either order
    if (check.format.empty() && tokens_.TakeKeyword("FORMAT")) {
      ASSIGN_OR_RETURN(check.format, ParseName("format name"));
    } else if (check.settings.empty() && tokens_.TakeKeyword("SETTINGS")) {
      RETURN_IF_ERROR(ParseSettings(&check.settings));
    }
  }
  RETURN_IF_ERROR(ExpectEnd("Expected one of: FORMAT, SETTINGS, ';', end of query"));
  return check;
}

absl::StatusOr<KillQueryStatement> StatementParser::ParseKill() {
  KillQueryStatement kill;
  tokens_.Take();  // KILL
  RETURN_IF_ERROR(tokens_.ExpectKeyword("QUERY"));
  RETURN_IF_ERROR(tokens_.ExpectKeyword("WHERE"));
  ASSIGN_OR_RETURN(kill.where, expressions_.Parse());
  if (!tokens_.TakeKeyword("SYNC") && !tokens_.TakeKeyword("ASYNC")) tokens_.TakeKeyword("TEST");
  RETURN_IF_ERROR(ExpectEnd("Expected one of: SYNC, ASYNC, ';', end of query"));
  return kill;
}

absl::StatusOr<ExplainStatement> StatementParser::ParseExplain() {
  ExplainStatement explain;
  tokens_.Take();  // EXPLAIN
  const Token kind = tokens_.Peek();
  for (std::string_view other : {"AST", "SYNTAX", "QUERY", "PIPELINE", "ESTIMATE", "TABLE"}) {
    if (kind.Is(other)) {
      return core::Error(core::ErrorCode::kNotImplemented,
                         "EXPLAIN " + std::string(kind.text) + " is not supported, only EXPLAIN PLAN");
    }
  }
  tokens_.TakeKeyword("PLAN");
  auto query_starts = [this] { return tokens_.Peek().Is("SELECT") || tokens_.Peek().Is("WITH"); };
  if (tokens_.Peek().kind == TokenKind::kBareWord && !query_starts()) {
    RETURN_IF_ERROR(ParseSettings(&explain.options));
  }
  if (!query_starts()) return tokens_.Error("Expected SELECT");
  ASSIGN_OR_RETURN(explain.select, ParseSelectQuery());
  RETURN_IF_ERROR(ExpectEnd(select_expected_));
  return explain;
}

absl::StatusOr<SetStatement> StatementParser::ParseSet() {
  SetStatement set;
  tokens_.Take();  // SET
  RETURN_IF_ERROR(ParseSettings(&set.changes));
  RETURN_IF_ERROR(ExpectEnd("Expected one of: ',', ';', end of query"));
  return set;
}

}  // namespace

absl::StatusOr<Statement> ParseStatement(std::string_view sql) {
  StatementParser parser(sql);
  return parser.Parse();
}

}  // namespace granite::coordinator::sql

#include "core/compound_column.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/enum_type.h"
#include "core/error.h"
#include "core/functions/array_columns.h"
#include "core/quoted_text.h"
#include "core/status_macros.h"
#include "core/tuple_type.h"

namespace granite::core {
namespace {

std::string_view Trim(std::string_view text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(text));
  return std::string_view(trimmed.data(), trimmed.size());
}

// Returns the end of the quoted string starting at `pos` (one past its closing quote), or npos.
size_t SkipQuoted(std::string_view text, size_t pos) {
  const char quote = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      if (i + 1 < text.size() && text[i + 1] == quote) {
        ++i;
      } else {
        return i + 1;
      }
    }
  }
  return std::string_view::npos;
}

// Splits `text` at each `separator` outside quotes and brackets; false when a quote is not
// closed or brackets do not balance. An empty text is no pieces.
bool SplitTopLevel(std::string_view text, char separator, std::vector<std::string_view>* out) {
  out->clear();
  if (Trim(text).empty()) return true;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      i = SkipQuoted(text, i);
      if (i == std::string_view::npos) return false;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth < 0) return false;
    if (c == separator && depth == 0) {
      out->push_back(text.substr(start, i - start));
      start = i + 1;
    }
    ++i;
  }
  if (depth != 0) return false;
  out->push_back(text.substr(start));
  return true;
}

// Returns the arguments' text of `name(...)` when `text` is a call of `name` (any case).
std::optional<std::string_view> CallArguments(std::string_view text, std::string_view name) {
  text = Trim(text);
  if (!absl::StartsWithIgnoreCase(ToAbsl(text), ToAbsl(name))) return std::nullopt;
  std::string_view rest = Trim(text.substr(name.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

bool MentionsCompound(std::string_view text) {
  const std::string lower = absl::AsciiStrToLower(ToAbsl(text));
  return lower.find("tuple(") != std::string::npos || lower.find("map(") != std::string::npos ||
         lower.find("nested(") != std::string::npos;
}

absl::StatusOr<TypeId> ParseElementType(std::string_view text, std::string_view declaration) {
  if (MentionsCompound(text) || MentionsEnum(text)) {
    return Error(ErrorCode::kNotImplemented,
                 absl::StrCat("A Tuple, Map or Enum inside a Tuple or Map column is not supported "
                              "yet: ", ToAbsl(declaration)));
  }
  return ParseType(Trim(text));
}

// Parses one element's text; NULL for an element that is not Nullable is its type's default, as
// ClickHouse reads (NULL, 'x') into a Tuple(UInt8, String).
absl::Status ParseElementText(std::string_view text, TypeId type, Column* column) {
  if (!IsNullable(type) && absl::EqualsIgnoreCase(ToAbsl(Trim(text)), "NULL")) {
    AppendDefault(column);
    return absl::OkStatus();
  }
  return ParseQuotedValueText(text, type, column);
}

absl::Status CannotParse(std::string_view text, const CompoundLayout& layout) {
  return Error(ErrorCode::kCannotParseInputAssertionFailed,
               absl::StrCat("Cannot parse \"", ToAbsl(text.substr(0, 100)), "\" as ",
                            layout.type_name));
}

// Removes the rows appended since `before` (per column) after a failed parse.
void RollBack(const std::vector<Column*>& columns, const std::vector<size_t>& before) {
  for (size_t i = 0; i < columns.size(); ++i) {
    Column* column = IsArray(columns[i]->type()) ? &columns[i]->MutableNested() : columns[i];
    if (column->size() > before[i]) {
      Column kept = column->Slice(0, before[i]);
      *column = std::move(kept);
    }
  }
}

// A JSON object key or a map key's text without its quotes.
std::string KeyName(std::string_view text) {
  text = Trim(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'')) return UnquoteText(text);
  return std::string(text);
}

absl::Status ParseMapText(std::string_view text, const CompoundLayout& layout,
                          const std::vector<Column*>& columns) {
  std::string_view body = Trim(text);
  std::vector<std::string_view> entries;
  if (body.size() < 2 || body.front() != '{' || body.back() != '}' ||
      !SplitTopLevel(body.substr(1, body.size() - 2), ',', &entries)) {
    return CannotParse(text, layout);
  }
  Column& keys = columns[0]->MutableNested();
  Column& values = columns[1]->MutableNested();
  const std::vector<size_t> before = {keys.size(), values.size()};
  for (std::string_view entry : entries) {
    std::vector<std::string_view> pair;
    if (!SplitTopLevel(entry, ':', &pair) || pair.size() != 2) {
      RollBack(columns, before);
      return CannotParse(text, layout);
    }
    absl::Status status = ParseElementText(pair[0], ArrayElementOf(layout.types[0]), &keys);
    if (status.ok()) {
      status = ParseElementText(pair[1], ArrayElementOf(layout.types[1]), &values);
    }
    if (!status.ok()) {
      RollBack(columns, before);
      return status;
    }
  }
  columns[0]->AppendArrayEnd();
  columns[1]->AppendArrayEnd();
  return absl::OkStatus();
}

absl::Status ParseTupleText(std::string_view text, const CompoundLayout& layout,
                            const std::vector<Column*>& columns) {
  std::string_view body = Trim(text);
  const char open = body.empty() ? '\0' : body.front();
  const char close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '\0';
  std::vector<std::string_view> pieces;
  if (close == '\0' || body.size() < 2 || body.back() != close ||
      !SplitTopLevel(body.substr(1, body.size() - 2), ',', &pieces) ||
      pieces.size() != layout.types.size()) {
    return CannotParse(text, layout);
  }
  // A JSON object names the elements: put each piece's value in its element's place.
  std::vector<std::string_view> values(pieces.size());
  if (open == '{') {
    if (layout.element_names.empty()) return CannotParse(text, layout);
    for (std::string_view piece : pieces) {
      std::vector<std::string_view> pair;
      if (!SplitTopLevel(piece, ':', &pair) || pair.size() != 2) return CannotParse(text, layout);
      const std::string name = KeyName(pair[0]);
      size_t index = 0;
      while (index < layout.element_names.size() && layout.element_names[index] != name) ++index;
      if (index == layout.element_names.size() || !values[index].empty()) {
        return CannotParse(text, layout);
      }
      values[index] = pair[1];
    }
  } else {
    values = pieces;
  }
  std::vector<size_t> before;
  for (Column* column : columns) {
    before.push_back(IsArray(column->type()) ? column->MutableNested().size() : column->size());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    absl::Status status = ParseElementText(values[i], layout.types[i], columns[i]);
    if (!status.ok()) {
      // Arrays appended whole rows: take those back first, then their elements.
      for (size_t j = 0; j < i; ++j) {
        if (IsArray(columns[j]->type())) {
          Column kept = columns[j]->Slice(0, columns[j]->size() - 1);
          *columns[j] = std::move(kept);
        } else {
          Column kept = columns[j]->Slice(0, before[j]);
          *columns[j] = std::move(kept);
        }
      }
      return status;
    }
  }
  return absl::OkStatus();
}

// [(e1, e2), ...]: each tuple parsed into the arrays' element columns, then one row closed on
// every array.
absl::Status ParseArrayOfTuplesText(std::string_view text, const CompoundLayout& layout,
                                    const std::vector<Column*>& columns) {
  std::string_view body = Trim(text);
  std::vector<std::string_view> tuples;
  if (body.size() < 2 || body.front() != '[' || body.back() != ']' ||
      !SplitTopLevel(body.substr(1, body.size() - 2), ',', &tuples)) {
    return CannotParse(text, layout);
  }
  if (tuples.size() == 1 && Trim(tuples[0]).empty()) tuples.clear();  // []
  const CompoundLayout element = ArrayElementLayout(layout);
  std::vector<Column*> nested;
  std::vector<size_t> before;
  for (size_t i = 0; i < columns.size(); ++i) {
    nested.push_back(&columns[i]->MutableNested());
    before.push_back(nested.back()->size());
  }
  for (std::string_view tuple : tuples) {
    absl::Status status = ParseTupleText(tuple, element, nested);
    if (!status.ok()) {
      for (size_t i = 0; i < nested.size(); ++i) {
        Column kept = nested[i]->Slice(0, before[i]);
        *nested[i] = std::move(kept);
      }
      return status;
    }
  }
  for (Column* column : columns) column->AppendArrayEnd();
  return absl::OkStatus();
}

}  // namespace

CompoundLayout ArrayElementLayout(const CompoundLayout& array) {
  CompoundLayout tuple = array;
  tuple.array = false;
  for (TypeId& type : tuple.types) type = ArrayElementOf(type);
  auto unwrap = [](const std::string& name) {  // Array(X) -> X
    return name.size() > 7 ? name.substr(6, name.size() - 7) : name;
  };
  tuple.type_name = unwrap(array.type_name);
  tuple.pretty_name = unwrap(array.pretty_name);
  return tuple;
}

std::string SubcolumnName(std::string_view column, std::string_view suffix) {
  return absl::StrCat(ToAbsl(column), ".", ToAbsl(suffix));
}

absl::StatusOr<std::optional<CompoundLayout>> ParseCompoundType(std::string_view text) {
  CompoundLayout layout;
  std::vector<std::string_view> arguments;
  if (std::optional<std::string_view> element = CallArguments(text, "Array");
      element && MentionsCompound(*element)) {
    std::optional<std::string_view> tuple = CallArguments(*element, "Tuple");
    if (!tuple || MentionsCompound(*tuple)) {
      return Error(ErrorCode::kNotImplemented,
                   absl::StrCat("Only an Array of a Tuple of plain types is supported as a "
                                "compound column yet: ", ToAbsl(text)));
    }
    ASSIGN_OR_RETURN(std::optional<CompoundLayout> inner, ParseCompoundType(*element));
    layout = std::move(*inner);
    layout.array = true;
    for (TypeId& type : layout.types) {
      if (ArrayDepthOf(type) >= kMaxArrayDepth) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("Too deeply nested arrays in ", ToAbsl(text)));
      }
      type = MakeArray(type);
    }
    layout.type_name = absl::StrCat("Array(", layout.type_name, ")");
    layout.pretty_name = absl::StrCat("Array(", layout.pretty_name, ")");
    return layout;
  }
  if (std::optional<std::string_view> map = CallArguments(text, "Map")) {
    if (!SplitTopLevel(*map, ',', &arguments) || arguments.size() != 2) {
      return Error(ErrorCode::kNumberOfArgumentsDoesntMatch,
                   absl::StrCat("Map data type family must have two arguments: key and value "
                                "types: ", ToAbsl(text)));
    }
    ASSIGN_OR_RETURN(TypeId key, ParseElementType(arguments[0], text));
    ASSIGN_OR_RETURN(TypeId value, ParseElementType(arguments[1], text));
    if (IsNullable(key) || IsArray(key) || RemoveNullable(key) == TypeId::kFloat32 ||
        RemoveNullable(key) == TypeId::kFloat64) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Map cannot have a key of type ", ToAbsl(TypeName(key))));
    }
    layout.map = true;
    layout.suffixes = {"keys", "values"};
    layout.types = {MakeArray(key), MakeArray(value)};
    layout.type_name = absl::StrCat("Map(", ToAbsl(TypeName(key)), ", ",
                                    ToAbsl(TypeName(value)), ")");
    layout.pretty_name = layout.type_name;
    return layout;
  }
  std::optional<std::string_view> tuple = CallArguments(text, "Tuple");
  const bool nested = !tuple.has_value();
  if (nested) tuple = CallArguments(text, "Nested");
  if (!tuple) return std::nullopt;
  if (!SplitTopLevel(*tuple, ',', &arguments) || arguments.empty()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("A Tuple column needs at least one element: ", ToAbsl(text)));
  }
  std::vector<std::string> names;
  std::vector<std::string> type_names;
  for (std::string_view argument : arguments) {
    argument = Trim(argument);
    // `name Type` when the text after the first word is a type; else the whole text is one.
    std::string name;
    std::string_view type_text = argument;
    if (!argument.empty() && argument.front() == '`') {  // `a name`
      const size_t end = SkipQuoted(argument, 0);
      if (end == std::string_view::npos) {
        return Error(ErrorCode::kUnknownType,
                     absl::StrCat("Unclosed element name in ", ToAbsl(text)));
      }
      name = UnquoteText(argument.substr(0, end));
      type_text = argument.substr(end);
    } else if (const size_t space = argument.find_first_of(" \t\n");
               space != std::string_view::npos && argument.find('(') > space) {
      name = std::string(argument.substr(0, space));
      type_text = argument.substr(space + 1);
    }
    ASSIGN_OR_RETURN(TypeId type, ParseElementType(type_text, text));
    if (!name.empty()) names.push_back(name);
    layout.types.push_back(type);
    type_names.push_back(std::string(TypeName(type)));
  }
  if (nested && names.size() != layout.types.size()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Nested elements must be named: ", ToAbsl(text)));
  }
  if (!names.empty() && names.size() != layout.types.size()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Tuple elements must be all named or all unnamed: ", ToAbsl(text)));
  }
  if (std::set<std::string>(names.begin(), names.end()).size() != names.size()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Tuple element names must be unique: ", ToAbsl(text)));
  }
  layout.type_name = "Tuple(";
  for (size_t i = 0; i < layout.types.size(); ++i) {
    if (i > 0) layout.type_name += ", ";
    if (!names.empty()) absl::StrAppend(&layout.type_name, names[i], " ");
    layout.type_name += type_names[i];
    layout.suffixes.push_back(names.empty() ? std::to_string(i + 1) : names[i]);
  }
  layout.type_name += ")";
  layout.pretty_name = PrettyTupleName(names, type_names);
  layout.element_names = std::move(names);
  if (nested) {
    layout.nested = true;
    layout.type_name = "Nested" + layout.type_name.substr(5);
    layout.pretty_name = layout.type_name;
    for (TypeId& type : layout.types) {
      if (ArrayDepthOf(type) >= kMaxArrayDepth) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("Too deeply nested arrays in ", ToAbsl(text)));
      }
      type = MakeArray(type);
    }
  }
  return layout;
}

absl::Status ParseCompoundText(std::string_view text, const CompoundLayout& layout,
                               const std::vector<Column*>& columns) {
  if (layout.array) return ParseArrayOfTuplesText(text, layout, columns);
  return layout.map ? ParseMapText(text, layout, columns) : ParseTupleText(text, layout, columns);
}

absl::StatusOr<std::vector<ColumnPtr>> ParseCompoundColumn(const Column& text,
                                                           const CompoundLayout& layout,
                                                           std::string_view name) {
  std::vector<std::shared_ptr<Column>> columns;
  std::vector<Column*> raw;
  for (TypeId type : layout.types) {
    columns.push_back(std::make_shared<Column>(type));
    raw.push_back(columns.back().get());
  }
  for (size_t row = 0; row < text.size(); ++row) {
    const std::string_view value = text.IsNullAt(row) ? std::string_view() : text.StringAt(row);
    if (Trim(value).empty()) {
      for (Column* column : raw) {
        if (IsArray(column->type())) {
          column->AppendArrayEnd();
        } else if (column->nullable()) {
          column->AppendNull();
        } else if (HasStringLayout(column->type())) {
          column->AppendString(std::string(FixedStringSizeOf(column->type()), '\0'));
        } else {
          column->Resize(column->size() + 1);
        }
      }
      continue;
    }
    absl::Status status = ParseCompoundText(value, layout, raw);
    if (!status.ok()) {
      return Error(CodeOf(status), absl::StrCat(status.message(), ": row ", row + 1,
                                                ", column ", ToAbsl(name)));
    }
  }
  return std::vector<ColumnPtr>(columns.begin(), columns.end());
}

}  // namespace granite::core

#include "core/enum_type.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/quoted_text.h"
#include "core/schema_error_codes.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Returns the text inside `name(...)` (case-insensitive name, spaces allowed before the
// parenthesis), or nullopt.
std::optional<std::string_view> Inside(std::string_view text, std::string_view name) {
  if (text.size() < name.size() + 2 || !absl::StartsWithIgnoreCase(ToAbsl(text), ToAbsl(name))) {
    return std::nullopt;
  }
  std::string_view rest = Trim(text.substr(name.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

absl::Status Syntax(std::string_view what, std::string_view text) {
  return Error(ErrorCode::kSyntaxError,
               absl::StrCat(ToAbsl(what), " in enum definition: ", ToAbsl(text)));
}

// Parses the element list of an enum (the text inside the parentheses).
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> ParseElements(std::string_view list,
                                                                          bool* explicit_values) {
  std::vector<std::pair<std::string, int64_t>> elements;
  int with_values = 0;
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < list.size() && std::isspace(static_cast<unsigned char>(list[i]))) ++i;
  };
  skip_spaces();
  while (i < list.size()) {
    if (list[i] != '\'') return Syntax("Expected a quoted name", list.substr(i));
    size_t end = i + 1;
    while (end < list.size()) {
      if (list[end] == '\\') {
        end += 2;
      } else if (list[end] == '\'' && end + 1 < list.size() && list[end + 1] == '\'') {
        end += 2;
      } else if (list[end] == '\'') {
        break;
      } else {
        ++end;
      }
    }
    if (end >= list.size()) return Syntax("Unterminated name", list.substr(i));
    std::string name = UnquoteText(list.substr(i, end - i + 1));
    i = end + 1;
    skip_spaces();
    std::optional<int64_t> value;
    if (i < list.size() && list[i] == '=') {
      ++i;
      skip_spaces();
      size_t start = i;
      if (i < list.size() && (list[i] == '-' || list[i] == '+')) ++i;
      while (i < list.size() && std::isdigit(static_cast<unsigned char>(list[i]))) ++i;
      int64_t parsed = 0;
      if (!absl::SimpleAtoi(ToAbsl(list.substr(start, i - start)), &parsed)) {
        return Syntax("Expected a number", list.substr(start));
      }
      value = parsed;
      ++with_values;
      skip_spaces();
    }
    elements.emplace_back(std::move(name), value.value_or(elements.size() + 1));
    if (i < list.size()) {
      if (list[i] != ',') return Syntax("Expected ','", list.substr(i));
      ++i;
      skip_spaces();
    }
  }
  if (with_values != 0 && with_values != static_cast<int>(elements.size())) {
    return Syntax("Either all or none of the elements must have values", list);
  }
  *explicit_values = with_values != 0;
  return elements;
}

}  // namespace

std::string EnumType::Name() const {
  std::string out = wide ? "Enum16(" : "Enum8(";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) out += ", ";
    AppendSqlQuoted(elements[i].name, &out);
    absl::StrAppend(&out, " = ", elements[i].value);
  }
  out += ')';
  return out;
}

std::optional<int16_t> EnumType::ValueOf(std::string_view name) const {
  for (const EnumElement& element : elements) {
    if (element.name == name) return element.value;
  }
  return std::nullopt;
}

const std::string* EnumType::NameOf(int value) const {
  for (const EnumElement& element : elements) {
    if (element.value == value) return &element.name;
  }
  return nullptr;
}

absl::StatusOr<std::optional<EnumType>> ParseEnumType(std::string_view text) {
  text = Trim(text);
  int bits = 0;
  std::optional<std::string_view> list;
  if ((list = Inside(text, "enum8"))) {
    bits = 8;
  } else if ((list = Inside(text, "enum16"))) {
    bits = 16;
  } else if (!(list = Inside(text, "enum"))) {
    return std::nullopt;
  }
  bool explicit_values = false;
  ASSIGN_OR_RETURN(auto elements, ParseElements(*list, &explicit_values));
  if (elements.empty()) return Error(kEmptyDataPassed, "Enum data type cannot be empty");
  if (bits == 0) {
    bits = 8;
    for (const auto& [name, value] : elements) {
      if (value < std::numeric_limits<int8_t>::min() || value > std::numeric_limits<int8_t>::max()) {
        bits = 16;
      }
    }
  }
  const int64_t low = bits == 8 ? std::numeric_limits<int8_t>::min()
                                : std::numeric_limits<int16_t>::min();
  const int64_t high = bits == 8 ? std::numeric_limits<int8_t>::max()
                                 : std::numeric_limits<int16_t>::max();
  EnumType type;
  type.wide = bits == 16;
  for (size_t i = 0; i < elements.size(); ++i) {
    const auto& [name, value] = elements[i];
    if (value < low || value > high) {
      return Error(ErrorCode::kArgumentOutOfBound,
                   absl::StrCat("Value ", value, " for element '", ToAbsl(name),
                                "' exceeds range of Enum", bits));
    }
    for (size_t j = 0; j < i; ++j) {
      if (elements[j].first == name) {
        return Error(ErrorCode::kSyntaxError,
                     absl::StrCat("Duplicate names in enum: '", ToAbsl(name), "' = ",
                                  elements[j].second, " and ", value));
      }
      if (elements[j].second == value) {
        return Error(ErrorCode::kSyntaxError,
                     absl::StrCat("Duplicate values in enum: '", ToAbsl(name), "' = ", value,
                                  " and '", ToAbsl(elements[j].first), "'"));
      }
    }
    type.elements.push_back({name, static_cast<int16_t>(value)});
  }
  std::stable_sort(type.elements.begin(), type.elements.end(),
                   [](const EnumElement& a, const EnumElement& b) { return a.value < b.value; });
  return type;
}

bool MentionsEnum(std::string_view text) {
  return absl::AsciiStrToLower(ToAbsl(text)).find("enum") != std::string::npos;
}

absl::StatusOr<std::optional<EnumColumnType>> ParseEnumColumnType(std::string_view text) {
  text = Trim(text);
  static constexpr std::string_view kWrappers[] = {"nullable", "array", "lowcardinality"};
  for (std::string_view wrapper : kWrappers) {
    std::optional<std::string_view> inner = Inside(text, wrapper);
    if (!inner) continue;
    ASSIGN_OR_RETURN(std::optional<EnumColumnType> nested, ParseEnumColumnType(*inner));
    if (!nested) return std::nullopt;
    if (wrapper == "nullable") {
      if (IsNullable(nested->type) || IsArray(nested->type)) {
        return Error(ErrorCode::kIllegalTypeOfArgument,
                     absl::StrCat("Nested type ", ToAbsl(*inner), " cannot be inside Nullable type"));
      }
      nested->type = MakeNullable(nested->type);
    } else if (wrapper == "array") {
      if (ArrayDepthOf(nested->type) >= kMaxArrayDepth) {
        return Error(ErrorCode::kArgumentOutOfBound,
                     absl::StrCat("Arrays nest at most ", kMaxArrayDepth, " deep in granite: ",
                                  ToAbsl(text)));
      }
      nested->type = MakeArray(nested->type);
    } else if (IsArray(nested->type)) {
      return Error(ErrorCode::kIllegalTypeOfArgument,
                   absl::StrCat("LowCardinality can't be used with the type ", ToAbsl(*inner)));
    }
    return nested;
  }
  ASSIGN_OR_RETURN(std::optional<EnumType> enum_type, ParseEnumType(text));
  if (!enum_type) return std::nullopt;
  const TypeId type = enum_type->value_type();
  return EnumColumnType{type, *std::move(enum_type)};
}

std::string EnumColumnTypeName(TypeId type, const EnumType& enum_type) {
  if (IsArray(type)) {
    return absl::StrCat("Array(", EnumColumnTypeName(ArrayElementOf(type), enum_type), ")");
  }
  if (IsNullable(type)) return absl::StrCat("Nullable(", enum_type.Name(), ")");
  return enum_type.Name();
}

TypeId EnumTextType(TypeId type) {
  if (IsArray(type)) return MakeArray(EnumTextType(ArrayElementOf(type)));
  return WithNullable(TypeId::kString, IsNullable(type));
}

namespace {

// Appends the value `text` names to `out`; false when it names none.
bool AppendEnumValue(std::string_view text, const EnumType& enum_type, Column* out) {
  std::optional<int16_t> value = enum_type.ValueOf(text);
  if (!value) {
    int64_t number = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(ToAbsl(text)), &number) ||
        number < std::numeric_limits<int16_t>::min() ||
        number > std::numeric_limits<int16_t>::max() || !enum_type.NameOf(number)) {
      return false;
    }
    value = static_cast<int16_t>(number);
  }
  if (enum_type.wide) {
    out->Append<int16_t>(*value);
  } else {
    out->Append<int8_t>(static_cast<int8_t>(*value));
  }
  return true;
}

absl::Status UnknownElement(std::string_view text, const EnumType& enum_type) {
  int64_t number = 0;
  if (absl::SimpleAtoi(absl::StripAsciiWhitespace(ToAbsl(text)), &number)) {
    return Error(kUnknownElementOfEnum,
                 absl::StrCat("Unexpected value ", number, " in enum ", enum_type.Name()));
  }
  return Error(kUnknownElementOfEnum, absl::StrCat("Unknown element '", ToAbsl(text),
                                                   "' for enum ", enum_type.Name()));
}

// Appends the names of `values` to `out` (String in the same wrappers); sets `*bad` to the
// first value the enum lacks.
void AppendEnumNames(const Column& values, const EnumType& enum_type, Column* out,
                     std::optional<int>* bad) {
  if (IsArray(values.type())) {
    AppendEnumNames(values.Nested(), enum_type, &out->MutableNested(), bad);
    out->MutableOffsets() = values.Offsets();
    out->SetSize(values.size());
    return;
  }
  out->Reserve(values.size());
  const std::vector<EnumElement>& elements = enum_type.elements;
  for (size_t row = 0; row < values.size(); ++row) {
    if (values.IsNullAt(row)) {
      out->AppendNull();
      continue;
    }
    const int value = enum_type.wide ? values.Get<int16_t>(row) : values.Get<int8_t>(row);
    auto found = std::lower_bound(
        elements.begin(), elements.end(), value,
        [](const EnumElement& element, int v) { return element.value < v; });
    if (found == elements.end() || found->value != value) {
      if (!*bad) *bad = value;
      out->AppendString("");
      continue;
    }
    out->AppendString(found->name);
  }
}

}  // namespace

absl::StatusOr<ColumnPtr> EnumNamesOf(const Column& values, const EnumType& enum_type) {
  auto out = std::make_shared<Column>(EnumTextType(values.logical_type()));
  std::optional<int> bad;
  AppendEnumNames(values, enum_type, out.get(), &bad);
  if (bad) {
    return Error(kUnknownElementOfEnum,
                 absl::StrCat("Unexpected value ", *bad, " in enum ", enum_type.Name()));
  }
  return ColumnPtr(std::move(out));
}

absl::StatusOr<ColumnPtr> EnumValuesOf(const Column& text, TypeId type, const EnumType& enum_type) {
  auto out = std::make_shared<Column>(type);
  if (IsArray(type)) {
    ASSIGN_OR_RETURN(ColumnPtr nested,
                     EnumValuesOf(text.Nested(), ArrayElementOf(type), enum_type));
    out->MutableNested() = *nested;
    out->MutableOffsets() = text.Offsets();
    out->SetSize(text.size());
    return ColumnPtr(std::move(out));
  }
  out->Reserve(text.size());
  // Rows are checked all at once: the first bad one is reported after the loop.
  size_t bad = text.size();
  for (size_t row = 0; row < text.size(); ++row) {
    if (text.IsNullAt(row)) {
      out->AppendNull();
    } else if (!AppendEnumValue(text.StringAt(row), enum_type, out.get())) {
      if (bad == text.size()) bad = row;
      out->Resize(out->size() + 1);
    }
  }
  if (bad != text.size()) return UnknownElement(text.StringAt(bad), enum_type);
  return ColumnPtr(std::move(out));
}

}  // namespace granite::core

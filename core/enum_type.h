// EnumType: the definition of an Enum8 / Enum16 column (names <-> values), parsed from and printed
// as ClickHouse writes it: Enum8('a' = 1, 'b' = 2). A definition is user data of any size, so it
// is no TypeId: an Enum column is stored as Int8 / Int16 and its definition is a column attribute
// of the table schema (ColumnSchema::enum_type, core/table_schema.h). The binder lowers enum
// semantics at bind time (coordinator/planner/select_binder_enums.cc): a read column shows its
// names through the function __enumName(value, 'Enum8(...)') (core/functions/enum_functions.cc),
// comparisons with names compare values. INSERT converts names and numbers to values
// (EnumValuesOf below).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

struct EnumElement {
  std::string name;
  int16_t value = 0;
  bool operator==(const EnumElement&) const = default;
};

// One enum's elements, sorted by value (names and values are each unique).
// Thread-safety: immutable once built; share freely.
struct EnumType {
  bool wide = false;  // Enum16 (Int16 values) rather than Enum8 (Int8)
  std::vector<EnumElement> elements;

  // The storage type of the values: Int8 or Int16.
  TypeId value_type() const { return wide ? TypeId::kInt16 : TypeId::kInt8; }
  // ClickHouse's name: "Enum8('a' = 1, 'b' = 2)" (names quoted with backslash escapes).
  std::string Name() const;
  // Returns the value of `name`, or nullopt.
  std::optional<int16_t> ValueOf(std::string_view name) const;
  // Returns the name of `value`, or null.
  const std::string* NameOf(int value) const;
  // ClickHouse's default value of the type: the smallest value.
  int16_t default_value() const { return elements.empty() ? 0 : elements.front().value; }

  bool operator==(const EnumType&) const = default;
};

// Parses "Enum8(...)", "Enum16(...)" or "Enum(...)" (case-insensitive; Enum picks Enum8 when every
// value fits, else Enum16); elements are 'name' = value, or all bare names ('a', 'b': values 1, 2,
// ...). Returns nullopt when `text` is no enum. ClickHouse's errors: duplicate names or values
// (SYNTAX_ERROR), a value out of range (ARGUMENT_OUT_OF_BOUND), no element (EMPTY_DATA_PASSED).
absl::StatusOr<std::optional<EnumType>> ParseEnumType(std::string_view text);

// Whether type text names an enum (maybe wrapped): its parse errors are ClickHouse's enum
// errors (SYNTAX_ERROR, ARGUMENT_OUT_OF_BOUND, EMPTY_DATA_PASSED), reported as they are.
bool MentionsEnum(std::string_view text);

// A declared column type holding an enum: Enum8(...), Nullable(Enum8(...)), Array(Enum8(...)),
// LowCardinality(Enum8(...)) (read as the enum), nested arrays of those. `type` is the storage
// type: Int8 / Int16 in the same wrappers.
struct EnumColumnType {
  TypeId type;
  EnumType enum_type;
};
// Returns nullopt when `text` declares no enum (the caller then uses ParseType).
absl::StatusOr<std::optional<EnumColumnType>> ParseEnumColumnType(std::string_view text);

// Returns ClickHouse's name of storage type `type` (Int8 / Int16, maybe Nullable or in arrays)
// declared with `enum_type`: "Array(Nullable(Enum8('a' = 1)))".
std::string EnumColumnTypeName(TypeId type, const EnumType& enum_type);

// Converts text (names, or numbers that are values, as every input format gives them) to enum
// values: `text` is String, Nullable(String) or arrays of those; the result has `type` (the
// column's storage type). An unknown name or value is UNKNOWN_ELEMENT_OF_ENUM naming it.
absl::StatusOr<ColumnPtr> EnumValuesOf(const Column& text, TypeId type, const EnumType& enum_type);

// Converts enum values to their names, the reverse of EnumValuesOf: `values` is Int8 / Int16
// (as `enum_type` stores them), Nullable or arrays of those; the result is String in the same
// wrappers. A value the enum lacks is UNKNOWN_ELEMENT_OF_ENUM naming it.
absl::StatusOr<ColumnPtr> EnumNamesOf(const Column& values, const EnumType& enum_type);

// Returns `type` with its innermost Int8 / Int16 replaced by String: what an input parser
// reads for an enum column before EnumValuesOf.
TypeId EnumTextType(TypeId type);

}  // namespace granite::core

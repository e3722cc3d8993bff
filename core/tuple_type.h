// Tuple types: Tuple(T1, ..., Tn) and named Tuple(a T1, b T2); Map(K, V) is one too, a tuple
// of its keys and its values (Array(K), Array(V)) that prints as a map, and so is an array of
// tuples, Array(Tuple(a T1, b T2)): the tuple of its elements' arrays (Array(T1), Array(T2)),
// row i's arrays of equal size, that prints as an array of tuples. A tuple's element list does not
// fit the 32 bits of a TypeId, so the id holds an index into this process's table of element
// lists (bits 8..23, core/types.h): the same list always gets the same id here, and ids mean
// nothing to another process. Tuples therefore live only where one process builds and reads
// them: a query's result on the coordinator, whose select-list tuples are computed element by
// element and put together at the end (coordinator/exec/tuple_results.h). They are never stored
// in a part or sent to a worker (IsValidType refuses the id; AppendTypeBytes must not see one).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/types.h"

namespace granite::core {

struct TupleType {
  std::vector<TypeId> elements;
  // Element names, all or none (empty: an unnamed tuple, elements answer to 1..n only).
  std::vector<std::string> names;
  // Map(K, V): elements are Array(K) and Array(V), row i's keys and values in the same order.
  bool map = false;
  // Array(Tuple(...)): elements are Array(T1) ... Array(Tn), row i's arrays of equal size; `names`
  // are the tuples' element names.
  bool array = false;
};

// The most distinct tuple types one process holds (ids are 16 bits).
inline constexpr size_t kMaxTupleTypes = 0xffff;

// Returns the id of Tuple(elements...) with `names` (empty or one per element), adding it to the
// table if new. Errors: the table is full (LIMIT_EXCEEDED: the process has built kMaxTupleTypes
// distinct tuple types), names of another count than elements (LOGICAL_ERROR).
// Thread-safety: safe (the table is append-only under a lock).
absl::StatusOr<TypeId> MakeTupleType(std::vector<TypeId> elements,
                                     std::vector<std::string> names = {});

// Returns the id of Map(key, value): a tuple of Array(key) and Array(value) marked as a map.
// Errors: those of MakeTupleType.
absl::StatusOr<TypeId> MakeMapType(TypeId key, TypeId value);

// Returns the id of Array(Tuple(T1, ..., Tn)) with `names` (empty or one per element), kept
// as the tuple of Array(T1) ... Array(Tn) marked as an array. REQUIRES: every element is an
// array type. Errors: those of MakeTupleType.
absl::StatusOr<TypeId> MakeArrayOfTuplesType(std::vector<TypeId> element_arrays,
                                             std::vector<std::string> names = {});

// Whether `type` is a Map (a tuple type marked so). Looks at the table only for tuples.
bool IsMap(TypeId type);

// Whether `type` is an Array(Tuple(...)) (a tuple type marked so).
bool IsArrayOfTuples(TypeId type);

// Returns the element list of a tuple type. REQUIRES: IsTuple(type) and the id came from
// MakeTupleType in this process. The reference lives for the process.
const TupleType& TupleTypeOf(TypeId type);

// Returns ClickHouse's name: "Tuple(UInt8, String)", "Tuple(a UInt8, b String)",
// "Map(String, UInt64)", "Array(Tuple(a UInt8, b String))".
std::string TupleTypeName(TypeId type);

// Returns ClickHouse's pretty name (print_pretty_type_names, what toTypeName and DESCRIBE show):
// a named tuple's elements one per line, indented four spaces a level
// ("Tuple(\n    a UInt8,\n    b String)"); other types as TypeName, with pretty elements.
std::string PrettyTypeName(TypeId type, int indent = 0);

// The same for a named tuple's parts: element `names` (empty: unnamed) of `element_names`'s
// types, written as `element_type_names`.
std::string PrettyTupleName(const std::vector<std::string>& names,
                            const std::vector<std::string>& element_type_names, int indent = 0);

}  // namespace granite::core

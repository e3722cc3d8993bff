// Tuple types: Tuple(T1, ..., Tn) and named Tuple(a T1, b T2). A tuple's element list does not
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
};

// The most distinct tuple types one process holds (ids are 16 bits).
inline constexpr size_t kMaxTupleTypes = 0xffff;

// Returns the id of Tuple(elements...) with `names` (empty or one per element), adding it to the
// table if new. Errors: the table is full (LIMIT_EXCEEDED: the process has built kMaxTupleTypes
// distinct tuple types), names of another count than elements (LOGICAL_ERROR).
// Thread-safety: safe (the table is append-only under a lock).
absl::StatusOr<TypeId> MakeTupleType(std::vector<TypeId> elements,
                                     std::vector<std::string> names = {});

// Returns the element list of a tuple type. REQUIRES: IsTuple(type) and the id came from
// MakeTupleType in this process. The reference lives for the process.
const TupleType& TupleTypeOf(TypeId type);

// Returns ClickHouse's name: "Tuple(UInt8, String)", "Tuple(a UInt8, b String)".
std::string TupleTypeName(TypeId type);

}  // namespace granite::core

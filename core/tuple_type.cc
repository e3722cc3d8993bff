#include "core/tuple_type.h"

#include <deque>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace granite::core {
namespace {

// The process's tuple types: ids index `types` (a deque: references stay valid as it grows).
struct TupleTable {
  Mutex mu{"tuple_types"};
  std::deque<TupleType> types GUARDED_BY(mu);
  absl::flat_hash_map<std::string, uint32_t> ids GUARDED_BY(mu);  // by KeyOf
};

TupleTable& Table() {
  static TupleTable* table = new TupleTable();
  return *table;
}

// A key that differs for every distinct (elements, names).
std::string KeyOf(const std::vector<TypeId>& elements, const std::vector<std::string>& names,
                  bool map, bool array) {
  std::string key = map ? "m" : array ? "a" : "";
  for (TypeId element : elements) absl::StrAppend(&key, static_cast<uint32_t>(element), ",");
  for (const std::string& name : names) absl::StrAppend(&key, name.size(), ":", name);
  return key;
}

absl::StatusOr<TypeId> MakeTuple(std::vector<TypeId> elements, std::vector<std::string> names,
                                 bool map, bool array = false) {
  if (!names.empty() && names.size() != elements.size()) {
    return Error(ErrorCode::kLogicalError, "A named tuple needs one name per element");
  }
  const std::string key = KeyOf(elements, names, map, array);
  TupleTable& table = Table();
  MutexLock lock(table.mu);
  auto found = table.ids.find(key);
  uint32_t id;
  if (found != table.ids.end()) {
    id = found->second;
  } else {
    if (table.types.size() >= kMaxTupleTypes) {
      return Error(ErrorCode::kLimitExceeded,
                   absl::StrCat("Too many distinct tuple types in one server process (",
                                kMaxTupleTypes, ")"));
    }
    id = static_cast<uint32_t>(table.types.size());
    table.types.push_back(TupleType{std::move(elements), std::move(names), map, array});
    table.ids.emplace(key, id);
  }
  return static_cast<TypeId>(static_cast<uint32_t>(TypeId::kTuple) | (id << 8));
}

}  // namespace

absl::StatusOr<TypeId> MakeTupleType(std::vector<TypeId> elements,
                                     std::vector<std::string> names) {
  return MakeTuple(std::move(elements), std::move(names), false);
}

absl::StatusOr<TypeId> MakeMapType(TypeId key, TypeId value) {
  return MakeTuple({MakeArray(key), MakeArray(value)}, {}, true);
}

absl::StatusOr<TypeId> MakeArrayOfTuplesType(std::vector<TypeId> element_arrays,
                                             std::vector<std::string> names) {
  return MakeTuple(std::move(element_arrays), std::move(names), false, true);
}

bool IsMap(TypeId type) { return IsTuple(type) && TupleTypeOf(type).map; }

bool IsArrayOfTuples(TypeId type) { return IsTuple(type) && TupleTypeOf(type).array; }

const TupleType& TupleTypeOf(TypeId type) {
  TupleTable& table = Table();
  MutexLock lock(table.mu);
  return table.types[(static_cast<uint32_t>(type) >> 8) & 0xffffu];
}

std::string TupleTypeName(TypeId type) {
  const TupleType& tuple = TupleTypeOf(type);
  if (tuple.map) {
    return absl::StrCat("Map(", ToAbsl(TypeName(ArrayElementOf(tuple.elements[0]))), ", ",
                        ToAbsl(TypeName(ArrayElementOf(tuple.elements[1]))), ")");
  }
  std::string name = tuple.array ? "Array(Tuple(" : "Tuple(";
  for (size_t i = 0; i < tuple.elements.size(); ++i) {
    if (i > 0) name += ", ";
    if (!tuple.names.empty()) absl::StrAppend(&name, tuple.names[i], " ");
    const TypeId element = tuple.array ? ArrayElementOf(tuple.elements[i]) : tuple.elements[i];
    absl::StrAppend(&name, ToAbsl(TypeName(element)));
  }
  return name + (tuple.array ? "))" : ")");
}

std::string PrettyTupleName(const std::vector<std::string>& names,
                            const std::vector<std::string>& element_type_names, int indent) {
  std::string name = "Tuple(";
  if (names.empty()) {
    for (size_t i = 0; i < element_type_names.size(); ++i) {
      if (i > 0) name += ", ";
      name += element_type_names[i];
    }
    return name + ")";
  }
  const std::string pad(4 * (indent + 1), ' ');
  for (size_t i = 0; i < element_type_names.size(); ++i) {
    absl::StrAppend(&name, i > 0 ? ",\n" : "\n", pad, names[i], " ", element_type_names[i]);
  }
  return name + ")";
}

std::string PrettyTypeName(TypeId type, int indent) {
  if (IsArray(type)) {
    return absl::StrCat("Array(", PrettyTypeName(ArrayElementOf(type), indent), ")");
  }
  if (!IsTuple(type)) return std::string(TypeName(type));
  const TupleType& tuple = TupleTypeOf(type);
  if (tuple.map) {
    return absl::StrCat("Map(", PrettyTypeName(ArrayElementOf(tuple.elements[0]), indent), ", ",
                        PrettyTypeName(ArrayElementOf(tuple.elements[1]), indent), ")");
  }
  const int inner = tuple.names.empty() ? indent : indent + 1;
  std::vector<std::string> elements;
  for (TypeId element : tuple.elements) {
    elements.push_back(PrettyTypeName(tuple.array ? ArrayElementOf(element) : element, inner));
  }
  if (tuple.array) return absl::StrCat("Array(", PrettyTupleName(tuple.names, elements, indent), ")");
  return PrettyTupleName(tuple.names, elements, indent);
}

}  // namespace granite::core

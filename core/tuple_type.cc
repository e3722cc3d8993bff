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
std::string KeyOf(const std::vector<TypeId>& elements, const std::vector<std::string>& names) {
  std::string key;
  for (TypeId element : elements) absl::StrAppend(&key, static_cast<uint32_t>(element), ",");
  for (const std::string& name : names) absl::StrAppend(&key, name.size(), ":", name);
  return key;
}

}  // namespace

absl::StatusOr<TypeId> MakeTupleType(std::vector<TypeId> elements,
                                     std::vector<std::string> names) {
  if (!names.empty() && names.size() != elements.size()) {
    return Error(ErrorCode::kLogicalError, "A named tuple needs one name per element");
  }
  const std::string key = KeyOf(elements, names);
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
    table.types.push_back(TupleType{std::move(elements), std::move(names)});
    table.ids.emplace(key, id);
  }
  return static_cast<TypeId>(static_cast<uint32_t>(TypeId::kTuple) | (id << 8));
}

const TupleType& TupleTypeOf(TypeId type) {
  TupleTable& table = Table();
  MutexLock lock(table.mu);
  return table.types[(static_cast<uint32_t>(type) >> 8) & 0xffffu];
}

std::string TupleTypeName(TypeId type) {
  const TupleType& tuple = TupleTypeOf(type);
  std::string name = "Tuple(";
  for (size_t i = 0; i < tuple.elements.size(); ++i) {
    if (i > 0) name += ", ";
    if (!tuple.names.empty()) absl::StrAppend(&name, tuple.names[i], " ");
    absl::StrAppend(&name, ToAbsl(TypeName(tuple.elements[i])));
  }
  return name + ")";
}

}  // namespace granite::core

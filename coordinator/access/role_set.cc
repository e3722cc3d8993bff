#include "coordinator/access/role_set.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/access/grant_store.h"

namespace granite::coordinator::access {
bool RoleSet::Contains(const std::string& role) const {
  const std::vector<std::string>& list = all ? except : names;
  const bool listed = std::find(list.begin(), list.end(), role) != list.end();
  return all ? !listed : listed;
}

std::string RoleSet::Text() const {
  if (all) return except.empty() ? "ALL" : absl::StrCat("ALL EXCEPT ", BackquotedList(except));
  return names.empty() ? "NONE" : BackquotedList(names);
}

}  // namespace granite::coordinator::access

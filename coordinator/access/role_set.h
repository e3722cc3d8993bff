// RoleSet: roles as SET ROLE and SET DEFAULT ROLE name them — NONE, ALL [EXCEPT ...], or a
// list. A user's enabled roles are the roles granted to it directly that its current set (SET
// ROLE in the session, else its default set) holds, with every role granted to those; the
// default set is ALL until SET DEFAULT ROLE changes it, as in ClickHouse.
#pragma once

#include <string>
#include <vector>

namespace granite::coordinator::access {

struct RoleSet {
  bool all = true;
  std::vector<std::string> names;   // without `all` (empty: NONE)
  std::vector<std::string> except;  // with `all`

  bool Contains(const std::string& role) const;
  // "ALL", "ALL EXCEPT `a`", "`a`, `b`" or "NONE", as SET DEFAULT ROLE reads it back.
  std::string Text() const;

  friend bool operator==(const RoleSet&, const RoleSet&) = default;
};

}  // namespace granite::coordinator::access

// Table names across databases. Databases are a name prefix (storage/store.h): the catalog and the
// workers call table t of database d "d.t" and table t of database `default` plain "t". A
// statement names a table as "t" (in the current database) or "db.t"; these functions convert.
#pragma once

#include <string>
#include <string_view>

namespace granite::coordinator {

inline constexpr std::string_view kDefaultDatabase = "default";
inline constexpr std::string_view kSystemDatabase = "system";

struct QualifiedTable {
  std::string database;
  std::string table;
};

// Splits a catalog name: "t" -> {default, t}, "d.t" -> {d, t}.
QualifiedTable SplitTableName(std::string_view catalog_name);
// Returns the catalog name of table `table` of database `database`.
std::string CatalogTableName(std::string_view database, std::string_view table);
// Returns the catalog name of a table written as `written` ("t" or "db.t") in a query whose
// current database is `current`.
std::string ResolveTableName(std::string_view written, std::string_view current);
// Returns "database.table" for messages: "default.t", "d.t".
std::string DisplayTableName(std::string_view catalog_name);

}  // namespace granite::coordinator

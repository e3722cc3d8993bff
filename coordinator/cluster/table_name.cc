#include "coordinator/cluster/table_name.h"

namespace granite::coordinator {

QualifiedTable SplitTableName(std::string_view catalog_name) {
  size_t dot = catalog_name.find('.');
  if (dot == std::string_view::npos) {
    return QualifiedTable{std::string(kDefaultDatabase), std::string(catalog_name)};
  }
  return QualifiedTable{std::string(catalog_name.substr(0, dot)),
                        std::string(catalog_name.substr(dot + 1))};
}

std::string CatalogTableName(std::string_view database, std::string_view table) {
  if (database.empty() || database == kDefaultDatabase) return std::string(table);
  std::string out(database);
  out += '.';
  out += table;
  return out;
}

std::string ResolveTableName(std::string_view written, std::string_view current) {
  size_t dot = written.find('.');
  if (dot == std::string_view::npos) return CatalogTableName(current, written);
  return CatalogTableName(written.substr(0, dot), written.substr(dot + 1));
}

std::string DisplayTableName(std::string_view catalog_name) {
  QualifiedTable name = SplitTableName(catalog_name);
  return name.database + "." + name.table;
}

}  // namespace granite::coordinator

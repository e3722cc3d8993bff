#include "coordinator/system/settings_table.h"

namespace granite::coordinator {

using core::TypeId;

LocalTable BuildSettingsTable(const core::Settings& settings) {
  LocalTable table;
  table.names = {"name", "value", "changed", "description", "type", "default"};
  table.types = {TypeId::kString, TypeId::kString, TypeId::kUInt8,
                 TypeId::kString, TypeId::kString, TypeId::kString};
  std::vector<core::MutableColumnPtr> columns;
  for (TypeId type : table.types) columns.push_back(std::make_shared<core::Column>(type));
  const std::vector<core::SettingInfo>& infos = core::Settings::Infos();
  for (size_t i = 0; i < infos.size(); ++i) {
    columns[0]->AppendString(infos[i].name);
    columns[1]->AppendString(settings.ValueText(i));
    columns[2]->Append<uint8_t>(settings.changed(i) ? 1 : 0);
    columns[3]->AppendString(infos[i].description);
    columns[4]->AppendString(core::SettingTypeName(infos[i].type));
    columns[5]->AppendString(infos[i].default_text);
  }
  table.block.rows_without_columns = infos.size();
  for (auto& column : columns) table.block.columns.push_back(std::move(column));
  return table;
}

}  // namespace granite::coordinator

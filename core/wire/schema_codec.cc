#include "core/wire/schema_codec.h"

#include "granite/worker/v1/worker.pb.h"

namespace granite::core::wire {

namespace pb = granite::worker::v1;

TableSchema FromProto(const pb::TableSchema& proto) {
  TableSchema schema;
  schema.name = proto.name();
  for (const pb::ColumnSpec& column : proto.columns()) {
    ColumnSchema out{column.name(), static_cast<TypeId>(column.type()), column.codec()};
    out.default_kind = static_cast<DefaultKind>(column.default_kind() <= 3 ? column.default_kind() : 0);
    out.default_expression = column.default_expression();
    out.comment = column.comment();
    out.low_cardinality =
        column.low_cardinality() && HasStringLayout(out.type) && !IsArray(out.type);
    if (!column.enum_type().empty()) {
      // A definition that does not parse (written by a newer version) reads as its values.
      absl::StatusOr<std::optional<EnumType>> parsed = ParseEnumType(column.enum_type());
      if (parsed.ok() && *parsed) out.enum_type = **std::move(parsed);
    }
    schema.columns.push_back(std::move(out));
  }
  schema.order_by.assign(proto.order_by().begin(), proto.order_by().end());
  schema.primary_key.assign(proto.primary_key().begin(), proto.primary_key().end());
  schema.partition_by = proto.partition_by();
  schema.engine = proto.engine();
  for (const auto& [key, value] : proto.settings()) schema.settings[key] = value;
  schema.sharding_key.assign(proto.sharding_key().begin(), proto.sharding_key().end());
  schema.shard_count = proto.shard_count();
  for (const pb::CompoundColumn& compound : proto.compound_columns()) {
    schema.compound_columns.push_back(CompoundColumn{compound.name(), compound.type()});
  }
  return schema;
}

void ToProto(const TableSchema& schema, pb::TableSchema* proto) {
  proto->set_name(schema.name);
  for (const ColumnSchema& column : schema.columns) {
    pb::ColumnSpec* spec = proto->add_columns();
    spec->set_name(column.name);
    spec->set_type(static_cast<uint32_t>(column.type));
    spec->set_codec(column.codec);
    spec->set_default_kind(static_cast<uint32_t>(column.default_kind));
    spec->set_default_expression(column.default_expression);
    spec->set_comment(column.comment);
    spec->set_low_cardinality(column.low_cardinality);
    if (column.enum_type) spec->set_enum_type(column.enum_type->Name());
  }
  for (const std::string& key : schema.order_by) proto->add_order_by(key);
  for (const std::string& key : schema.primary_key) proto->add_primary_key(key);
  proto->set_partition_by(schema.partition_by);
  proto->set_engine(schema.engine);
  for (const auto& [key, value] : schema.settings) (*proto->mutable_settings())[key] = value;
  for (const std::string& key : schema.sharding_key) proto->add_sharding_key(key);
  proto->set_shard_count(schema.shard_count);
  for (const CompoundColumn& compound : schema.compound_columns) {
    pb::CompoundColumn* out = proto->add_compound_columns();
    out->set_name(compound.name);
    out->set_type(compound.type);
  }
}

}  // namespace granite::core::wire

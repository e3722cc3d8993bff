// SchemaCodec: TableSchema (core/table_schema.h) to and from the worker API's TableSchema message
// (proto/granite/worker/v1/worker.proto). Type ids are copied as they are; storage's
// ValidateTableSchema reports an unknown one (UNKNOWN_TYPE).
#pragma once

#include "core/table_schema.h"

namespace granite::worker::v1 {
class TableSchema;
}

namespace granite::core::wire {

TableSchema FromProto(const granite::worker::v1::TableSchema& proto);
void ToProto(const TableSchema& schema, granite::worker::v1::TableSchema* proto);

}  // namespace granite::core::wire

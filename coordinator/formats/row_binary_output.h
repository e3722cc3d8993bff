// RowBinary output (+WithNames, +WithNamesAndTypes): every row's values one after another in
// ClickHouse's binary encoding (binary_encoding.h); the variants start with the column count as a
// varint and the names (and type names) as binary strings. Part of the output formats
// (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes rows in RowBinary.
// Thread-safety: none.
class RowBinaryOutput : public OutputFormat {
 public:
  RowBinaryOutput(bool with_names, bool with_types)
      : with_names_(with_names), with_types_(with_types) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}
  std::string_view ContentType() const override { return "application/octet-stream"; }

 private:
  const bool with_names_;
  const bool with_types_;
  std::vector<bool> nullable_;  // per column: the declared type is Nullable (a null byte each)
};

}  // namespace granite::coordinator

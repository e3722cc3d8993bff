// JSONCompactEachRow output: one JSON array per row and line, [1, "x"] (ClickHouse layout).
// Values as in AppendJsonValue (json_output.h). Part of the output formats
// (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes one array per row.
// Thread-safety: none.
class JsonCompactEachRowOutput : public OutputFormat {
 public:
  explicit JsonCompactEachRowOutput(bool quote_64bit) : quote_64bit_(quote_64bit) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override {}
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}
  std::string_view ContentType() const override {
    return "application/x-ndjson; charset=UTF-8";
  }

 private:
  const bool quote_64bit_;
};

}  // namespace granite::coordinator

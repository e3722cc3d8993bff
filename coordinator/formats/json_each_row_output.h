// JSONEachRow output: one JSON object per row and line, {"a":1,"s":"x"}, no spaces (ClickHouse
// layout). Values as in AppendJsonValue (json_output.h). Part of the output formats
// (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes one object per row.
// Thread-safety: none.
class JsonEachRowOutput : public OutputFormat {
 public:
  explicit JsonEachRowOutput(bool quote_64bit) : quote_64bit_(quote_64bit) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}
  std::string_view ContentType() const override {
    return "application/x-ndjson; charset=UTF-8";
  }

 private:
  const bool quote_64bit_;
  // Set by Begin: `"name":` per column, with the opening '{' or ',' before it.
  std::vector<std::string> prefixes_;
};

}  // namespace granite::coordinator

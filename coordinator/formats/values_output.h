// Values output: rows as SQL tuples separated by commas, (1,'x'),(2,'y'), as an INSERT ... VALUES
// takes them; strings and dates in single quotes with ClickHouse's quoting (text_escaping.h).
// Part of the output formats (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes tuples.
// Thread-safety: none.
class ValuesOutput : public OutputFormat {
 public:
  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override {}
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}

 private:
  bool first_ = true;
};

}  // namespace granite::coordinator

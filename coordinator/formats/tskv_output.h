// TSKV output: one line per row of name=value pairs separated by tabs, names and values
// TabSeparated-escaped, names with '=' escaped as \= too (as ClickHouse writes them). Part of the
// output formats (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes name=value lines.
// Thread-safety: none.
class TskvOutput : public OutputFormat {
 public:
  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}

 private:
  std::vector<std::string> prefixes_;  // "name=" escaped, with the tab before it after the first
};

}  // namespace granite::coordinator

// Native output: ClickHouse's column-oriented block format as its HTTP interface sends it (no
// block info): per block the column count and row count as varints, then per column its name,
// its type name and its data (binary_encoding.h). An empty result is no bytes at all, as ClickHouse
// sends it. Part of the output formats (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"
#include "coordinator/formats/row_batcher.h"

namespace granite::coordinator {

// Writes the rows in Native blocks of kBlockRows rows (the last one shorter), whatever blocks
// they arrive in: a streamed result's block boundaries depend on the workers' timing, the
// output's must not.
// Thread-safety: none.
class NativeOutput : public OutputFormat {
 public:
  static constexpr size_t kBlockRows = 8192;

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override;
  std::string_view ContentType() const override { return "application/octet-stream"; }

 private:
  // Appends one Native block.
  void WriteBlock(const core::Block& block, std::string* out) const;

  std::vector<std::string> names_;
  std::vector<core::TypeId> types_;
  RowBatcher batcher_{kBlockRows};
};

}  // namespace granite::coordinator

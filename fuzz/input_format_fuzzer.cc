// Fuzz target: one input format (coordinator/formats/input_parser.h), named by the compile
// definition GRANITE_FUZZ_FORMAT. The first input byte picks the column types (three columns
// out of all types) and the chunk limit; the rest is the data. The data is parsed whole
// (ParseInput) and chunk by chunk (InputParser with small chunks), and both must agree: the
// same success, and on success the same number of rows.
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/formats/input_parser.h"
#include "core/types.h"
#include "fuzz/fuzz_check.h"

#ifndef GRANITE_FUZZ_FORMAT
#define GRANITE_FUZZ_FORMAT "CSV"
#endif

namespace coordinator = granite::coordinator;
using granite::core::TypeId;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > 1 << 16) return 0;
  const uint8_t selector = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // The *WithNames variant where the format has one.
  std::string format = std::string(GRANITE_FUZZ_FORMAT) + "WithNames";
  if (!(selector & 0x80) || !coordinator::IsInputFormat(format)) format = GRANITE_FUZZ_FORMAT;
  // Columns a, b, c: a String, an integer/float/date type picked by the selector, and a String.
  static constexpr TypeId kMiddle[8] = {TypeId::kUInt8,   TypeId::kInt64,   TypeId::kFloat32,
                                        TypeId::kFloat64, TypeId::kDate,    TypeId::kDateTime,
                                        TypeId::kInt16,   TypeId::kUInt64};
  std::vector<std::string> names = {"a", "b", "c"};
  std::vector<TypeId> types = {TypeId::kString, kMiddle[selector & 7],
                               (selector & 8) ? TypeId::kInt32 : TypeId::kString};
  if (!coordinator::IsInputFormat(format)) return 0;

  absl::StatusOr<granite::core::Block> whole = coordinator::ParseInput(format, text, names, types);

  absl::StatusOr<coordinator::InputParser> parser =
      coordinator::InputParser::Create(format, names, types);
  FUZZ_CHECK(parser.ok(), "a known format has a parser");
  coordinator::InputLimits limits;
  limits.max_rows = 1 + ((selector >> 4) & 3);
  limits.max_bytes = 16;
  std::string_view rest = text;
  size_t rows = 0;
  bool failed = false;
  // Every call consumes at least one row or all of the text (Parquet: reads a row group and
  // consumes nothing until its last), so this ends; the bound is a guard.
  for (size_t calls = 0; calls <= text.size() + 2; ++calls) {
    size_t consumed = 0;
    absl::StatusOr<granite::core::Block> block = parser->Parse(rest, /*last=*/true, limits, &consumed);
    if (!block.ok()) {
      failed = true;
      break;
    }
    FUZZ_CHECK(consumed <= rest.size(), "consumed within the data");
    for (const auto& column : block->columns) {
      FUZZ_CHECK(column->size() == block->rows(), "columns of a block are equally long");
    }
    rows += block->rows();
    rest.remove_prefix(consumed);
    if (rest.empty()) break;
    FUZZ_CHECK(consumed > 0 || block->rows() > 0, "a chunked parse advances");
  }
  FUZZ_CHECK(failed || rest.empty(), "the chunked parse ends");
  FUZZ_CHECK(whole.ok() == !failed, "whole and chunked parses agree on success");
  if (whole.ok()) {
    FUZZ_CHECK(whole->rows() == rows, "whole and chunked parses give the same rows");
    FUZZ_CHECK(whole->columns.size() == types.size(), "one column per type");
  }
  return 0;
}

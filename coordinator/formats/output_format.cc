#include "coordinator/formats/output_format.h"

#include "coordinator/formats/arrow_output.h"
#include "coordinator/formats/csv_output.h"
#include "coordinator/formats/json_compact_each_row_output.h"
#include "coordinator/formats/json_each_row_output.h"
#include "coordinator/formats/json_output.h"
#include "coordinator/formats/markdown_output.h"
#include "coordinator/formats/native_output.h"
#include "coordinator/formats/parquet_output.h"
#include "coordinator/formats/pretty_output.h"
#include "coordinator/formats/row_binary_output.h"
#include "coordinator/formats/tab_separated_output.h"
#include "coordinator/formats/tskv_output.h"
#include "coordinator/formats/values_output.h"
#include "coordinator/formats/vertical_output.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

// Discards the result (FORMAT Null): the query still runs to completion.
class NullOutput : public OutputFormat {
 public:
  void Begin(const std::vector<std::string>&, const std::vector<core::TypeId>&,
             std::string*) override {}
  void Write(const core::Block&, std::string*) override {}
  void End(std::string*) override {}
};

}  // namespace

absl::StatusOr<std::unique_ptr<OutputFormat>> MakeOutputFormat(std::string_view name,
                                                               const OutputOptions& options) {
  const bool quote = options.json_quote_64bit_integers;
  if (name == "TabSeparated" || name == "TSV") {
    return std::make_unique<TabSeparatedOutput>(false, false, false);
  }
  if (name == "TabSeparatedRaw" || name == "TSVRaw") {
    return std::make_unique<TabSeparatedOutput>(false, false, true);
  }
  if (name == "TabSeparatedWithNames" || name == "TSVWithNames") {
    return std::make_unique<TabSeparatedOutput>(true, false, false);
  }
  if (name == "TabSeparatedWithNamesAndTypes" || name == "TSVWithNamesAndTypes") {
    return std::make_unique<TabSeparatedOutput>(true, true, false);
  }
  if (name == "CSV") return std::make_unique<CsvOutput>(false, false);
  if (name == "CSVWithNames") return std::make_unique<CsvOutput>(true, false);
  if (name == "CSVWithNamesAndTypes") return std::make_unique<CsvOutput>(true, true);
  if (name == "JSONEachRow") return std::make_unique<JsonEachRowOutput>(quote);
  if (name == "JSONCompactEachRow") return std::make_unique<JsonCompactEachRowOutput>(quote);
  if (name == "JSON") return std::make_unique<JsonOutput>(false, quote, options.write_statistics);
  if (name == "JSONCompact") {
    return std::make_unique<JsonOutput>(true, quote, options.write_statistics);
  }
  if (name == "Values") return std::make_unique<ValuesOutput>();
  if (name == "Markdown" || name == "MD") return std::make_unique<MarkdownOutput>();
  if (name == "TSKV") return std::make_unique<TskvOutput>();
  if (name == "RowBinary") return std::make_unique<RowBinaryOutput>(false, false);
  if (name == "RowBinaryWithNames") return std::make_unique<RowBinaryOutput>(true, false);
  if (name == "RowBinaryWithNamesAndTypes") return std::make_unique<RowBinaryOutput>(true, true);
  if (name == "Native") return std::make_unique<NativeOutput>();
  if (name == "ArrowStream") return std::make_unique<ArrowOutput>(false, options.arrow);
  if (name == "Arrow") return std::make_unique<ArrowOutput>(true, options.arrow);
  if (name == "Parquet") return std::make_unique<ParquetOutput>(options.parquet);
  if (name == "PrettyCompact" || name == "PrettyCompactMonoBlock") {
    return std::make_unique<PrettyOutput>(true);
  }
  if (name == "Pretty") return std::make_unique<PrettyOutput>(false);
  if (name == "Vertical") return std::make_unique<VerticalOutput>();
  if (name == "Null") return std::make_unique<NullOutput>();
  return core::Error(core::ErrorCode::kUnknownFormat, "Unknown format " + std::string(name));
}

}  // namespace granite::coordinator

#include "worker/morsel_source.h"

#include <algorithm>

#include "core/error.h"
#include "core/status_macros.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

namespace {

constexpr size_t kNumbersPerMorsel = 65536;
constexpr size_t kGranulesPerMorsel = 8;

}  // namespace

absl::StatusOr<std::unique_ptr<MorselSource>> MorselSource::Open(const pb::Fragment& fragment,
                                                                 storage::Store* store) {
  std::unique_ptr<MorselSource> source(new MorselSource());
  const pb::Source& from = fragment.source();
  if (from.has_numbers()) {
    source->numbers_ = true;
    source->ordered_ = !from.numbers().multithreaded();
    uint64_t count = from.numbers().count();
    uint64_t workers = std::max<uint32_t>(1, fragment.worker_count());
    uint64_t index = fragment.worker_index();
    // Slice [count * i / n, count * (i + 1) / n) without overflow for large counts.
    auto bound = [&](uint64_t i) {
      return static_cast<uint64_t>(static_cast<unsigned __int128>(count) * i / workers);
    };
    uint64_t begin = bound(index), end = bound(index + 1);
    source->total_rows_ = end - begin;
    for (uint64_t at = begin; at < end; at += kNumbersPerMorsel) {
      source->morsels_.push_back(Morsel{0, at, std::min<uint64_t>(end, at + kNumbersPerMorsel)});
    }
    return source;
  }
  source->table_ = store->GetTable(from.table());
  if (!source->table_) {
    return core::Error(core::ErrorCode::kUnknownTable,
                       "Table default." + from.table() + " does not exist on this worker");
  }
  const storage::TableSchema& schema = source->table_->schema();
  for (const std::string& name : from.columns()) {
    int index = schema.ColumnIndex(name);
    if (index < 0) {
      return core::Error(core::ErrorCode::kNoSuchColumnInTable,
                         "There is no column " + name + " in table " + from.table());
    }
    source->column_indexes_.push_back(index);
  }
  source->snapshot_ = source->table_->Snapshot();
  const auto& parts = source->snapshot_->parts;
  for (size_t p = 0; p < parts.size(); ++p) {
    size_t granules = parts[p]->granule_count();
    source->total_rows_ += parts[p]->rows();
    for (size_t g = 0; g < granules; g += kGranulesPerMorsel) {
      source->morsels_.push_back(Morsel{p, g, std::min(granules, g + kGranulesPerMorsel)});
    }
  }
  return source;
}

size_t MorselSource::parts_total() const { return snapshot_ ? snapshot_->parts.size() : 0; }

absl::StatusOr<core::Block> MorselSource::Read(const Morsel& morsel) const {
  core::Block block;
  if (numbers_) {
    auto column = std::make_shared<core::Column>(core::TypeId::kUInt64);
    column->Resize(morsel.end - morsel.begin);
    uint64_t* data = column->Data<uint64_t>();
    for (uint64_t i = morsel.begin; i < morsel.end; ++i) data[i - morsel.begin] = i;
    block.rows_without_columns = morsel.end - morsel.begin;
    block.columns.push_back(std::move(column));
    return block;
  }
  const storage::Part& part = *snapshot_->parts[morsel.part];
  size_t rows = 0;
  for (size_t g = morsel.begin; g < morsel.end; ++g) rows += part.granule_rows(g);
  block.rows_without_columns = rows;
  for (size_t index : column_indexes_) {
    ASSIGN_OR_RETURN(core::ColumnPtr column, part.ReadColumn(index, morsel.begin, morsel.end));
    block.columns.push_back(std::move(column));
  }
  return block;
}

}  // namespace granite::worker

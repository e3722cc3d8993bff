// Fuzz target: the reader of the on-disk part format (storage/part_format.h, storage/part.h) with
// its checksums bypassed, so the fuzzer reaches the decoders behind them. The first byte picks:
//   0: DecodePartMeta   1: DecodeColumnMarks (type from the next byte)   2: DecodePrimaryIndex
//   3: AppendStringGranule, and DecodeSparseGranule as String, Nullable(UInt32) and
//      FixedString(3), and SparseStringSizes (row count from the next byte)
//   4+: a whole part of a fixed schema (a UInt32 and a String column) written to an in-memory
//       file system (fuzz/memory_file_system.h: no system calls per run) and read back with
//       Part::Load, ReadColumn and ReadStringSizes. The input gives the granules' row counts
//       and, per column and granule, a block (raw, then LZ4-compressed by
//       the target, or taken as compressed with a claimed raw size); the target writes meta and
//       marks with valid checksums, so only the block contents and sizes are adversarial. Bits
//       3 and 4 of the first byte make the UInt32 and the String column sparse; bit 5 writes a
//       compact part (both columns' blocks in data.bin, their marks in data.mrk).
// Sealed files (meta, marks, index) get a valid trailing checksum (Seal) before decoding.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/block_codec.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/memory_file_system.h"
#include "storage/coding.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/part_format.h"
#include "xxhash.h"

namespace {

namespace storage = granite::storage;
using granite::core::TypeId;

// Reads little-endian fields from the fuzz input; past its end every read gives zeros.
class Input {
 public:
  explicit Input(std::string_view bytes) : in_(bytes) {}
  uint8_t U8() { return Take(1).empty() ? 0 : static_cast<uint8_t>(last_[0]); }
  uint16_t U16() {
    std::string_view b = Take(2);
    uint16_t v = 0;
    std::memcpy(&v, b.data(), b.size());
    return v;
  }
  std::string_view Take(size_t n) {
    n = std::min(n, in_.size());
    last_ = in_.substr(0, n);
    in_.remove_prefix(n);
    return last_;
  }

 private:
  std::string_view in_;
  std::string_view last_;
};

void FuzzWholePart(uint8_t mode, Input in) {
  static std::shared_ptr<storage::FileSystem> fs = [] {
    auto memory = std::make_shared<granite::fuzz::MemoryFileSystem>();
    (void)memory->CreateDirs("/fuzz");
    return memory;
  }();
  auto schema = std::make_shared<storage::TableSchema>();
  schema->name = "t";
  schema->columns = {{"n", TypeId::kUInt32}, {"s", TypeId::kString}};

  const size_t granules = 1 + in.U8() % 4;
  const bool compact = (mode >> 5) & 1;
  storage::PartMeta meta;
  meta.columns = schema->columns;
  meta.type = compact ? storage::PartType::kCompact : storage::PartType::kWide;
  for (int c = 0; c < 2; ++c) {
    meta.serializations.push_back((mode >> (3 + c)) & 1 ? storage::ColumnSerialization::kSparse
                                                        : storage::ColumnSerialization::kDefault);
  }
  for (size_t g = 0; g < granules; ++g) {
    meta.granule_rows.push_back(in.U16() % 2048);
    meta.rows += meta.granule_rows.back();
  }
  const std::string dir = "/fuzz/all_1_1_0";
  (void)fs->RemoveAll(dir);
  if (!fs->CreateDir(dir).ok()) return;
  if (!storage::WriteFile(*fs, dir + "/" + storage::kMetaFileName, storage::EncodePartMeta(meta)).ok()) return;
  std::vector<storage::ColumnMarks> all_marks;
  std::string compact_bin;  // the compact part's data.bin: every column's blocks in turn
  for (size_t c = 0; c < schema->columns.size(); ++c) {
    storage::ColumnMarks marks;
    std::string own_bin;
    std::string& bin = compact ? compact_bin : own_bin;
    for (size_t g = 0; g < granules; ++g) {
      const uint8_t flags = in.U8();
      std::string_view chunk = in.Take(in.U16() % 4096);
      storage::GranuleMark mark;
      std::string block;
      if (flags & 1) {  // compressed here: the raw bytes are the fuzzer's
        block = granite::core::CompressLz4(chunk);
        mark.raw_size = chunk.size();
      } else {  // taken as compressed, with a claimed raw size near the granule's
        block = std::string(chunk);
        // UInt32 values and String length prefixes are both 4 bytes a row.
        mark.raw_size = meta.granule_rows[g] * 4 + ((flags & 2) ? in.U16() : 0);
      }
      mark.offset = bin.size();
      mark.compressed_size = block.size();
      mark.checksum = XXH64(block.data(), block.size(), 0);
      bin += block;
      marks.marks.push_back(mark);
      marks.bounds.emplace_back();
    }
    if (compact) {
      all_marks.push_back(std::move(marks));
      continue;
    }
    if (!storage::WriteFile(*fs, dir + "/" + storage::MarksFileName(c),
                            storage::EncodeColumnMarks(marks, schema->columns[c].type)).ok() ||
        !storage::WriteFile(*fs, dir + "/" + storage::DataFileName(c), bin).ok()) {
      return;
    }
  }
  if (compact &&
      (!storage::WriteFile(*fs, dir + "/" + storage::kCompactMarksFileName,
                           storage::EncodeCompactMarks(all_marks, {TypeId::kUInt32,
                                                                   TypeId::kString}))
            .ok() ||
       !storage::WriteFile(*fs, dir + "/" + storage::kCompactDataFileName, compact_bin).ok())) {
    return;
  }
  auto part = storage::Part::Load(fs, schema, dir, storage::PartName{1, 1, 0, "all"});
  if (!part.ok()) return;
  for (size_t c = 0; c < schema->columns.size(); ++c) {
    auto column = (*part)->ReadColumn(c, 0, granules);
    if (column.ok()) FUZZ_CHECK((*column)->size() == (*part)->rows(), "a column has all rows");
    for (size_t g = 0; g < granules; ++g) {
      auto one = (*part)->ReadColumn(c, g, g + 1);
      if (one.ok()) FUZZ_CHECK((*one)->size() == (*part)->granule_rows(g), "a granule's rows");
    }
  }
  auto sizes = (*part)->ReadStringSizes(1, 0, granules);
  if (sizes.ok()) FUZZ_CHECK((*sizes)->size() == (*part)->rows(), "a size per row");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 1 << 16) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (mode) {
    case 0: {
      auto meta = storage::DecodePartMeta(storage::Seal(std::string(rest)), "fuzz");
      if (meta.ok()) {
        uint64_t rows = 0;
        for (uint32_t r : meta->granule_rows) rows += r;
        (void)rows;
      }
      break;
    }
    case 1: {
      if (rest.empty()) return 0;
      const auto type = static_cast<TypeId>(static_cast<uint8_t>(rest[0]) % granite::core::kTypeCount);
      (void)storage::DecodeColumnMarks(storage::Seal(std::string(rest.substr(1))), type, "fuzz");
      break;
    }
    case 2:
      (void)storage::DecodePrimaryIndex(storage::Seal(std::string(rest)), "fuzz");
      break;
    case 3: {
      if (rest.empty()) return 0;
      const size_t rows = static_cast<uint8_t>(rest[0]);
      granite::core::Column out(TypeId::kString);
      if (storage::AppendStringGranule(rest.substr(1), rows, &out)) {
        FUZZ_CHECK(out.size() == rows, "a granule appends its rows");
      }
      for (TypeId type : {TypeId::kString, granite::core::MakeNullable(TypeId::kUInt32),
                          granite::core::MakeFixedString(3)}) {
        granite::core::Column strings(type);
        std::vector<uint8_t> nulls;
        std::vector<char> values(rows * 4);
        if (storage::DecodeSparseGranule(rest.substr(1), rows, type, values.data(), &strings,
                                         &nulls)) {
          FUZZ_CHECK(!granite::core::HasStringLayout(type) || strings.size() == rows,
                     "a sparse granule appends its rows");
          FUZZ_CHECK(!granite::core::IsNullable(type) || nulls.size() == rows,
                     "a sparse granule has a null per row");
        }
      }
      std::vector<uint64_t> sizes(rows);
      (void)storage::SparseStringSizes(rest.substr(1), rows, sizes.data());
      break;
    }
    default:
      FuzzWholePart(mode, Input(rest));
  }
  return 0;
}

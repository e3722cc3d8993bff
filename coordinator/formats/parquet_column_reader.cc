#include "coordinator/formats/parquet_column_reader.h"

#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/parquet_compression.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

absl::Status Corrupt(std::string_view column, std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Parquet column '", std::string(column),
                                  "': ", std::string(why)));
}

// Appends T's default value (0, "", N zero bytes) to a column of scalar type T.
void AppendDefault(core::Column* column) {
  switch (core::BaseOf(column->type())) {
    case core::TypeId::kString: column->AppendString(""); break;
    case core::TypeId::kFixedString:
      column->AppendString(std::string(core::FixedStringSizeOf(column->type()), '\0'));
      break;
    default: column->Resize(column->size() + 1); break;
  }
}

// Decodes the pages of one column chunk into levels and values, then assembles its rows.
// Thread-safety: none.
class ChunkReader {
 public:
  ChunkReader(const ParquetColumnChunk& chunk, const ParquetLeaf& leaf)
      : chunk_(chunk), leaf_(leaf), values_(leaf.read_type),
        sink_(leaf.conversion, leaf.physical_width(), &values_) {}

  absl::Status ReadPages(std::string_view file);
  absl::StatusOr<core::Column> Assemble(int64_t rows);

 private:
  absl::Status Bad(std::string_view why) const { return Corrupt(leaf_.name, why); }
  absl::Status ReadDictionaryPage(std::string_view page, int32_t entries);
  // Reads `count` levels of maximum `max_level` from RLE data into *out (appending).
  absl::Status ReadLevels(std::string_view data, size_t count, int max_level,
                          std::vector<uint16_t>* out);
  absl::Status ReadDataPage(const ParquetPageHeader& header, std::string_view page, bool v2);
  // Decodes `count` values of `encoding` from `data` into the values column.
  absl::Status DecodeValues(int32_t encoding, std::string_view data, size_t count);
  absl::Status DecodePlain(std::string_view data, size_t count, ParquetValueSink* sink);
  absl::Status DecodeDictionaryIndexes(std::string_view data, size_t count);
  absl::Status DecodeDeltaBinary(int32_t encoding, std::string_view data, size_t count);

  const ParquetColumnChunk& chunk_;
  const ParquetLeaf& leaf_;
  core::Column values_;  // the defined values, in order
  ParquetValueSink sink_;
  std::optional<core::Column> dictionary_;
  std::vector<uint16_t> repetition_;
  std::vector<uint16_t> definition_;
  int64_t entries_ = 0;  // level entries read
};

absl::Status ChunkReader::ReadPages(std::string_view file) {
  int64_t start = chunk_.data_page_offset;
  if (chunk_.dictionary_page_offset > 0 && chunk_.dictionary_page_offset < start) {
    start = chunk_.dictionary_page_offset;
  }
  if (start < 0 || chunk_.total_compressed_size < 0 ||
      static_cast<uint64_t>(start) > file.size() ||
      static_cast<uint64_t>(chunk_.total_compressed_size) > file.size() - start) {
    return Bad("the column chunk lies outside the file");
  }
  std::string_view bytes = file.substr(start, chunk_.total_compressed_size);
  size_t pos = 0;
  while (entries_ < chunk_.num_values) {
    if (pos >= bytes.size()) {
      return Bad(absl::StrCat("the column chunk ends after ", entries_, " of ",
                              chunk_.num_values, " values"));
    }
    size_t header_size;
    ASSIGN_OR_RETURN(ParquetPageHeader header,
                     ParseParquetPageHeader(bytes.substr(pos), &header_size));
    pos += header_size;
    if (static_cast<size_t>(header.compressed_size) > bytes.size() - pos) {
      return Bad("a page runs past its column chunk");
    }
    std::string_view page = bytes.substr(pos, header.compressed_size);
    pos += header.compressed_size;
    switch (header.type) {
      case parquet::kDictionaryPage: {
        ASSIGN_OR_RETURN(std::string plain,
                         DecompressParquetPage(chunk_.codec, page, header.uncompressed_size));
        RETURN_IF_ERROR(ReadDictionaryPage(plain, header.num_values));
        break;
      }
      case parquet::kDataPage: {
        ASSIGN_OR_RETURN(std::string plain,
                         DecompressParquetPage(chunk_.codec, page, header.uncompressed_size));
        RETURN_IF_ERROR(ReadDataPage(header, plain, /*v2=*/false));
        break;
      }
      case parquet::kDataPageV2:
        RETURN_IF_ERROR(ReadDataPage(header, page, /*v2=*/true));
        break;
      default:
        break;  // index pages carry no values
    }
  }
  return absl::OkStatus();
}

absl::Status ChunkReader::ReadDictionaryPage(std::string_view page, int32_t entries) {
  dictionary_.emplace(leaf_.read_type);
  ParquetValueSink sink(leaf_.conversion, leaf_.physical_width(), &*dictionary_);
  return DecodePlain(page, static_cast<size_t>(entries), &sink);
}

absl::Status ChunkReader::ReadLevels(std::string_view data, size_t count, int max_level,
                                     std::vector<uint16_t>* out) {
  std::vector<uint32_t> levels(count);
  ParquetRleDecoder decoder(data, BitWidthOf(static_cast<uint32_t>(max_level)));
  RETURN_IF_ERROR(decoder.Decode(count, levels.data()));
  for (uint32_t level : levels) {
    if (level > static_cast<uint32_t>(max_level)) return Bad("a level is over its maximum");
    out->push_back(static_cast<uint16_t>(level));
  }
  return absl::OkStatus();
}

absl::Status ChunkReader::ReadDataPage(const ParquetPageHeader& header, std::string_view page,
                                       bool v2) {
  const size_t count = static_cast<size_t>(header.num_values);
  if (count > chunk_.num_values - entries_) return Bad("pages hold more values than the chunk");
  std::string decompressed;
  std::string_view values;
  // DATA_PAGE (v1): the whole page is compressed; each level run is prefixed by its 4-byte
  // length. DATA_PAGE_V2: the levels come first, uncompressed, with lengths in the header.
  auto levels = [&](std::string_view* data, int max_level,
                    std::vector<uint16_t>* out) -> absl::Status {
    if (max_level == 0) return absl::OkStatus();
    uint32_t size = 0;
    if (data->size() < 4) return Bad("the levels are cut short");
    std::memcpy(&size, data->data(), 4);
    if (size > data->size() - 4) return Bad("the levels run past the page");
    RETURN_IF_ERROR(ReadLevels(data->substr(4, size), count, max_level, out));
    data->remove_prefix(4 + size);
    return absl::OkStatus();
  };
  if (!v2) {
    values = page;
    RETURN_IF_ERROR(levels(&values, leaf_.max_repetition, &repetition_));
    RETURN_IF_ERROR(levels(&values, leaf_.max_definition, &definition_));
  } else {
    const size_t level_bytes =
        static_cast<size_t>(header.repetition_bytes) + static_cast<size_t>(header.definition_bytes);
    if (level_bytes > page.size() || level_bytes > static_cast<size_t>(header.uncompressed_size)) {
      return Bad("the levels run past the page");
    }
    if (leaf_.max_repetition > 0) {
      RETURN_IF_ERROR(ReadLevels(page.substr(0, header.repetition_bytes), count,
                                 leaf_.max_repetition, &repetition_));
    }
    if (leaf_.max_definition > 0) {
      RETURN_IF_ERROR(ReadLevels(page.substr(header.repetition_bytes, header.definition_bytes),
                                 count, leaf_.max_definition, &definition_));
    }
    values = page.substr(level_bytes);
    if (header.values_compressed) {
      ASSIGN_OR_RETURN(decompressed,
                       DecompressParquetPage(chunk_.codec, values,
                                             header.uncompressed_size - level_bytes));
      values = decompressed;
    }
  }
  size_t defined = count;
  if (leaf_.max_definition > 0) {
    defined = 0;
    for (size_t i = definition_.size() - count; i < definition_.size(); ++i) {
      defined += definition_[i] == leaf_.max_definition;
    }
  }
  entries_ += static_cast<int64_t>(count);
  return DecodeValues(header.encoding, values, defined);
}

absl::Status ChunkReader::DecodePlain(std::string_view data, size_t count,
                                      ParquetValueSink* sink) {
  if (leaf_.physical == parquet::kBoolean) {
    if (count > data.size() * 8) return Bad("PLAIN booleans run past the page");
    for (size_t i = 0; i < count; ++i) sink->AppendBool((data[i / 8] >> (i % 8)) & 1);
    return absl::OkStatus();
  }
  if (leaf_.physical == parquet::kByteArray) {
    size_t pos = 0;
    return sink->AppendPlainBinary(data, &pos, count);
  }
  const size_t width = static_cast<size_t>(leaf_.physical_width());
  if (width == 0 || count > data.size() / width) return Bad("PLAIN values run past the page");
  return sink->AppendFixed(data, count);
}

absl::Status ChunkReader::DecodeDictionaryIndexes(std::string_view data, size_t count) {
  if (!dictionary_.has_value()) return Bad("dictionary indexes without a dictionary page");
  if (count == 0) return absl::OkStatus();
  if (data.empty()) return Bad("a dictionary page's bit width is missing");
  const int width = static_cast<uint8_t>(data[0]);
  if (width > 32) return Bad("dictionary indexes are over 32 bits");
  std::vector<uint32_t> indexes(count);
  ParquetRleDecoder decoder(data.substr(1), width);
  RETURN_IF_ERROR(decoder.Decode(count, indexes.data()));
  const size_t size = dictionary_->size();
  for (uint32_t index : indexes) {
    if (index >= size) return Bad(absl::StrCat("dictionary index ", index, " of ", size));
  }
  values_.AppendTaken(*dictionary_, indexes.data(), count);
  return absl::OkStatus();
}

absl::Status ChunkReader::DecodeDeltaBinary(int32_t encoding, std::string_view data,
                                            size_t count) {
  size_t pos = 0;
  std::vector<int64_t> numbers;
  if (encoding == parquet::kDeltaBinaryPacked) {
    RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, &pos, count, &numbers));
    if (numbers.size() != count) return Bad("DELTA_BINARY_PACKED holds too few values");
    const int width = leaf_.physical_width();
    if (width != 4 && width != 8) return Bad("DELTA_BINARY_PACKED over a non-integer");
    std::string packed(count * width, '\0');
    for (size_t i = 0; i < count; ++i) {
      if (width == 4) {
        const int32_t narrow = static_cast<int32_t>(numbers[i]);
        std::memcpy(packed.data() + i * 4, &narrow, 4);
      } else {
        std::memcpy(packed.data() + i * 8, &numbers[i], 8);
      }
    }
    return sink_.AppendFixed(packed, count);
  }
  // DELTA_BYTE_ARRAY: prefix lengths (shared with the previous value), then the suffixes as
  // DELTA_LENGTH_BYTE_ARRAY. DELTA_LENGTH_BYTE_ARRAY: lengths, then the bytes back to back.
  std::vector<int64_t> prefixes;
  if (encoding == parquet::kDeltaByteArray) {
    RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, &pos, count, &prefixes));
    if (prefixes.size() != count) return Bad("DELTA_BYTE_ARRAY holds too few prefixes");
  }
  RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, &pos, count, &numbers));
  if (numbers.size() != count) return Bad("a delta byte array holds too few lengths");
  std::string previous, value;
  for (size_t i = 0; i < count; ++i) {
    const int64_t length = numbers[i];
    if (length < 0 || static_cast<uint64_t>(length) > data.size() - pos) {
      return Bad("a delta byte array value runs past the page");
    }
    std::string_view suffix = data.substr(pos, length);
    pos += length;
    if (prefixes.empty()) {
      RETURN_IF_ERROR(sink_.AppendBinary(suffix));
      continue;
    }
    if (prefixes[i] < 0 || static_cast<uint64_t>(prefixes[i]) > previous.size()) {
      return Bad("a DELTA_BYTE_ARRAY prefix is longer than the previous value");
    }
    value.assign(previous, 0, prefixes[i]);
    value.append(suffix);
    RETURN_IF_ERROR(sink_.AppendBinary(value));
    previous.swap(value);
  }
  return absl::OkStatus();
}

absl::Status ChunkReader::DecodeValues(int32_t encoding, std::string_view data, size_t count) {
  switch (encoding) {
    case parquet::kPlain:
      return DecodePlain(data, count, &sink_);
    case parquet::kPlainDictionary:
    case parquet::kRleDictionary:
      return DecodeDictionaryIndexes(data, count);
    case parquet::kRle: {
      if (leaf_.physical != parquet::kBoolean) return Bad("RLE values of a non-boolean");
      uint32_t size = 0;
      if (data.size() < 4) return Bad("RLE booleans are cut short");
      std::memcpy(&size, data.data(), 4);
      if (size > data.size() - 4) return Bad("RLE booleans run past the page");
      std::vector<uint32_t> bits(count);
      ParquetRleDecoder decoder(data.substr(4, size), 1);
      RETURN_IF_ERROR(decoder.Decode(count, bits.data()));
      for (uint32_t bit : bits) sink_.AppendBool(bit != 0);
      return absl::OkStatus();
    }
    case parquet::kDeltaBinaryPacked:
    case parquet::kDeltaLengthByteArray:
    case parquet::kDeltaByteArray:
      return DecodeDeltaBinary(encoding, data, count);
    case parquet::kByteStreamSplit: {
      const size_t width = static_cast<size_t>(leaf_.physical_width());
      if (width == 0 || count > data.size() / width) {
        return Bad("BYTE_STREAM_SPLIT values run past the page");
      }
      std::string joined(count * width, '\0');
      for (size_t b = 0; b < width; ++b) {
        for (size_t i = 0; i < count; ++i) joined[i * width + b] = data[b * count + i];
      }
      return sink_.AppendFixed(joined, count);
    }
    default:
      return Bad(absl::StrCat("encoding ", encoding, " is not supported"));
  }
}

absl::StatusOr<core::Column> ChunkReader::Assemble(int64_t rows) {
  const size_t defined = values_.size();
  if (leaf_.max_definition == 0 && leaf_.max_repetition == 0) {
    if (static_cast<int64_t>(defined) != rows) return Bad("the chunk's values are not its rows");
    return std::move(values_);
  }
  core::Column result(leaf_.column_type());
  size_t next = 0;  // the next defined value
  auto append_leaf = [&](core::Column* leaf_column, uint16_t definition) -> absl::Status {
    if (definition == leaf_.max_definition) {
      if (next >= defined) return Bad("more defined levels than values");
      leaf_column->AppendFrom(values_, next++);
    } else if (leaf_column->nullable()) {
      leaf_column->AppendNull();
    } else if (leaf_.null_struct_default) {
      AppendDefault(leaf_column);
    } else {
      return Bad("an undefined value in a REQUIRED field");
    }
    return absl::OkStatus();
  };
  const size_t entries = definition_.size();
  if (leaf_.max_repetition == 0) {
    if (static_cast<int64_t>(entries) != rows) return Bad("the chunk's levels are not its rows");
    // Writers mark most columns OPTIONAL even when no value is NULL: then the values are the
    // column. Else the values are spread over the rows at once (Take), NULL rows taking the
    // type's default (visible if the NULLs become defaults: input_format_null_as_default).
    if (defined == entries) return std::move(values_);
    if (!result.nullable()) {
      for (size_t i = 0; i < entries; ++i) RETURN_IF_ERROR(append_leaf(&result, definition_[i]));
    } else {
      const uint32_t default_at = static_cast<uint32_t>(defined);
      AppendDefault(&values_);
      std::vector<uint32_t> spread(entries);
      std::vector<uint8_t> nulls(entries);
      for (size_t i = 0; i < entries; ++i) {
        nulls[i] = definition_[i] != leaf_.max_definition;
        spread[i] = nulls[i] ? default_at : static_cast<uint32_t>(next++);
      }
      if (next != defined) return Bad("the defined levels are not the values");
      result = values_.Take(spread.data(), entries);
      result.MakeNullable();
      std::memcpy(result.MutableNullMap(), nulls.data(), entries);
    }
  } else {
    // One column per array level, outermost first; a list stays open while its elements come.
    const int depth = leaf_.max_repetition;
    std::vector<core::Column*> lists(depth);
    lists[0] = &result;
    for (int k = 1; k < depth; ++k) lists[k] = &lists[k - 1]->MutableNested();
    core::Column* leaf_column = &lists[depth - 1]->MutableNested();
    std::vector<bool> open(depth, false);
    int64_t row_count = 0;
    for (size_t i = 0; i < repetition_.size(); ++i) {
      const int repetition = repetition_[i];
      const uint16_t definition = leaf_.max_definition > 0 ? definition_[i] : 0;
      if (i == 0 && repetition != 0) return Bad("the first level does not start a row");
      row_count += repetition == 0;
      // Close the lists this entry does not continue, innermost first.
      for (int k = depth - 1; k >= repetition; --k) {
        if (open[k]) lists[k]->AppendArrayEnd();
        open[k] = false;
      }
      bool reached_leaf = true;
      for (int k = repetition; k < depth; ++k) {
        if (definition < leaf_.element_definition[k]) {  // an empty (or NULL) list
          lists[k]->AppendArrayEnd();
          reached_leaf = false;
          break;
        }
        open[k] = true;
      }
      if (reached_leaf) RETURN_IF_ERROR(append_leaf(leaf_column, definition));
    }
    for (int k = depth - 1; k >= 0; --k) {
      if (open[k]) lists[k]->AppendArrayEnd();
    }
    if (row_count != rows) return Bad("the chunk's row count is not its row group's");
  }
  if (next != defined) return Bad("more values than defined levels");
  return result;
}

}  // namespace

core::TypeId ParquetLeaf::column_type() const {
  core::TypeId type = core::WithNullable(read_type, element_nullable);
  for (int k = 0; k < max_repetition; ++k) type = core::MakeArray(type);
  return type;
}

int ParquetLeaf::physical_width() const {
  switch (physical) {
    case parquet::kInt32:
    case parquet::kFloat: return 4;
    case parquet::kInt64:
    case parquet::kDouble: return 8;
    case parquet::kInt96: return 12;
    case parquet::kFixedLenByteArray: return type_length;
    default: return 0;
  }
}

absl::StatusOr<core::Column> ReadParquetColumnChunk(std::string_view file,
                                                    const ParquetColumnChunk& chunk,
                                                    const ParquetLeaf& leaf, int64_t rows) {
  if (chunk.physical != leaf.physical) {
    return Corrupt(leaf.name, "the chunk's physical type is not the schema's");
  }
  ChunkReader reader(chunk, leaf);
  RETURN_IF_ERROR(reader.ReadPages(file));
  return reader.Assemble(rows);
}

}  // namespace granite::coordinator

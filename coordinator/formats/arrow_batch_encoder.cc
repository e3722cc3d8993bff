#include "coordinator/formats/arrow_batch_encoder.h"

#include "core/tuple_type.h"

#include <cstring>
#include <limits>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/arrow_compression.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

// Appends nodes and buffers to a batch, each buffer 8-byte aligned and compressed as asked.
class BodyBuilder {
 public:
  BodyBuilder(ArrowBatch* batch, ArrowWriteOptions::Codec codec) : batch_(batch), codec_(codec) {}

  void AddNode(size_t length, size_t null_count) {
    batch_->nodes.emplace_back(static_cast<int64_t>(length), static_cast<int64_t>(null_count));
  }
  void AddBuffer(std::string_view bytes) {
    std::string& body = batch_->body;
    const size_t offset = body.size();
    if (!bytes.empty()) {
      if (codec_ == ArrowWriteOptions::Codec::kNone) {
        body.append(bytes);
      } else {
        AppendCompressedArrowBuffer(codec_, bytes, &body);
      }
    }
    const size_t length = body.size() - offset;
    body.append((8 - body.size() % 8) % 8, '\0');
    batch_->buffers.emplace_back(static_cast<int64_t>(offset), static_cast<int64_t>(length));
  }

 private:
  ArrowBatch* batch_;
  ArrowWriteOptions::Codec codec_;
};

absl::Status TooLarge(std::string_view what, uint64_t size) {
  return core::Error(core::ErrorCode::kTooLargeStringSize,
                     absl::StrCat("Cannot write ", size, " ", std::string(what),
                                  " in one Arrow record batch: its offsets are 32-bit"));
}

// Returns `rows` bits, LSB first: bit i set when bytes[i] is non-zero (or zero, with `invert`).
std::string Bitmap(const uint8_t* bytes, size_t rows, bool invert) {
  std::string bits((rows + 7) / 8, '\0');
  for (size_t i = 0; i < rows; ++i) {
    if ((bytes[i] != 0) != invert) bits[i / 8] |= static_cast<char>(1u << (i % 8));
  }
  return bits;
}

// Returns Arrow's int32 offsets (rows + 1 of them, from 0) for granite's end offsets.
absl::StatusOr<std::string> Offsets32(const std::vector<uint64_t>& ends, std::string_view what) {
  const uint64_t total = ends.empty() ? 0 : ends.back();
  if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return TooLarge(what, total);
  }
  std::string out((ends.size() + 1) * 4, '\0');
  for (size_t i = 0; i < ends.size(); ++i) {
    const int32_t end = static_cast<int32_t>(ends[i]);
    std::memcpy(out.data() + (i + 1) * 4, &end, 4);
  }
  return out;
}

// Returns every value of `column` (physical type From) converted by `convert` to To.
template <typename From, typename To, typename Convert>
std::string Converted(const core::Column& column, Convert convert) {
  std::string out(column.size() * sizeof(To), '\0');
  const From* values = column.Data<From>();
  for (size_t i = 0; i < column.size(); ++i) {
    const To value = convert(values[i]);
    std::memcpy(out.data() + i * sizeof(To), &value, sizeof(To));
  }
  return out;
}

// Adds the value buffers of a column that is neither an array nor Nothing.
absl::Status AddValues(const core::Column& column, core::TypeId type,
                       const ArrowWriteOptions& options, BodyBuilder* body) {
  const size_t rows = column.size();
  auto string_buffers = [&](const std::vector<uint64_t>& ends) -> absl::Status {
    ASSIGN_OR_RETURN(std::string offsets, Offsets32(ends, "string bytes"));
    body->AddBuffer(offsets);
    body->AddBuffer(column.Chars());
    return absl::OkStatus();
  };
  switch (core::BaseOf(type)) {
    case core::TypeId::kString:
      return string_buffers(column.Offsets());
    case core::TypeId::kFixedString: {
      if (options.fixed_string_as_fixed_binary) {
        body->AddBuffer(column.Chars());
        return absl::OkStatus();
      }
      return string_buffers(column.Offsets());
    }
    case core::TypeId::kBool:
      body->AddBuffer(Bitmap(reinterpret_cast<const uint8_t*>(column.RawData()), rows, false));
      return absl::OkStatus();
    case core::TypeId::kDate:
      body->AddBuffer(Converted<uint16_t, int32_t>(column, [](uint16_t d) { return d; }));
      return absl::OkStatus();
    case core::TypeId::kDateTime64: {
      int64_t scale_up;
      ArrowTimeUnit(core::PrecisionOf(type), &scale_up);
      body->AddBuffer(
          Converted<int64_t, int64_t>(column, [scale_up](int64_t t) { return t * scale_up; }));
      return absl::OkStatus();
    }
    case core::TypeId::kDecimal32:
      body->AddBuffer(Converted<int32_t, core::Int128>(column, [](int32_t v) { return v; }));
      return absl::OkStatus();
    case core::TypeId::kDecimal64:
      body->AddBuffer(Converted<int64_t, core::Int128>(column, [](int64_t v) { return v; }));
      return absl::OkStatus();
    case core::TypeId::kUUID:
      // Arrow's UUID is the 16 bytes in text order: each of granite's halves big-endian.
      body->AddBuffer(Converted<core::UnsignedInt128, core::UnsignedInt128>(
          column, [](core::UnsignedInt128 v) {
            const uint64_t first = __builtin_bswap64(static_cast<uint64_t>(v));
            const uint64_t second = __builtin_bswap64(static_cast<uint64_t>(v >> 64));
            return (static_cast<core::UnsignedInt128>(second) << 64) | first;
          }));
      return absl::OkStatus();
    default:  // integers, floats, DateTime: the values as they are
      body->AddBuffer(std::string_view(column.RawData(), column.RawSize()));
      return absl::OkStatus();
  }
}

absl::Status EncodeColumn(const core::Column& column, core::TypeId type,
                          const ArrowWriteOptions& options, BodyBuilder* body) {
  const size_t rows = column.size();
  if (core::IsMap(type)) {
    // The map's list node and offsets, its entries struct, then the keys and the values.
    const core::Column& keys = column.Element(0);
    const core::Column& values = column.Element(1);
    body->AddNode(rows, 0);
    body->AddBuffer({});  // granite's maps are never NULL
    ASSIGN_OR_RETURN(std::string offsets, Offsets32(keys.Offsets(), "map entries"));
    body->AddBuffer(offsets);
    body->AddNode(keys.Nested().size(), 0);
    body->AddBuffer({});
    const core::TupleType& map = core::TupleTypeOf(type);
    RETURN_IF_ERROR(
        EncodeColumn(keys.Nested(), core::ArrayElementOf(map.elements[0]), options, body));
    return EncodeColumn(values.Nested(), core::ArrayElementOf(map.elements[1]), options, body);
  }
  if (core::IsArrayOfTuples(type)) {
    // The list node and offsets, its items' struct, then each element's values.
    const core::Column& first = column.Element(0);
    body->AddNode(rows, 0);
    body->AddBuffer({});
    ASSIGN_OR_RETURN(std::string offsets, Offsets32(first.Offsets(), "array elements"));
    body->AddBuffer(offsets);
    body->AddNode(first.Nested().size(), 0);
    body->AddBuffer({});
    const core::TupleType& tuple = core::TupleTypeOf(type);
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      RETURN_IF_ERROR(EncodeColumn(column.Element(i).Nested(),
                                   core::ArrayElementOf(tuple.elements[i]), options, body));
    }
    return absl::OkStatus();
  }
  if (core::IsTuple(type)) {
    body->AddNode(rows, 0);
    body->AddBuffer({});  // granite's tuples are never NULL
    const core::TupleType& tuple = core::TupleTypeOf(type);
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      RETURN_IF_ERROR(EncodeColumn(column.Element(i), tuple.elements[i], options, body));
    }
    return absl::OkStatus();
  }
  if (core::IsArray(type)) {
    body->AddNode(rows, 0);
    body->AddBuffer({});  // granite's arrays are never NULL
    ASSIGN_OR_RETURN(std::string offsets, Offsets32(column.Offsets(), "array elements"));
    body->AddBuffer(offsets);
    return EncodeColumn(column.Nested(), core::ArrayElementOf(type), options, body);
  }
  if (core::RemoveNullable(type) == core::TypeId::kNothing) {
    body->AddNode(rows, rows);  // Arrow's null type has no buffers
    return absl::OkStatus();
  }
  size_t nulls = 0;
  if (column.nullable()) {
    for (size_t i = 0; i < rows; ++i) nulls += column.NullMap()[i] != 0;
  }
  body->AddNode(rows, nulls);
  body->AddBuffer(nulls == 0 ? std::string() : Bitmap(column.NullMap(), rows, true));
  return AddValues(column, core::RemoveNullable(type), options, body);
}

}  // namespace

absl::StatusOr<ArrowBatch> EncodeArrowBatch(const core::Block& block,
                                            const std::vector<core::TypeId>& types,
                                            const ArrowWriteOptions& options) {
  ArrowBatch batch;
  batch.length = static_cast<int64_t>(block.rows());
  BodyBuilder body(&batch, options.codec);
  for (size_t c = 0; c < types.size(); ++c) {
    RETURN_IF_ERROR(EncodeColumn(*block.columns[c], types[c], options, &body));
  }
  return batch;
}

}  // namespace granite::coordinator

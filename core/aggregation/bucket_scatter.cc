#include "core/aggregation/bucket_scatter.h"

#include <vector>

namespace granite::core {
namespace {

template <size_t kWidth>
void ScatterFixed(const char* src, size_t rows, const uint8_t* bucket_of, char* const* dst) {
  struct Value {
    char bytes[kWidth];
  };
  ScatterByBucket(reinterpret_cast<const Value*>(src), rows, bucket_of, dst,
                  [](const Value& value, char* out, uint32_t row) {
                    std::memcpy(out + size_t{row} * kWidth, &value, kWidth);
                  });
}

}  // namespace

bool ScatterColumnByBucket(const Column& src, const uint8_t* bucket_of,
                           const uint32_t* bucket_rows, Column* const* outs) {
  const TypeId type = src.type();
  if (src.nullable() || IsArray(type) || IsTuple(type)) return false;
  if (HasStringLayout(type)) {
    // Sized once per bucket, then appended in row order.
    std::vector<size_t> bytes(kBucketCount, 0);
    const size_t rows = src.size();
    for (size_t i = 0; i < rows; ++i) bytes[bucket_of[i]] += src.StringAt(i).size();
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      outs[b]->Reserve(outs[b]->size() + bucket_rows[b]);
      outs[b]->MutableChars().reserve(outs[b]->Chars().size() + bytes[b]);
    }
    for (size_t i = 0; i < rows; ++i) outs[bucket_of[i]]->AppendString(src.StringAt(i));
    return true;
  }
  const size_t width = ValueSize(type);
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return false;
  if (src.RawSize() != src.size() * width) return false;
  char* dst[kBucketCount];
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    const size_t old = outs[b]->size();
    outs[b]->ResizeUninitialized(old + bucket_rows[b]);  // every new value is written below
    dst[b] = outs[b]->RawData() + old * width;
  }
  const char* data = src.RawData();
  switch (width) {
    case 1: ScatterFixed<1>(data, src.size(), bucket_of, dst); break;
    case 2: ScatterFixed<2>(data, src.size(), bucket_of, dst); break;
    case 4: ScatterFixed<4>(data, src.size(), bucket_of, dst); break;
    case 8: ScatterFixed<8>(data, src.size(), bucket_of, dst); break;
    default: ScatterFixed<16>(data, src.size(), bucket_of, dst); break;
  }
  return true;
}

}  // namespace granite::core

// ExpectSameColumn / ExpectRows: the row-by-row comparison of columns read back from parts,
// shared by the storage tests of column layouts (sparse, dictionary).
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "core/column.h"
#include "storage/part.h"

namespace granite::storage {

// Expects `column` to equal `expected` row by row: values, bytes of floats (so -0.0 differs
// from 0.0), NULLs.
inline void ExpectSameColumn(const core::Column& column, const core::Column& expected,
                             size_t index) {
  ASSERT_EQ(column.size(), expected.size()) << "column " << index;
  ASSERT_EQ(column.nullable(), expected.nullable()) << "column " << index;
  for (size_t r = 0; r < expected.size(); ++r) {
    ASSERT_EQ(column.IsNullAt(r), expected.IsNullAt(r)) << "column " << index << " row " << r;
    if (core::HasStringLayout(expected.type())) {
      ASSERT_EQ(column.StringAt(r), expected.StringAt(r)) << "column " << index << " row " << r;
    } else {
      const size_t width = core::ValueSize(expected.type());
      ASSERT_EQ(std::memcmp(column.RawData() + r * width, expected.RawData() + r * width, width),
                0)
          << "column " << index << " row " << r;
    }
  }
}

// Expects every column of `part`, read whole, to equal the same column of `block`.
inline void ExpectRows(const Part& part, const core::Block& block) {
  for (size_t c = 0; c < block.columns.size(); ++c) {
    absl::StatusOr<core::ColumnPtr> read = part.ReadColumn(c, 0, part.granule_count());
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameColumn(**read, *block.columns[c], c);
  }
}

}  // namespace granite::storage

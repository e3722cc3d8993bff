// CountNonZero and SelectNonZero against a byte-at-a-time reference, over masks of 0/1 bytes and
// of other non-zero bytes, at lengths around the 32-byte step.
#include "core/mask_count.h"

#include <gtest/gtest.h>

#include <vector>

namespace granite::core {
namespace {

TEST(MaskCountTest, CountsAndSelectsTheNonZeroBytes) {
  for (size_t rows : {0u, 1u, 31u, 32u, 33u, 100u, 8192u}) {
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::vector<uint8_t> mask(rows);
      for (size_t r = 0; r < rows; ++r) {
        const bool keep = pattern == 0 ? false : pattern == 1 ? r % 3 == 0 : r % 7 != 2;
        mask[r] = keep ? (pattern == 3 && r % 5 == 0 ? 0xff : 1) : 0;
      }
      std::vector<uint32_t> expected;
      for (size_t r = 0; r < rows; ++r) {
        if (mask[r] != 0) expected.push_back(static_cast<uint32_t>(r));
      }
      const size_t kept = CountNonZero(mask.data(), rows);
      ASSERT_EQ(kept, expected.size()) << rows << " rows, pattern " << pattern;
      std::vector<uint32_t> selection(kept);
      SelectNonZero(mask.data(), rows, kept, selection.data());
      EXPECT_EQ(selection, expected) << rows << " rows, pattern " << pattern;
    }
  }
}

}  // namespace
}  // namespace granite::core

#include "coordinator/server/exception_text.h"

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

TEST(ExceptionTextTest, HasClickHouseForm) {
  absl::Status status = core::Error(core::ErrorCode::kUnknownTable, "Table default.x does not exist");
  EXPECT_EQ(ExceptionDisplayText(status),
            "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)");
}

TEST(ExceptionTextTest, DropsTrailingDotsAndEscapesBadBytes) {
  absl::Status status = core::Error(core::ErrorCode::kCannotParseText, "Cannot parse \"\xFF\". ");
  EXPECT_EQ(ExceptionDisplayText(status),
            "Code: 6. DB::Exception: Cannot parse \"\\xFF\". (CANNOT_PARSE_TEXT)");
  EXPECT_EQ(ExceptionMessage(status), "Cannot parse \"\\xFF\". ");
}

}  // namespace
}  // namespace granite::coordinator

#include "client/query_parameters.h"

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::client {
namespace {

TEST(QueryParametersTest, ReplacesPlaceholdersOutsideQuotes) {
  auto out = SubstituteParameters("SELECT {x:UInt64} + 1, '{x:UInt64}', {s:String} -- {x:U}",
                                  {{"x", "5"}, {"s", "it's"}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "SELECT CAST('5' AS UInt64) + 1, '{x:UInt64}', CAST('it\\'s' AS String) -- {x:U}");
}

TEST(QueryParametersTest, MissingValueIsBadArguments) {
  auto out = SubstituteParameters("SELECT {y:UInt8}", {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(core::CodeOf(out.status()), core::ErrorCode::kBadArguments);
  EXPECT_NE(out.status().message().find("`y`"), std::string_view::npos);
  EXPECT_EQ(*SubstituteParameters("SELECT {1}, {a b:c}", {}), "SELECT {1}, {a b:c}");
}

}  // namespace
}  // namespace granite::client

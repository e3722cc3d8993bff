#include "storage/access_file.h"

#include <gtest/gtest.h>

#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

TEST(AccessFileTest, MissingFileReadsEmptyThenTheLastTextWritten) {
  TempDirectory dir;
  auto fs = Posix();
  auto empty = ReadAccessFile(*fs, dir.path());
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*empty, "");
  ASSERT_TRUE(WriteAccessFile(*fs, dir.path(), "GRANT SELECT ON db.t TO bob\n").ok());
  ASSERT_TRUE(WriteAccessFile(*fs, dir.path(), "-- version 2\n").ok());
  auto text = ReadAccessFile(*fs, dir.path());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "-- version 2\n");
  auto names = fs->ListDir(dir.path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"access.sql"});  // no temporary file left
}

}  // namespace
}  // namespace granite::storage

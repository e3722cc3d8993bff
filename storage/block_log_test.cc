#include "storage/block_log.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;

class BlockLogTest : public ::testing::Test {
 protected:
  TempDirectory dir_;
  BlockLog log_{Posix()};
  const std::string table_ = dir_.path();

  // Reads the one block the log lists, which must be recorded under `id` with retained chunks
  // whose checksum is the one recorded.
  std::vector<BlockChunk> ReadOnlyBlock(const std::string& id) {
    absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
    EXPECT_TRUE(entries.ok() && entries->size() == 1 && (*entries)[0].has_data);
    if (!entries.ok() || entries->size() != 1) return {};
    uint64_t checksum = 0;
    std::string read_id;
    absl::StatusOr<std::vector<BlockChunk>> chunks =
        log_.Read(table_, (*entries)[0].name, &checksum, &read_id);
    EXPECT_TRUE(chunks.ok()) << chunks.status();
    if (!chunks.ok()) return {};
    EXPECT_EQ(read_id, id);
    EXPECT_EQ(checksum, ChecksumOf(*chunks));
    return *std::move(chunks);
  }
};

TEST_F(BlockLogTest, RecordsIdsAndRetainsStagedChunksUntilReleased) {
  EXPECT_FALSE(log_.Contains(table_, "c:abc"));
  ASSERT_TRUE(log_.Stage(table_, "token1", 0, BlockChunk{3, 10, "aaaa"}).ok());
  ASSERT_TRUE(log_.Stage(table_, "token1", 1, BlockChunk{2, 7, "bb"}).ok());
  ASSERT_TRUE(log_.Record(table_, "c:abc", "token1").ok());
  EXPECT_TRUE(log_.Contains(table_, "c:abc"));

  std::vector<BlockChunk> chunks = ReadOnlyBlock("c:abc");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].data, "aaaa");
  EXPECT_EQ(chunks[1].rows, 2u);

  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_TRUE(log_.Release(table_, (*entries)[0].name).ok());
  entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_FALSE((*entries)[0].has_data);
  EXPECT_TRUE(log_.Contains(table_, "c:abc"));  // still deduplicates
  uint64_t checksum = 0;
  std::string id;
  EXPECT_EQ(CodeOf(log_.Read(table_, (*entries)[0].name, &checksum, &id).status()),
            ErrorCode::kNoSuchDataPart);
}

TEST_F(BlockLogTest, DamagedRetainedChunkFailsItsChecksum) {
  ASSERT_TRUE(log_.Stage(table_, "t", 0, BlockChunk{1, 4, "abcd"}).ok());
  ASSERT_TRUE(log_.Record(table_, "t:x", "t").ok());
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  std::string chunk = table_ + "/replication/ids/" + (*entries)[0].name + ".d/0";
  {
    std::fstream f(chunk, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(17);
    f.put('X');
  }
  uint64_t checksum = 0;
  std::string id;
  EXPECT_EQ(CodeOf(log_.Read(table_, (*entries)[0].name, &checksum, &id).status()),
            ErrorCode::kChecksumDoesntMatch);
}

TEST_F(BlockLogTest, DroppedStagingLeavesNoBlockAndReleaseRefusesPaths) {
  ASSERT_TRUE(log_.Stage(table_, "t", 0, BlockChunk{1, 4, "abcd"}).ok());
  log_.DropStaged(table_, "t");
  ASSERT_TRUE(log_.Record(table_, "t:y", "t").ok());  // nothing staged: an id without rows
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_FALSE((*entries)[0].has_data);
  EXPECT_EQ(CodeOf(log_.Release(table_, "../../x")), ErrorCode::kBadArguments);
}

// The id announced with the last chunk is recorded then; Record of that id only moves it into
// place, and the block reads back exactly as through Record's own write.
TEST_F(BlockLogTest, IdStagedWithTheLastChunkIsRecordedAsIs) {
  ASSERT_TRUE(log_.Stage(table_, "token1", 0, BlockChunk{3, 10, "aaaa"}).ok());
  ASSERT_TRUE(log_.Stage(table_, "token1", 1, BlockChunk{2, 7, "bb"}, "c:abc").ok());
  EXPECT_FALSE(log_.Contains(table_, "c:abc"));  // staged, not recorded
  ASSERT_TRUE(log_.Record(table_, "c:abc", "token1").ok());
  EXPECT_TRUE(log_.Contains(table_, "c:abc"));
  EXPECT_TRUE(std::filesystem::is_empty(table_ + "/replication/staging"));  // moved, not copied
  const std::vector<BlockChunk> chunks = ReadOnlyBlock("c:abc");
  ASSERT_EQ(chunks.size(), 2u);
  const uint64_t checksum = ChecksumOf(chunks);
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  // Only the chunks remain under the retained data, the id went to ids/.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(table_ + "/replication/ids/" +
                                                           (*entries)[0].name + ".d")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2u);
  std::ifstream f(table_ + "/replication/ids/" + (*entries)[0].name);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // "<checksum> <commit time>\n<id>"
  const std::string head = std::to_string(checksum) + " ";
  ASSERT_EQ(text.substr(0, head.size()), head);
  EXPECT_EQ(text.substr(text.find('\n')), "\nc:abc");
}

// A staged record that does not match what is committed is not used: another id, or a chunk
// staged after it (its checksum would miss that chunk).
TEST_F(BlockLogTest, StaleStagedIdIsNotRecorded) {
  ASSERT_TRUE(log_.Stage(table_, "a", 0, BlockChunk{1, 4, "abcd"}, "t:other").ok());
  ASSERT_TRUE(log_.Record(table_, "t:mine", "a").ok());
  EXPECT_TRUE(log_.Contains(table_, "t:mine"));
  EXPECT_FALSE(log_.Contains(table_, "t:other"));

  ASSERT_TRUE(log_.Stage(table_, "b", 0, BlockChunk{1, 4, "abcd"}, "t:same").ok());
  ASSERT_TRUE(log_.Stage(table_, "b", 1, BlockChunk{2, 5, "efghi"}).ok());
  ASSERT_TRUE(log_.Record(table_, "t:same", "b").ok());
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  for (const BlockEntry& entry : *entries) {
    uint64_t checksum = 0;
    std::string id;
    absl::StatusOr<std::vector<BlockChunk>> chunks = log_.Read(table_, entry.name, &checksum, &id);
    ASSERT_TRUE(chunks.ok()) << chunks.status();
    EXPECT_EQ(chunks->size(), id == "t:same" ? 2u : 1u) << id;
    EXPECT_EQ(checksum, ChecksumOf(*chunks)) << id;
  }
}

// Retained chunks where earlier versions kept them (data/<h>/<k>) are still listed, read and
// released.
TEST_F(BlockLogTest, RetainedChunksInTheEarlierPlaceStillServe) {
  ASSERT_TRUE(log_.Stage(table_, "t", 0, BlockChunk{1, 4, "abcd"}, "t:old").ok());
  ASSERT_TRUE(log_.Record(table_, "t:old", "t").ok());
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  const std::string name = (*entries)[0].name;
  std::filesystem::create_directories(table_ + "/replication/data");
  std::filesystem::rename(table_ + "/replication/ids/" + name + ".d",
                          table_ + "/replication/data/" + name);
  entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_TRUE((*entries)[0].has_data);
  uint64_t checksum = 0;
  std::string id;
  absl::StatusOr<std::vector<BlockChunk>> chunks = log_.Read(table_, name, &checksum, &id);
  ASSERT_TRUE(chunks.ok()) << chunks.status();
  EXPECT_EQ(id, "t:old");
  ASSERT_EQ(chunks->size(), 1u);
  EXPECT_EQ((*chunks)[0].data, "abcd");
  ASSERT_TRUE(log_.Release(table_, name).ok());
  EXPECT_FALSE(std::filesystem::exists(table_ + "/replication/data/" + name));
  entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  EXPECT_FALSE((*entries)[0].has_data);
}

// Prune forgets settled ids beyond the most recent `keep` (by the commit time in each id file;
// files of earlier versions, without one, are the oldest), never one that retains its rows or
// that the caller did not say is settled.
TEST_F(BlockLogTest, PruneForgetsSettledIdsBeyondTheMostRecent) {
  // An id file of an earlier version: "<checksum>\n<id>", no retained rows.
  std::filesystem::create_directories(table_ + "/replication/ids");
  {
    XXH128_hash_t h = XXH3_128bits("t:legacy", 8);
    char name[33];
    std::snprintf(name, sizeof(name), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    std::ofstream(table_ + "/replication/ids/" + name) << "0\nt:legacy";
  }
  ASSERT_TRUE(log_.Contains(table_, "t:legacy"));
  // t:0 .. t:5 in commit order; t:1 keeps its rows.
  for (int i = 0; i < 6; ++i) {
    const std::string token = "k" + std::to_string(i);
    ASSERT_TRUE(log_.Stage(table_, token, 0, BlockChunk{1, 1, "a"}).ok());
    ASSERT_TRUE(log_.Record(table_, "t:" + std::to_string(i), token).ok());
  }
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 7u);
  std::set<std::string> settled;
  for (const BlockEntry& entry : *entries) {
    uint64_t checksum = 0;
    std::string id;
    absl::StatusOr<std::vector<BlockChunk>> chunks = log_.Read(table_, entry.name, &checksum, &id);
    if (!chunks.ok()) {  // the legacy id retains nothing
      settled.insert(entry.name);
      continue;
    }
    if (id == "t:1") continue;
    ASSERT_TRUE(log_.Release(table_, entry.name).ok());
    if (id != "t:4") settled.insert(entry.name);  // t:4 is not settled everywhere yet
  }
  absl::StatusOr<size_t> pruned = log_.Prune(table_, settled, 3);
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  // Kept: t:5, t:4, t:3 (the 3 most recent), t:1 (its rows), t:4 (not settled anyway).
  // Forgotten: t:2, t:0, t:legacy.
  EXPECT_EQ(*pruned, 3u);
  for (const char* id : {"t:1", "t:3", "t:4", "t:5"}) EXPECT_TRUE(log_.Contains(table_, id)) << id;
  for (const char* id : {"t:0", "t:2", "t:legacy"}) EXPECT_FALSE(log_.Contains(table_, id)) << id;
  // Nothing more to forget: at most `keep` ids that may go are left.
  pruned = log_.Prune(table_, settled, 3);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, 0u);
  pruned = log_.Prune(table_, settled, 10);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, 0u);
}

TEST_F(BlockLogTest, DropAllStagedRemovesEveryPreparedInsert) {
  ASSERT_TRUE(log_.Stage(table_, "a", 0, BlockChunk{1, 4, "abcd"}).ok());
  ASSERT_TRUE(log_.Stage(table_, "b", 0, BlockChunk{1, 4, "abcd"}, "t:b").ok());
  log_.DropAllStaged(table_);
  EXPECT_FALSE(std::filesystem::exists(table_ + "/replication/staging"));
  ASSERT_TRUE(log_.Record(table_, "t:b", "b").ok());  // its staging gone: an id without rows
  absl::StatusOr<std::vector<BlockEntry>> entries = log_.List(table_);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_FALSE((*entries)[0].has_data);
}

}  // namespace
}  // namespace granite::storage

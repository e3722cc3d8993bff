// UncompressedCache on its own (LRU eviction by size, hit/miss counts, ErasePart, disabling) and
// through Part::ReadColumn / ReadStringSizes (hits equal cold reads, a part replaced under the same
// name is never served the old bytes, concurrent readers, checksum errors with a cold cache).
#include "storage/uncompressed_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/error.h"
#include "core/metrics/events.h"
#include "storage/part.h"
#include "storage/part_writer.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::Event;
using core::EventTotal;
using core::TypeId;

UncompressedBlockPtr BlockOf(size_t size, char fill) {
  auto block = std::make_shared<UncompressedBlock>(size);
  std::memset(block->data.get(), fill, size);
  return block;
}

TEST(UncompressedCacheTest, CountsHitsAndMissesAndEvictsLeastRecentlyUsedBySize) {
  UncompressedCache cache(300, /*shards=*/1);
  uint64_t hits = EventTotal(Event::kUncompressedCacheHits);
  uint64_t misses = EventTotal(Event::kUncompressedCacheMisses);
  uint64_t evictions = EventTotal(Event::kUncompressedCacheEvictions);
  EXPECT_EQ(cache.Lookup({1, 0, 0}), nullptr);
  cache.Insert({1, 0, 0}, BlockOf(100, 'a'));
  cache.Insert({1, 0, 1}, BlockOf(100, 'b'));
  cache.Insert({1, 1, 0}, BlockOf(100, 'c'));
  EXPECT_EQ(cache.bytes(), 300u);
  ASSERT_NE(cache.Lookup({1, 0, 0}), nullptr);  // now the most recently used
  EXPECT_EQ(cache.Lookup({1, 0, 0})->data[99], 'a');
  cache.Insert({2, 0, 0}, BlockOf(100, 'd'));  // evicts {1, 0, 1}, the least recently used
  EXPECT_EQ(cache.bytes(), 300u);
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(cache.Lookup({1, 0, 1}), nullptr);
  EXPECT_NE(cache.Lookup({1, 1, 0}), nullptr);
  EXPECT_NE(cache.Lookup({2, 0, 0}), nullptr);
  cache.Insert({3, 0, 0}, BlockOf(301, 'e'));  // larger than the cache: not kept
  EXPECT_EQ(cache.Lookup({3, 0, 0}), nullptr);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 4u);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheMisses) - misses, 3u);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheEvictions) - evictions, 1u);
}

// A hit is a mark, not a move: the entry at the end of the list, if hit since it got there, moves
// to the front once and loses its mark; unless hit again it then goes in its turn.
TEST(UncompressedCacheTest, AHitEntryGetsOneSecondChance) {
  UncompressedCache cache(300, /*shards=*/1);
  cache.Insert({1, 0, 0}, BlockOf(100, 'a'));
  cache.Insert({1, 0, 1}, BlockOf(100, 'b'));
  cache.Insert({1, 0, 2}, BlockOf(100, 'c'));
  ASSERT_NE(cache.Lookup({1, 0, 0}), nullptr);
  cache.Insert({1, 0, 3}, BlockOf(100, 'd'));  // a: second chance; b goes
  EXPECT_EQ(cache.Lookup({1, 0, 1}), nullptr);
  cache.Insert({1, 0, 4}, BlockOf(100, 'e'));  // c goes
  EXPECT_EQ(cache.Lookup({1, 0, 2}), nullptr);
  cache.Insert({1, 0, 5}, BlockOf(100, 'f'));  // d goes (a went to the front before it)
  EXPECT_EQ(cache.Lookup({1, 0, 3}), nullptr);
  cache.Insert({1, 0, 6}, BlockOf(100, 'g'));  // a, unmarked since its second chance, goes
  EXPECT_EQ(cache.Lookup({1, 0, 0}), nullptr);
  for (uint32_t granule : {4u, 5u, 6u}) EXPECT_NE(cache.Lookup({1, 0, granule}), nullptr);
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(cache.bytes(), 300u);
}

TEST(UncompressedCacheTest, ErasePartAndDisablingDropBlocks) {
  UncompressedCache cache(1 << 20, /*shards=*/4);
  for (uint32_t g = 0; g < 20; ++g) {
    cache.Insert({7, 0, g}, BlockOf(10, 'x'));
    cache.Insert({8, 0, g}, BlockOf(10, 'y'));
  }
  EXPECT_EQ(cache.entries(), 40u);
  cache.ErasePart(7);
  EXPECT_EQ(cache.entries(), 20u);
  EXPECT_EQ(cache.bytes(), 200u);
  EXPECT_EQ(cache.Lookup({7, 0, 3}), nullptr);
  ASSERT_NE(cache.Lookup({8, 0, 3}), nullptr);
  // A block held by a reader outlives its eviction.
  UncompressedBlockPtr held = cache.Lookup({8, 0, 4});
  cache.SetCapacity(0);
  EXPECT_FALSE(cache.enabled());
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(held->data[9], 'y');
  cache.Insert({8, 0, 4}, BlockOf(10, 'z'));
  EXPECT_EQ(cache.entries(), 0u);
}

TEST(UncompressedCacheTest, ErasePartAfterEvictionsDropsExactlyThePartsRemainingBlocks) {
  UncompressedCache cache(100, /*shards=*/1);  // room for 10 blocks of 10 bytes
  for (uint32_t g = 0; g < 8; ++g) cache.Insert({7, 1, g}, BlockOf(10, 'x'));
  for (uint32_t g = 0; g < 6; ++g) cache.Insert({8, 2, g}, BlockOf(10, 'y'));  // evicts {7,1,0..3}
  EXPECT_EQ(cache.entries(), 10u);
  EXPECT_EQ(cache.Lookup({7, 1, 0}), nullptr);
  cache.Insert({7, 1, 0}, BlockOf(10, 'z'));  // back after its eviction; evicts {7,1,4}
  cache.ErasePart(7);
  EXPECT_EQ(cache.entries(), 6u);
  EXPECT_EQ(cache.bytes(), 60u);
  for (uint32_t g = 0; g < 8; ++g) EXPECT_EQ(cache.Lookup({7, 1, g}), nullptr) << g;
  for (uint32_t g = 0; g < 6; ++g) EXPECT_NE(cache.Lookup({8, 2, g}), nullptr) << g;
  cache.ErasePart(7);  // nothing left of it
  cache.ErasePart(8);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  cache.Insert({8, 2, 0}, BlockOf(10, 'w'));  // the part's index starts over
  EXPECT_EQ(cache.Lookup({8, 2, 0})->data[0], 'w');
}

TEST(UncompressedCacheTest, DefaultIsAnEighthOfRamUpToEightGib) {
  EXPECT_EQ(UncompressedCache::DefaultCapacityFor(uint64_t{16} << 30), uint64_t{2} << 30);
  EXPECT_EQ(UncompressedCache::DefaultCapacityFor(uint64_t{256} << 30), uint64_t{8} << 30);
}

// A part of an Int16 and a String column, 1000 rows in 16 granules of 64 rows.
class UncompressedCachePartTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }

  std::shared_ptr<const Part> WritePart(const std::string& subdir, int salt) {
    auto schema = std::make_shared<const TableSchema>(
        TableSchema{.name = "t", .columns = {{"n", TypeId::kInt16}, {"s", TypeId::kString}}});
    auto numbers = std::make_shared<core::Column>(TypeId::kInt16);
    auto strings = std::make_shared<core::Column>(TypeId::kString);
    for (int i = 0; i < 1000; ++i) {
      numbers->Append(static_cast<int16_t>(i * 7 - 3000 + salt));
      strings->AppendString(i % 5 == 0 ? "" : "value " + std::to_string(i * 13 + salt));
    }
    numbers_ = numbers;
    strings_ = strings;
    std::filesystem::create_directories(dir_.path() + "/" + subdir);
    PartWriter::Options options;
    options.granule_rows = 64;
    PartWriter writer(Posix(), schema, dir_.path() + "/" + subdir, options);
    absl::StatusOr<std::shared_ptr<const Part>> part = writer.Write(
        core::Block{{numbers_, strings_}}, PartDescription(), PartName{1, 1, 0}, kInsertTmpPrefix);
    EXPECT_TRUE(part.ok()) << part.status();
    return part.ok() ? *part : nullptr;
  }

  // Reads granules [begin, end) of both columns and the String sizes through `cache` and checks
  // them against the rows written last.
  void ExpectReads(const Part& part, UncompressedCache* cache, size_t begin, size_t end) {
    absl::StatusOr<core::ColumnPtr> n = part.ReadColumn(0, begin, end, nullptr, cache);
    absl::StatusOr<core::ColumnPtr> s = part.ReadColumn(1, begin, end, nullptr, cache);
    absl::StatusOr<core::ColumnPtr> sizes = part.ReadStringSizes(1, begin, end, nullptr, cache);
    ASSERT_TRUE(n.ok() && s.ok() && sizes.ok()) << n.status() << s.status() << sizes.status();
    const size_t first = part.granule_first_row(begin);
    ASSERT_EQ((*n)->size(), part.granule_first_row(end) - first);
    ASSERT_EQ((*s)->size(), (*n)->size());
    ASSERT_EQ((*sizes)->size(), (*n)->size());
    for (size_t r = 0; r < (*n)->size(); ++r) {
      ASSERT_EQ((*n)->Get<int16_t>(r), numbers_->Get<int16_t>(first + r)) << r;
      ASSERT_EQ((*s)->StringAt(r), strings_->StringAt(first + r)) << r;
      ASSERT_EQ((*sizes)->Get<uint64_t>(r), strings_->StringAt(first + r).size()) << r;
    }
  }

  TempDirectory dir_;
  core::ColumnPtr numbers_, strings_;
};

TEST_F(UncompressedCachePartTest, HitsEqualColdReadsAcrossMixedRuns) {
  std::shared_ptr<const Part> part = WritePart("a", 0);
  ASSERT_NE(part, nullptr);
  UncompressedCache cache(1 << 20);
  uint64_t hits = EventTotal(Event::kUncompressedCacheHits);
  ExpectReads(*part, &cache, 3, 7);  // 8 misses (ReadStringSizes finds the String blocks)
  EXPECT_EQ(cache.entries(), 8u);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 4u);
  // Misses before, hits in the middle, misses after: every row still lands in its place.
  ExpectReads(*part, &cache, 0, 16);
  EXPECT_EQ(cache.entries(), 32u);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 4u + 8u + 16u);
  ExpectReads(*part, &cache, 0, 16);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 28u + 48u);
  ExpectReads(*part, nullptr, 5, 9);  // no cache: no lookups
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 76u);
}

TEST_F(UncompressedCachePartTest, ReadsThatDoNotInsertStillHit) {
  std::shared_ptr<const Part> part = WritePart("a", 0);
  ASSERT_NE(part, nullptr);
  UncompressedCache cache(1 << 20);
  ASSERT_TRUE(part->ReadColumn(0, 0, 16, nullptr, &cache, /*insert=*/false).ok());
  EXPECT_EQ(cache.entries(), 0u);
  ASSERT_TRUE(part->ReadColumn(0, 4, 8, nullptr, &cache).ok());
  uint64_t hits = EventTotal(Event::kUncompressedCacheHits);
  absl::StatusOr<core::ColumnPtr> n = part->ReadColumn(0, 0, 16, nullptr, &cache, false);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheHits) - hits, 4u);
  EXPECT_EQ(cache.entries(), 4u);
  for (size_t r = 0; r < 1000; ++r) ASSERT_EQ((*n)->Get<int16_t>(r), numbers_->Get<int16_t>(r));
}

TEST_F(UncompressedCachePartTest, DisabledCacheIsNeitherReadNorFilled) {
  std::shared_ptr<const Part> part = WritePart("a", 0);
  ASSERT_NE(part, nullptr);
  UncompressedCache cache(0);
  uint64_t misses = EventTotal(Event::kUncompressedCacheMisses);
  ExpectReads(*part, &cache, 0, 16);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(EventTotal(Event::kUncompressedCacheMisses), misses);
}

TEST_F(UncompressedCachePartTest, PartReplacedUnderTheSameNameIsNeverServedStaleBlocks) {
  UncompressedCache& global = UncompressedCache::Global();
  global.SetCapacity(1 << 20);
  std::shared_ptr<const Part> old_part = WritePart("a", 0);
  ASSERT_NE(old_part, nullptr);
  ExpectReads(*old_part, &global, 0, 16);
  EXPECT_EQ(global.entries(), 32u);
  // Same name, same sizes, other values; the old part is still alive and cached.
  std::shared_ptr<const Part> new_part = WritePart("b", 1);
  ASSERT_NE(new_part, nullptr);
  ASSERT_EQ(new_part->name(), old_part->name());
  EXPECT_NE(new_part->id(), old_part->id());
  ExpectReads(*new_part, &global, 0, 16);
  EXPECT_EQ(global.entries(), 64u);
  // The last reference to the old part drops its blocks.
  old_part.reset();
  EXPECT_EQ(global.entries(), 32u);
  ExpectReads(*new_part, &global, 0, 16);
  new_part.reset();
  EXPECT_EQ(global.entries(), 0u);
  global.SetCapacity(0);
}

TEST_F(UncompressedCachePartTest, ConcurrentReadersOfAChurningCacheSeeTheirRows) {
  std::shared_ptr<const Part> part = WritePart("a", 0);
  ASSERT_NE(part, nullptr);
  // Room for about a third of the blocks, so readers evict each other's.
  UncompressedCache cache(part->uncompressed_bytes() / 3, /*shards=*/2);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int i = 0; i < 200; ++i) {
        size_t begin = random() % 16;
        size_t end = begin + 1 + random() % (16 - begin);
        absl::StatusOr<core::ColumnPtr> s = part->ReadColumn(1, begin, end, nullptr, &cache);
        absl::StatusOr<core::ColumnPtr> n = part->ReadColumn(0, begin, end, nullptr, &cache);
        if (!s.ok() || !n.ok()) {
          ++failures;
          continue;
        }
        size_t first = part->granule_first_row(begin);
        for (size_t r = 0; r < (*s)->size(); ++r) {
          if ((*s)->StringAt(r) != strings_->StringAt(first + r) ||
              (*n)->Get<int16_t>(r) != numbers_->Get<int16_t>(first + r)) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(cache.bytes(), cache.capacity());
  EXPECT_GT(cache.entries(), 0u);
}

TEST_F(UncompressedCachePartTest, CorruptBlockFailsWithAColdCacheAndIsNotCached) {
  std::shared_ptr<const Part> part = WritePart("a", 0);
  ASSERT_NE(part, nullptr);
  {  // The last bytes of column s's file (c1.bin, or data.bin of a compact part, s being the
     // last column) belong to its last granule (15).
    std::fstream file(part->column_file(1),
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(-3, std::ios::end);
    char c = 0;
    file.get(c);
    file.seekp(-3, std::ios::end);
    file.put(static_cast<char>(c ^ 0x5a));
  }
  UncompressedCache cache(1 << 20);
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::Status status = part->ReadColumn(1, 12, 16, nullptr, &cache).status();
    EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kChecksumDoesntMatch);
    EXPECT_EQ(status.message(),
              "Checksum mismatch in table t, part all_1_1_0, column s, granule 15");
    EXPECT_EQ(core::CodeOf(part->ReadStringSizes(1, 15, 16, nullptr, &cache).status()),
              core::ErrorCode::kChecksumDoesntMatch);
  }
  // Granules 12-14 verified and were cached; 15 never was.
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(cache.Lookup({part->id(), 1, 15}), nullptr);
  EXPECT_TRUE(part->ReadColumn(1, 0, 15, nullptr, &cache).ok());
}

}  // namespace
}  // namespace granite::storage

#include "storage/table.h"

#include <gtest/gtest.h>

#include "core/time_zone.h"

#include <atomic>
#include <cmath>
#include <thread>

#include "core/error.h"
#include "core/hash.h"
#include "storage/store.h"
#include "storage/temp_directory.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

// Returns a String value for row i: empty every 5th row, a 100 KB string every 1000th, else short.
std::string StringValue(size_t i) {
  if (i % 5 == 0) return "";
  if (i % 1000 == 7) return "L" + std::string(100000, static_cast<char>('a' + i % 26));
  return "s" + std::to_string(i);
}

// Builds `rows` rows of a column of `type`, mixing bits so that extremes of every type occur.
core::ColumnPtr MakeColumn(TypeId type, size_t rows, size_t seed) {
  auto column = std::make_shared<core::Column>(type);
  for (size_t i = 0; i < rows; ++i) {
    if (core::IsString(type)) {
      column->AppendString(StringValue(i + seed));
      continue;
    }
    if (core::IsFixedString(type)) {
      std::string value = StringValue(i + seed).substr(0, core::FixedStringSizeOf(type));
      value.resize(core::FixedStringSizeOf(type), '\0');
      column->AppendString(value);
      continue;
    }
    if (type == TypeId::kBool) {
      column->Append<uint8_t>(core::HashInt(i + seed) & 1);
      continue;
    }
    uint64_t bits = core::HashInt(i + seed * 1000003 + static_cast<uint64_t>(type) * 7919);
    core::DispatchFixed(type, [&](auto tag) {
      using T = typename decltype(tag)::Type;
      if constexpr (std::is_floating_point_v<T>) {
        column->Append(static_cast<T>(static_cast<int64_t>(bits) % 1000000) / T(7));
      } else if constexpr (sizeof(T) > 8) {
        // Both halves set, negative values included.
        column->Append(static_cast<T>((static_cast<unsigned __int128>(bits) << 64) | ~bits));
      } else {
        column->Append(static_cast<T>(bits));
      }
    });
  }
  return column;
}

TableSchema AllTypesSchema(const std::string& name) {
  TableSchema schema;
  schema.name = name;
  for (int t = 0; t < core::kTypeCount; ++t) {
    TypeId type = static_cast<TypeId>(t);
    schema.columns.push_back({"col " + std::string(core::TypeName(type)), type});
  }
  // Decimals of each storage width (the type id carries precision and scale).
  for (TypeId type : {core::MakeDecimal(9, 2), core::MakeDecimal(15, 2), core::MakeDecimal(38, 10)}) {
    schema.columns.push_back({"col " + std::string(core::TypeName(type)), type});
  }
  // Bool, UUID, DateTime64 (the id carries the precision and the zone flag), FixedString(N).
  for (TypeId type : {TypeId::kBool, TypeId::kUUID, core::MakeDateTime64(3),
                      core::MakeDateTime64(9, core::kUtcTimeZone), core::MakeFixedString(5),
                      core::MakeNullable(TypeId::kUUID)}) {
    schema.columns.push_back({"col " + std::string(core::TypeName(type)), type});
  }
  // Zoned date-times: the zone id travels in the type (a fixed offset, one with DST, a zone id
  // above 255 for DateTime64's split bits).
  for (const char* text : {"DateTime('Asia/Kolkata')", "DateTime('America/New_York')",
                           "DateTime64(3, 'America/New_York')", "Nullable(DateTime64(6, 'Zulu'))"}) {
    const TypeId type = *core::ParseType(text);
    schema.columns.push_back({"col " + std::string(core::TypeName(type)), type});
  }
  schema.engine = "MergeTree";
  return schema;
}

core::Block MakeBlock(const TableSchema& schema, size_t rows, size_t seed) {
  core::Block block;
  for (const ColumnSchema& column : schema.columns) {
    block.columns.push_back(MakeColumn(column.type, rows, seed));
  }
  return block;
}

// Expects `actual` to equal rows [begin, begin + actual.size()) of `expected`, byte for byte.
void ExpectRowsEqual(const core::Column& expected, size_t begin, size_t count,
                     const core::Column& actual) {
  ASSERT_EQ(actual.type(), expected.type());
  ASSERT_EQ(actual.size(), count);
  if (core::HasStringLayout(expected.type())) {
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(actual.StringAt(i), expected.StringAt(begin + i)) << "row " << begin + i;
    }
    return;
  }
  size_t width = core::ValueSize(expected.type());
  EXPECT_EQ(0, std::memcmp(actual.RawData(), expected.RawData() + begin * width, count * width))
      << core::TypeName(expected.type());
}

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    auto store = Store::Open(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  std::shared_ptr<Table> Create(const TableSchema& schema) {
    absl::Status status = store_->CreateTable(schema, false, false);
    EXPECT_TRUE(status.ok()) << status;
    return store_->GetTable(schema.name);
  }

  TempDirectory dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(TableTest, RoundTripsEveryTypeAcrossGranules) {
  TableSchema schema = AllTypesSchema("all_types");
  std::shared_ptr<Table> table = Create(schema);
  ASSERT_NE(table, nullptr);
  core::Block block = MakeBlock(schema, 20000, 0);
  absl::StatusOr<std::string> name = table->Insert(block);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "all_1_1_0");

  std::shared_ptr<const PartsSnapshot> snapshot = table->Snapshot();
  ASSERT_EQ(snapshot->parts.size(), 1u);
  EXPECT_EQ(snapshot->rows, 20000u);
  EXPECT_EQ(table->rows(), 20000u);
  const Part& part = *snapshot->parts[0];
  EXPECT_EQ(part.name(), "all_1_1_0");
  ASSERT_EQ(part.granule_count(), 3u);
  EXPECT_EQ(part.granule_rows(0), 8192u);
  EXPECT_EQ(part.granule_rows(1), 8192u);
  EXPECT_EQ(part.granule_rows(2), 20000u - 2 * 8192);
  EXPECT_EQ(part.granule_first_row(2), 2u * 8192);
  EXPECT_GT(part.size_on_disk(), 0u);
  EXPECT_EQ(table->bytes_on_disk(), part.size_on_disk());

  for (size_t c = 0; c < schema.columns.size(); ++c) {
    SCOPED_TRACE(schema.columns[c].name);
    absl::StatusOr<core::ColumnPtr> all = part.ReadColumn(c, 0, 3);
    ASSERT_TRUE(all.ok()) << all.status();
    ExpectRowsEqual(*block.columns[c], 0, 20000, **all);
    absl::StatusOr<core::ColumnPtr> tail = part.ReadColumn(c, 1, 3);
    ASSERT_TRUE(tail.ok()) << tail.status();
    ExpectRowsEqual(*block.columns[c], 8192, 20000 - 8192, **tail);
    absl::StatusOr<core::ColumnPtr> middle = part.ReadColumn(c, 1, 2);
    ASSERT_TRUE(middle.ok()) << middle.status();
    ExpectRowsEqual(*block.columns[c], 8192, 8192, **middle);
    absl::StatusOr<core::ColumnPtr> none = part.ReadColumn(c, 2, 2);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ((*none)->size(), 0u);
  }
  EXPECT_EQ(CodeOf(part.ReadColumn(0, 2, 4).status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(part.ReadColumn(0, 2, 1).status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(part.ReadColumn(99, 0, 1).status()), ErrorCode::kArgumentOutOfBound);
}

TEST_F(TableTest, ZonedDateTimesSurviveReopening) {
  TableSchema schema;
  schema.name = "zoned";
  schema.engine = "MergeTree";
  for (const char* text : {"DateTime('Asia/Kolkata')", "DateTime('America/New_York')",
                           "DateTime64(3, 'America/New_York')"}) {
    schema.columns.push_back({std::string(text), *core::ParseType(text)});
  }
  ASSERT_NE(Create(schema), nullptr);
  core::Block block;
  auto kolkata = std::make_shared<core::Column>(schema.columns[0].type);
  auto new_york = std::make_shared<core::Column>(schema.columns[1].type);
  auto precise = std::make_shared<core::Column>(schema.columns[2].type);
  // Far dates, the epoch, DST transitions and, for DateTime64, 1900 and 2299.
  for (uint32_t seconds : {0u, 1710052200u, 1729989000u, 4294967295u}) {
    kolkata->Append(seconds);
    new_york->Append(seconds);
  }
  for (int64_t millis : {int64_t{-2208970800000}, int64_t{0}, int64_t{1729989000500},
                         int64_t{10413809999999}}) {
    precise->Append(millis);
  }
  block.columns = {kolkata, new_york, precise};
  ASSERT_TRUE(store_->GetTable("zoned")->Insert(block).ok());

  store_.reset();
  auto reopened = Store::Open(dir_.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  store_ = std::move(*reopened);
  std::shared_ptr<Table> table = store_->GetTable("zoned");
  ASSERT_NE(table, nullptr);
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    EXPECT_EQ(table->schema().columns[c].type, schema.columns[c].type);
  }
  std::shared_ptr<const PartsSnapshot> snapshot = table->Snapshot();
  ASSERT_EQ(snapshot->parts.size(), 1u);
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    SCOPED_TRACE(schema.columns[c].name);
    absl::StatusOr<core::ColumnPtr> read = snapshot->parts[0]->ReadColumn(c, 0, 1);
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectRowsEqual(*block.columns[c], 0, 4, **read);
  }
}

TEST_F(TableTest, GranuleMinMaxMatchesTheValues) {
  TableSchema schema = AllTypesSchema("bounds");
  std::shared_ptr<Table> table = Create(schema);
  core::Block block = MakeBlock(schema, 20000, 3);
  ASSERT_TRUE(table->Insert(block).ok());
  const Part& part = *table->Snapshot()->parts[0];
  size_t begin = 8192, end = 2 * 8192;

  int uint64_column = schema.ColumnIndex("col UInt64");
  const auto* u = block.columns[uint64_column]->Data<uint64_t>();
  core::Value min, max;
  ASSERT_TRUE(part.GranuleMinMax(uint64_column, 1, &min, &max));
  EXPECT_EQ(min, core::Value(*std::min_element(u + begin, u + end)));
  EXPECT_EQ(max, core::Value(*std::max_element(u + begin, u + end)));

  int int8_column = schema.ColumnIndex("col Int8");
  const auto* s = block.columns[int8_column]->Data<int8_t>();
  ASSERT_TRUE(part.GranuleMinMax(int8_column, 1, &min, &max));
  EXPECT_EQ(min, core::Value(int64_t{*std::min_element(s + begin, s + end)}));
  EXPECT_EQ(max, core::Value(int64_t{*std::max_element(s + begin, s + end)}));

  int float_column = schema.ColumnIndex("col Float64");
  const auto* f = block.columns[float_column]->Data<double>();
  ASSERT_TRUE(part.GranuleMinMax(float_column, 2, &min, &max));
  EXPECT_EQ(min, core::Value(*std::min_element(f + end, f + 20000)));

  int string_column = schema.ColumnIndex("col String");
  const core::Column& strings = *block.columns[string_column];
  std::string_view smallest = strings.StringAt(begin), largest = smallest;
  for (size_t i = begin; i < end; ++i) {
    smallest = std::min(smallest, strings.StringAt(i));
    largest = std::max(largest, strings.StringAt(i));
  }
  ASSERT_TRUE(part.GranuleMinMax(string_column, 1, &min, &max));
  EXPECT_EQ(min, core::Value(std::string(smallest)));
  EXPECT_EQ(max, core::Value(std::string(largest)));

  // Decimal bounds are scaled int64 values; Decimal128 ones only when they fit int64.
  int decimal_column = schema.ColumnIndex("col Decimal(15, 2)");
  const auto* d = block.columns[decimal_column]->Data<int64_t>();
  ASSERT_TRUE(part.GranuleMinMax(decimal_column, 1, &min, &max));
  EXPECT_EQ(min, core::Value(*std::min_element(d + begin, d + end)));
  EXPECT_EQ(max, core::Value(*std::max_element(d + begin, d + end)));
  int wide_column = schema.ColumnIndex("col Decimal(38, 10)");
  EXPECT_FALSE(part.GranuleMinMax(wide_column, 1, &min, &max));

  EXPECT_FALSE(part.GranuleMinMax(0, 3, &min, &max));
  EXPECT_FALSE(part.GranuleMinMax(99, 0, &min, &max));
}

TEST_F(TableTest, IndexGranularitySettingAndEmptyInsert) {
  TableSchema schema = AllTypesSchema("small_granules");
  schema.settings["index_granularity"] = "100";
  std::shared_ptr<Table> table = Create(schema);
  absl::StatusOr<std::string> empty = table->Insert(MakeBlock(schema, 0, 0));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*empty, "");
  EXPECT_TRUE(table->Snapshot()->parts.empty());

  core::Block block = MakeBlock(schema, 250, 1);
  ASSERT_TRUE(table->Insert(block).ok());
  const Part& part = *table->Snapshot()->parts[0];
  EXPECT_EQ(part.name(), "all_1_1_0");  // the empty insert took no block number
  ASSERT_EQ(part.granule_count(), 3u);
  EXPECT_EQ(part.granule_rows(2), 50u);
  absl::StatusOr<core::ColumnPtr> strings = part.ReadColumn(schema.ColumnIndex("col String"), 1, 3);
  ASSERT_TRUE(strings.ok());
  ExpectRowsEqual(*block.columns[schema.ColumnIndex("col String")], 100, 150, **strings);
}

TEST_F(TableTest, InsertRejectsBlocksThatDoNotMatchTheSchema) {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"id", TypeId::kUInt64}, {"s", TypeId::kString}};
  std::shared_ptr<Table> table = Create(schema);

  core::Block one_column;
  one_column.columns = {MakeColumn(TypeId::kUInt64, 10, 0)};
  EXPECT_EQ(CodeOf(table->Insert(one_column).status()), ErrorCode::kNumberOfColumnsDoesntMatch);

  core::Block wrong_type;
  wrong_type.columns = {MakeColumn(TypeId::kUInt64, 10, 0), MakeColumn(TypeId::kUInt8, 10, 0)};
  absl::Status status = table->Insert(wrong_type).status();
  EXPECT_EQ(CodeOf(status), ErrorCode::kTypeMismatch);
  EXPECT_NE(status.message().find("column s"), std::string::npos) << status;

  core::Block ragged;
  ragged.columns = {MakeColumn(TypeId::kUInt64, 10, 0), MakeColumn(TypeId::kString, 9, 0)};
  EXPECT_EQ(CodeOf(table->Insert(ragged).status()), ErrorCode::kBadArguments);
  EXPECT_TRUE(table->Snapshot()->parts.empty());
}

TEST_F(TableTest, ConcurrentInsertsAndSnapshotReaders) {
  TableSchema schema;
  schema.name = "concurrent";
  schema.columns = {{"id", TypeId::kUInt64}, {"s", TypeId::kString}};
  std::shared_ptr<Table> table = Create(schema);
  constexpr int kWriters = 2, kInsertsPerWriter = 20, kRows = 100;

  std::atomic<int> writers_done{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int k = 0; k < kInsertsPerWriter; ++k) {
        auto ids = std::make_shared<core::Column>(TypeId::kUInt64);
        auto strings = std::make_shared<core::Column>(TypeId::kString);
        for (int r = 0; r < kRows; ++r) {
          uint64_t id = static_cast<uint64_t>(w) * 1000000 + k * kRows + r;
          ids->Append(id);
          strings->AppendString(std::to_string(id));
        }
        core::Block block;
        block.columns = {ids, strings};
        if (!table->Insert(block).ok()) failures.fetch_add(1);
      }
      writers_done.fetch_add(1);
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      uint64_t last_version = 0;
      do {
        std::shared_ptr<const PartsSnapshot> snapshot = table->Snapshot();
        uint64_t rows = 0;
        for (const auto& part : snapshot->parts) rows += part->rows();
        if (snapshot->version < last_version || rows != snapshot->rows) failures.fetch_add(1);
        last_version = snapshot->version;
        if (!snapshot->parts.empty()) {
          const Part& part = *snapshot->parts[snapshot->parts.size() - 1];
          auto ids = part.ReadColumn(0, 0, part.granule_count());
          auto strings = part.ReadColumn(1, 0, part.granule_count());
          if (!ids.ok() || !strings.ok() || (*ids)->size() != part.rows() ||
              (*strings)->StringAt(5) != std::to_string((*ids)->Get<uint64_t>(5))) {
            failures.fetch_add(1);
          }
        }
      } while (writers_done.load() < kWriters);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);

  std::shared_ptr<const PartsSnapshot> snapshot = table->Snapshot();
  ASSERT_EQ(snapshot->parts.size(), size_t{kWriters * kInsertsPerWriter});
  EXPECT_EQ(snapshot->rows, uint64_t{kWriters * kInsertsPerWriter * kRows});
  uint64_t sum = 0, expected = 0;
  for (size_t i = 0; i < snapshot->parts.size(); ++i) {
    EXPECT_EQ(snapshot->parts[i]->part_name().min_block, i + 1);  // sorted, no gaps or repeats
    auto ids = snapshot->parts[i]->ReadColumn(0, 0, 1);
    ASSERT_TRUE(ids.ok());
    for (size_t r = 0; r < (*ids)->size(); ++r) sum += (*ids)->Get<uint64_t>(r);
  }
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kInsertsPerWriter * kRows; ++i) expected += uint64_t(w) * 1000000 + i;
  }
  EXPECT_EQ(sum, expected);
}

}  // namespace
}  // namespace granite::storage

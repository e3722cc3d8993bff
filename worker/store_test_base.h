// StoreTestBase: the gtest fixture base of worker tests that read a real Store — a store in a
// temporary folder, one table made from (name, columns, index_granularity), blocks inserted as
// parts, and MorselSource opened over it. Tests derive from it and fill the table in SetUp().
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/block.h"
#include "storage/store.h"
#include "storage/table_schema.h"
#include "storage/temp_directory.h"
#include "worker/morsel_source.h"

namespace granite::worker {

class StoreTestBase : public ::testing::Test {
 protected:
  // Opens the store (once) and creates `schema`. Call under ASSERT_NO_FATAL_FAILURE.
  void CreateTable(const storage::TableSchema& schema) {
    if (store_ == nullptr) {
      auto store = storage::Store::Open(dir_.path());
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = std::move(*store);
    }
    ASSERT_TRUE(store_->CreateTable(schema, false, false).ok());
  }

  // The same for a schema given as its parts.
  void CreateTable(const std::string& name, std::vector<storage::ColumnSchema> columns,
                   size_t index_granularity) {
    storage::TableSchema schema;
    schema.name = name;
    schema.columns = std::move(columns);
    schema.settings["index_granularity"] = std::to_string(index_granularity);
    CreateTable(schema);
  }

  // Inserts `columns` into `table` as one part. Call under ASSERT_NO_FATAL_FAILURE.
  void Insert(const std::string& table, std::vector<core::ColumnPtr> columns) {
    ASSERT_TRUE(store_->GetTable(table)->Insert(core::Block{std::move(columns)}).ok());
  }

  // Opens the morsels of `fragment`; null (and a test failure) on error.
  std::unique_ptr<MorselSource> Open(const core::plan::Fragment& fragment) {
    auto source = MorselSource::Open(fragment, store_.get());
    EXPECT_TRUE(source.ok()) << source.status();
    return source.ok() ? std::move(*source) : nullptr;
  }

  storage::TempDirectory dir_;
  std::unique_ptr<storage::Store> store_;
};

}  // namespace granite::worker

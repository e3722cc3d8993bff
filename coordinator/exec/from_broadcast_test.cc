// Which joins MaterializeFrom plans as co-located builds, sent groups or coordinator joins, over
// fake tables: FromContext's reads answer count() from per-table row counts and column reads with
// generated rows (every column is its row number modulo the table's `modulo`).
#include <algorithm>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "coordinator/exec/from_clause.h"
#include "coordinator/sql/parser.h"
#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

struct FakeTable {
  std::vector<std::string> columns;
  std::vector<std::string> sharding_key;
  uint32_t shard_count = 0;
  uint64_t rows = 0;       // count()
  uint64_t filtered = 0;   // count() WHERE ..., and the rows a filtered read returns
  uint64_t modulo = 1u << 30;
};

class FromBroadcastTest : public ::testing::Test {
 protected:
  FromContext Context(size_t shards) {
    FromContext context;
    context.worker_count = shards;
    context.columns_of = [this](const sql::TableRef& ref) -> absl::StatusOr<RelationColumns> {
      const FakeTable& table = tables_.at(ref.name);
      RelationColumns columns;
      columns.names = table.columns;
      columns.types.assign(table.columns.size(), core::TypeId::kUInt64);
      columns.sharding_key = table.sharding_key;
      columns.shard_count = table.shard_count;
      return columns;
    };
    context.run = [this](const sql::SelectStatement& read) -> absl::StatusOr<LocalTable> {
      // count() FROM (SELECT 1 FROM t WHERE ... LIMIT n): a count that stops at n rows.
      const sql::SelectStatement* source = &read;
      if (read.from->subquery) source = read.from->subquery.get();
      const FakeTable& table = tables_.at(source->from->name);
      uint64_t rows = source->where ? table.filtered : table.rows;
      if (source->limit) rows = std::min(rows, *source->limit);
      LocalTable out;
      if (read.select[0]->kind == sql::ExprKind::kFunction && read.select[0]->name == "count") {
        if (source->where) {
          counts_.push_back(source->from->name + (source->limit ? " up to " +
                                                  std::to_string(*source->limit) : ""));
        }
        auto count = std::make_shared<core::Column>(core::TypeId::kUInt64);
        count->Append<uint64_t>(rows);
        out.names = {"count()"};
        out.types = {core::TypeId::kUInt64};
        out.block.columns.push_back(count);
        return out;
      }
      reads_.push_back(read.from->name);
      read_log_.push_back(read.from->name + (read.distinct ? " DISTINCT" : "") + " [" +
                          (read.select.empty() ? "" : read.select[0]->name) +
                          (read.limit ? " up to " + std::to_string(*read.limit) : "") + "]" +
                          (read.where ? " " + sql::ColumnName(*read.where) : ""));
      std::string& columns = read_columns_[read.from->name];
      for (const sql::ExprPtr& item : read.select) {
        columns += (columns.empty() ? "" : ",") + (item->name.empty() ? item->alias : item->name);
      }
      for (const sql::ExprPtr& item : read.select) {
        auto column = std::make_shared<core::Column>(core::TypeId::kUInt64);
        for (uint64_t r = 0; r < rows; ++r) column->Append<uint64_t>(r % table.modulo);
        out.names.push_back(item->name.empty() ? item->alias : item->name);
        out.types.push_back(core::TypeId::kUInt64);
        out.block.columns.push_back(column);
      }
      return out;
    };
    return context;
  }

  absl::StatusOr<MaterializedFrom> Plan(const std::string& sql, size_t shards) {
    absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(sql);
    if (!parsed.ok()) return parsed.status();
    select_ = std::get<sql::SelectStatement>(*parsed);
    context_ = Context(shards);
    return MaterializeFrom(select_, context_);
  }

  // "L:<table>" for a co-located build, "X:<table>" for a shuffled one, "S:<rows>" for a sent one.
  static std::vector<std::string> Builds(const MaterializedFrom& from) {
    std::vector<std::string> out;
    for (const BroadcastSource::Build& build : from.broadcast->builds) {
      out.push_back(build.local_read ? (build.shuffle ? "X:" : "L:") + build.local_read->from->name
                                     : "S:" + std::to_string(build.table.block.rows()));
    }
    return out;
  }

  std::map<std::string, FakeTable> tables_;
  std::vector<std::string> reads_;
  std::map<std::string, std::string> read_columns_;  // table -> the columns its reads selected
  // "<table>[ DISTINCT] [<first column> up to <limit>] <where>"
  std::vector<std::string> read_log_;
  std::vector<std::string> counts_;  // filtered counts: "<table>" or "<table> up to <limit>"
  sql::SelectStatement select_;
  FromContext context_;
};

// Items and orders sharded by the order key for 3 shards; customers split evenly.
TEST_F(FromBroadcastTest, TablesShardedByTheJoinKeyAreReadOnEachWorker) {
  tables_["items"] = {{"ok", "qty"}, {"ok"}, 3, 100000, 100000};
  tables_["orders"] = {{"ok", "cust"}, {"ok"}, 3, 20000, 20000, 1u << 30};
  tables_["cust"] = {{"cust", "name"}, {}, 0, 50, 50};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, orders o, cust c WHERE i.ok = o.ok AND o.cust = c.cust", 3);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"L:orders", "S:50"}));
  EXPECT_EQ(reads_, std::vector<std::string>{"cust"});  // orders is never read here
  // The customers' key is on the co-located orders.
  ASSERT_EQ(from->broadcast->builds[1].keys.size(), 1u);
  EXPECT_EQ(from->broadcast->builds[1].keys[0].first->qualifier, "o");
}

TEST_F(FromBroadcastTest, ADimensionLargerThanTheFilteredTableItHangsOffTravelsJoinedWithIt) {
  tables_["items"] = {{"ok", "qty"}, {"ok"}, 3, 100000, 100000};
  // 300 orders pass their filter; 5000 customers hang off them.
  tables_["orders"] = {{"ok", "cust", "day"}, {"ok"}, 3, 20000, 300, 1u << 30};
  tables_["cust"] = {{"cust", "name"}, {}, 0, 5000, 5000};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, orders o, cust c WHERE i.ok = o.ok AND o.cust = c.cust "
      "AND o.day < 7",
      3);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  // Sent: the 300 orders joined with their customers, not 5000 customers to every worker.
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:300"}));
}

TEST_F(FromBroadcastTest, DifferentShardCountsOrKeysAreNotCoLocated) {
  tables_["items"] = {{"ok", "qty"}, {"ok"}, 3, 100000, 100000};
  tables_["orders2"] = {{"ok", "cust"}, {"ok"}, 2, 200, 200};     // sharded for 2 shards
  tables_["orders_c"] = {{"ok", "cust"}, {"cust"}, 3, 200, 200};  // sharded by another column
  for (const char* other : {"orders2", "orders_c"}) {
    absl::StatusOr<MaterializedFrom> from = Plan(
        std::string("SELECT sum(qty) FROM items i JOIN ") + other + " o ON i.ok = o.ok", 3);
    ASSERT_TRUE(from.ok()) << from.status();
    ASSERT_TRUE(from->broadcast.has_value()) << other;
    EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:200"})) << other;
  }
}

TEST_F(FromBroadcastTest, OnOneShardEveryTableIsCoLocatedAndBroadcastModeSendsThem) {
  tables_["items"] = {{"ok", "qty"}, {}, 0, 100000, 100000};
  tables_["orders"] = {{"ok", "cust"}, {}, 0, 20000, 20000};
  tables_["cust"] = {{"cust", "name"}, {}, 0, 50, 50};
  const std::string sql =
      "SELECT count() FROM items i LEFT ANTI JOIN orders o ON i.ok = o.ok "
      "LEFT JOIN cust c ON i.qty = c.cust";
  absl::StatusOr<MaterializedFrom> from = Plan(sql, 1);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"L:orders", "L:cust"}));
  EXPECT_TRUE(reads_.empty());

  context_.join_mode = "broadcast";
  absl::StatusOr<MaterializedFrom> sent = MaterializeFrom(select_, context_);
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_EQ(Builds(*sent), (std::vector<std::string>{"S:20000", "S:50"}));
}

// Neither table sharded by the key: 'auto' shuffles the two largest when the smaller one, sent to
// every worker, would outweigh the larger one's filtered rows; the rest are sent after it.
TEST_F(FromBroadcastTest, LargeUnshardedPartnersAreShuffledSmallOnesSent) {
  tables_["items"] = {{"ok", "qty"}, {}, 0, 100000, 100000};
  tables_["orders"] = {{"ok", "cust"}, {}, 0, 80000, 80000};
  tables_["cust"] = {{"cust", "name"}, {}, 0, 50, 50};
  const std::string sql =
      "SELECT sum(qty) FROM items i, orders o, cust c WHERE i.ok = o.ok AND o.cust = c.cust";
  absl::StatusOr<MaterializedFrom> from = Plan(sql, 3);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"X:orders", "S:50"}));
  EXPECT_EQ(reads_, std::vector<std::string>{"cust"});  // orders is read on the workers
  ASSERT_EQ(from->broadcast->builds[0].keys.size(), 1u);
  EXPECT_EQ(from->broadcast->builds[0].keys[0].first->qualifier, "i");

  // 80000 orders x 2 copies outweigh 100000 items, but not once a filter keeps 30000 orders:
  // then they are read here, joined with the customers (50 rows in all) and sent.
  tables_["orders"].filtered = 30000;
  reads_.clear();
  from = Plan(sql + std::string(" AND o.cust < 10"), 3);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:50"}));

  // 'shuffle' shuffles them anyway; on one shard there is nothing to shuffle.
  context_.join_mode = "shuffle";
  from = MaterializeFrom(select_, context_);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"X:orders", "S:50"}));
  from = Plan(sql, 1);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"L:orders", "L:cust"}));
}

// The strategies only ask whether a filtered count passes a threshold: the larger table is not
// counted whole (the workers stop reading it at the threshold), and the plan is the same.
TEST_F(FromBroadcastTest, FilteredCountsOfTheLargerTableStopAtTheirThreshold) {
  tables_["items"] = {{"ok", "qty"}, {}, 0, 100000, 100000};
  tables_["orders"] = {{"ok", "cust"}, {}, 0, 80000, 60000};
  const std::string sql = "SELECT sum(qty) FROM items i, orders o WHERE i.ok = o.ok AND o.cust < 10";
  absl::StatusOr<MaterializedFrom> from = Plan(sql + " AND i.qty > 0", 3);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"X:orders"}));
  for (const std::string& count : counts_) {
    if (count.rfind("items", 0) == 0) EXPECT_NE(count.find(" up to "), std::string::npos) << count;
  }
  // 60000 orders x 2 copies > 100000 items: counting items up to 60000 x 2 rows answers it.
  EXPECT_NE(std::find(counts_.begin(), counts_.end(), "items up to 120000"), counts_.end());

  // 30000 orders x 2 copies: the count of items stops at 60000 and the orders are sent.
  tables_["orders"].filtered = 30000;
  counts_.clear();
  from = Plan(sql + " AND i.qty > 0", 3);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:30000"}));
  EXPECT_NE(std::find(counts_.begin(), counts_.end(), "items up to 60000"), counts_.end());
}

TEST_F(FromBroadcastTest, CoShardedTablesAreNeverShuffled) {
  tables_["items"] = {{"ok", "qty"}, {"ok"}, 3, 100000, 100000};
  tables_["orders"] = {{"ok", "cust"}, {"ok"}, 3, 90000, 90000};
  absl::StatusOr<MaterializedFrom> from =
      Plan("SELECT sum(qty) FROM items i JOIN orders o ON i.ok = o.ok", 3);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"L:orders"}));
}

// count(*) over a join reads no column for its star: a relation read at the coordinator selects
// only its join key (all of them were read, e.g. every column of a filtered orders table).
TEST_F(FromBroadcastTest, CountStarReadsOnlyTheColumnsTheJoinUses) {
  tables_["items"] = {{"ok", "qty", "note"}, {}, 0, 100, 100};
  tables_["orders"] = {{"ok", "cust", "comment"}, {}, 0, 100, 100};
  auto columns_read = [&](const std::string& items) {
    read_columns_.clear();
    select_ = std::get<sql::SelectStatement>(
        *sql::ParseStatement("SELECT " + items + " FROM items i, orders o WHERE i.ok = o.ok"));
    context_ = Context(2);
    context_.join_mode = "coordinator";  // both tables read here
    absl::StatusOr<MaterializedFrom> from = MaterializeFrom(select_, context_);
    EXPECT_TRUE(from.ok()) << from.status();
    return read_columns_["items"] + " / " + read_columns_["orders"];
  };
  EXPECT_EQ(columns_read("count(*)"), "ok / ok");
  EXPECT_EQ(columns_read("COUNT(*)"), "ok / ok");
  EXPECT_EQ(columns_read("count()"), "ok / ok");
  EXPECT_EQ(columns_read("count(*), sum(qty)"), "ok,qty / ok");
  // Any other function of * takes every column.
  EXPECT_EQ(columns_read("concat(*)"), "ok,qty,note / ok,cust,comment");
}

// A filtered table whose few rows reduce another by their keys is read once for both the
// decision ("at most n rows?") and the key set: the capped count reads the keys themselves.
TEST_F(FromBroadcastTest, AReducingTablesKeysComeFromTheReadThatCountsThem) {
  tables_["items"] = {{"pk", "qty"}, {}, 0, 1000000, 1000000};
  tables_["ps"] = {{"pk", "cost"}, {}, 0, 100000, 100000};
  tables_["parts"] = {{"pk", "name"}, {}, 0, 1000, 10, 4};  // keys 0, 1, 2, 3, 0, 1, ...
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, ps, parts p WHERE i.pk = ps.pk AND ps.pk = p.pk "
      "AND p.name = 7", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_TRUE(std::none_of(counts_.begin(), counts_.end(),
                           [](const std::string& c) { return c.rfind("parts", 0) == 0; }))
      << testing::PrintToString(counts_);
  std::vector<std::string> key_reads, ps_reads;
  for (const std::string& read : read_log_) {
    if (read.rfind("parts [pk up to", 0) == 0) key_reads.push_back(read);
    if (read.rfind("ps ", 0) == 0) ps_reads.push_back(read);
  }
  EXPECT_EQ(key_reads.size(), 1u) << testing::PrintToString(read_log_);
  // The set (sorted, distinct) reached ps's reads.
  ASSERT_FALSE(ps_reads.empty()) << testing::PrintToString(read_log_);
  for (const std::string& read : ps_reads) {
    EXPECT_NE(read.find("in(pk, (0, 1, 2, 3))"), std::string::npos) << read;
  }
}

// A key set whose table is known, from a count already made, to pass few rows (here more
// reducing rows are allowed than a prefetched key read holds) is read plainly and made distinct
// and sorted on the coordinator, not by a DISTINCT on the workers.
TEST_F(FromBroadcastTest, AKeySetOfFewCountedRowsIsReadPlainly) {
  // Large tables (their statistics' counts), few rows read under any filter.
  tables_["items"] = {{"pk", "qty"}, {}, 0, 100000000, 1000};
  tables_["ps"] = {{"pk", "cost"}, {}, 0, 40000000, 1000};
  tables_["parts"] = {{"pk", "name"}, {}, 0, 20000000, 10, 4};  // keys 0, 1, 2, 3, 0, 1, ...
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, ps, parts p WHERE i.pk = ps.pk AND ps.pk = p.pk "
      "AND p.name = 7", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  std::vector<std::string> key_reads, ps_reads;
  for (const std::string& read : read_log_) {
    if (read.rfind("parts", 0) == 0 && read.find("[pk]") != std::string::npos) {
      key_reads.push_back(read);
    }
    if (read.rfind("ps ", 0) == 0) ps_reads.push_back(read);
  }
  ASSERT_FALSE(key_reads.empty()) << testing::PrintToString(read_log_);
  EXPECT_EQ(key_reads[0], "parts [pk] equals(name, 7)");
  for (const std::string& read : read_log_) EXPECT_EQ(read.find("DISTINCT"), std::string::npos);
  ASSERT_FALSE(ps_reads.empty()) << testing::PrintToString(read_log_);
  for (const std::string& read : ps_reads) {
    EXPECT_NE(read.find("in(pk, (0, 1, 2, 3))"), std::string::npos) << read;
  }
}

TEST_F(FromBroadcastTest, TheLargestTableIsNotScannedForItsOwnKeysWhenASmallTableReducesIt) {
  // A part-lineitem join: lineitem's own conditions keep 4% of it (past any key set's limit);
  // the filtered parts' keys reduce lineitem, so lineitem's keys are never read for part's sake.
  tables_["items"] = {{"pk", "qty"}, {}, 0, 6000000, 250000};
  tables_["parts"] = {{"pk", "name"}, {}, 0, 200000, 485};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, parts p WHERE p.pk = i.pk AND i.qty < 5 AND p.name = 7", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  for (const std::string& read : read_log_) {
    if (read.rfind("items", 0) == 0) {
      EXPECT_NE(read.find("in(pk"), std::string::npos) << testing::PrintToString(read_log_);
    }
  }
  for (const std::string& count : counts_) {
    EXPECT_EQ(count.rfind("items up to 100001", 0), std::string::npos)
        << testing::PrintToString(counts_);
  }
}

TEST_F(FromBroadcastTest, ReductionsRunFromTheSmallestReducerUp) {
  // region -> nation -> customer -> orders -> lineitem: each table is reduced before it
  // reduces the next, so orders' keys are first read through the customers' set, never under
  // its own date filter alone.
  tables_["items"] = {{"ok", "qty"}, {}, 0, 6000000, 6000000};
  tables_["orders"] = {{"ok", "ck", "day"}, {}, 0, 1500000, 50000};
  tables_["cust"] = {{"ck", "nk"}, {}, 0, 150000, 30000};
  tables_["nation"] = {{"nk", "rk"}, {}, 0, 25, 5};
  tables_["region"] = {{"rk", "name"}, {}, 0, 5, 1};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty) FROM items i, orders o, cust c, nation n, region r WHERE i.ok = o.ok "
      "AND o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 1 AND o.day < 100", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  const auto first_orders = std::find_if(read_log_.begin(), read_log_.end(), [](const auto& r) {
    return r.rfind("orders", 0) == 0;
  });
  ASSERT_NE(first_orders, read_log_.end()) << testing::PrintToString(read_log_);
  EXPECT_NE(first_orders->find("in(ck"), std::string::npos) << testing::PrintToString(read_log_);
}

TEST_F(FromBroadcastTest, AFilteredTableIsReadOnceForItsKeysAndItsBuild) {
  // The filtered orders' keys reduce items on the workers, and the same read is the build.
  tables_["items"] = {{"ok", "qty"}, {}, 0, 6000000, 6000000};
  tables_["orders"] = {{"ok", "day", "prio"}, {}, 0, 1500000, 50000};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty), prio FROM items i, orders o WHERE i.ok = o.ok AND o.day < 100 "
      "GROUP BY prio", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  EXPECT_EQ(std::count(reads_.begin(), reads_.end(), "orders"), 1)
      << testing::PrintToString(read_log_);
  EXPECT_EQ(read_columns_["orders"], "ok,prio");  // day only filters
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:50000"}));
}

TEST_F(FromBroadcastTest, TheLargestTablesFewPassingRowsJoinWhereTheyWereRead) {
  // items' own filter keeps 30,000 rows: read whole for orders' key set, they are joined on
  // the coordinator, not scanned again on the workers.
  tables_["items"] = {{"ok", "qty"}, {}, 0, 6000000, 30000};
  tables_["orders"] = {{"ok", "prio"}, {}, 0, 1500000, 1500000};
  absl::StatusOr<MaterializedFrom> from = Plan(
      "SELECT sum(qty), prio FROM items i, orders o WHERE i.ok = o.ok AND i.qty < 5 "
      "GROUP BY prio", 2);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_FALSE(from->broadcast.has_value());
  EXPECT_EQ(std::count(reads_.begin(), reads_.end(), "items"), 1)
      << testing::PrintToString(read_log_);
  EXPECT_EQ(from->table.block.rows(), 30000u);
  // Under distributed_join_mode = 'broadcast' the workers scan items all the same.
  context_.join_mode = "broadcast";
  reads_.clear();
  absl::StatusOr<MaterializedFrom> forced = MaterializeFrom(select_, context_);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_TRUE(forced->broadcast.has_value());
}

TEST_F(FromBroadcastTest, ATableJoinedOnlyForItsUniqueKeysIsNotJoined) {
  // cust names nothing but its key: its filtered keys, unique, are a set on orders already.
  tables_["items"] = {{"ok", "qty"}, {}, 0, 6000000, 6000000};
  tables_["orders"] = {{"ok", "ck", "day"}, {}, 0, 1500000, 50000};
  tables_["cust"] = {{"ck", "seg"}, {}, 0, 150000, 30000};
  const std::string query =
      "SELECT sum(qty), day FROM items i, orders o, cust c WHERE i.ok = o.ok AND o.ck = c.ck "
      "AND c.seg = 1 AND o.day < 100 GROUP BY day";
  absl::StatusOr<MaterializedFrom> from = Plan(query, 2);
  ASSERT_TRUE(from.ok()) << from.status();
  ASSERT_TRUE(from->broadcast.has_value());
  EXPECT_EQ(Builds(*from), (std::vector<std::string>{"S:50000"}));  // orders alone
  EXPECT_EQ(std::count(reads_.begin(), reads_.end(), "cust"), 1)  // its keys, once
      << testing::PrintToString(read_log_);
  ASSERT_EQ(from->notes.size(), 1u);
  EXPECT_NE(from->notes[0].find("Join of c:"), std::string::npos) << from->notes[0];

  // Named in the select list, or with keys that repeat, it is joined.
  for (const std::string& other : {std::string("SELECT sum(qty), seg FROM items i, orders o, "
                                               "cust c WHERE i.ok = o.ok AND o.ck = c.ck AND "
                                               "c.seg = 1 AND o.day < 100 GROUP BY seg"),
                                   query}) {
    if (other == query) tables_["cust"].modulo = 1000;
    reads_.clear();
    absl::StatusOr<MaterializedFrom> joined = Plan(other, 2);
    ASSERT_TRUE(joined.ok()) << joined.status();
    EXPECT_TRUE(joined->notes.empty()) << other;
    ASSERT_TRUE(joined->broadcast.has_value());
    EXPECT_NE(Builds(*joined), (std::vector<std::string>{"S:50000"})) << other;
  }
}

}  // namespace
}  // namespace granite::coordinator

#include "core/wire/plan_codec.h"

#include <pthread.h>

#include <functional>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "granite/worker/v1/plan.pb.h"
#include "gtest/gtest.h"

namespace granite::core::wire {
namespace {

namespace pb = granite::worker::v1;

// Runs `work` on a new thread whose stack is `bytes` large, and waits for it.
void RunOnStack(size_t bytes, std::function<void()> work) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &work), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// Returns a wire fragment whose filter is `levels` nested calls f(f(...f(column 0)...)).
pb::Fragment NestedFragment(int levels) {
  pb::Fragment fragment;
  // As the coordinator sends every fragment: a source and a worker count (both always encoded).
  fragment.mutable_source()->set_table("t");
  fragment.set_worker_count(1);
  pb::Expr* expr = fragment.mutable_filter();
  for (int i = 0; i < levels; ++i) {
    pb::FunctionCall* call = expr->mutable_call();
    call->set_name("f");
    expr = call->add_args();
  }
  expr->set_column(0);
  return fragment;
}

plan::Fragment EveryField() {
  plan::Fragment f;
  f.query_id = "q1";
  f.worker_index = 2;
  f.worker_count = 3;
  f.scan.table = "hits";
  f.scan.columns = {"a", "b"};
  f.filter = Call("greater", TypeId::kUInt8, {Col(0, TypeId::kInt64), Lit(int64_t{-5})});
  plan::Aggregate aggregate;
  aggregate.keys = {Col(1, TypeId::kString)};
  aggregate.calls.push_back(plan::AggregateCall{"uniqExact", {Col(0, TypeId::kInt64)},
                                                TypeId::kUInt64, 7, 1024, true});
  aggregate.finalize_on_worker = true;
  aggregate.direct_key = true;
  aggregate.direct_key_base = 9;
  aggregate.hash_limit = 11;
  aggregate.local_cut.having = Lit(uint64_t{1});
  aggregate.local_cut.order = {Col(1, TypeId::kUInt64), Lit(2.5)};
  aggregate.local_cut.descending = {true, false};
  aggregate.local_cut.nulls_first = {false, true};
  aggregate.local_cut.limit = 10;
  f.aggregate = aggregate;
  EXPECT_TRUE(f.settings.Set("group_by_two_level_threshold", "3").ok());
  return f;
}

TEST(PlanCodecTest, RoundTripsEveryFieldAndOnlyChangedSettings) {
  plan::Fragment f = EveryField();
  absl::StatusOr<plan::Fragment> back = DecodeFragment(EncodeFragment(f));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->query_id, "q1");
  EXPECT_EQ(back->worker_index, 2u);
  EXPECT_EQ(back->scan, f.scan);
  EXPECT_EQ(back->filter, f.filter);
  EXPECT_EQ(back->aggregate, f.aggregate);
  EXPECT_EQ(back->settings.Changes(), f.settings.Changes());
  EXPECT_EQ(back->settings.group_by_two_level_threshold, 3u);

  plan::Fragment rows;
  rows.scan.function = plan::TableFunctionCall{"numbers_mt", {5, 10}};
  rows.projections = {Col(0, TypeId::kUInt64), Lit(std::string("x"))};
  rows.order_by = {plan::SortKey{1, true, true}, plan::SortKey{0, false, false}};
  rows.limit = 4;
  absl::StatusOr<plan::Fragment> rows_back = DecodeFragment(EncodeFragment(rows));
  ASSERT_TRUE(rows_back.ok()) << rows_back.status();
  EXPECT_EQ(rows_back->scan, rows.scan);
  EXPECT_FALSE(rows_back->aggregating());
  EXPECT_EQ(rows_back->projections, rows.projections);
  EXPECT_EQ(rows_back->order_by, rows.order_by);
  EXPECT_EQ(rows_back->limit, 4u);
  EXPECT_TRUE(rows_back->settings.Changes().empty());
}

// A co-located join carries the fragment each worker runs for its build instead of build rows;
// one that joins, aggregates or cuts is refused, as is a key past its projections.
TEST(PlanCodecTest, RoundTripsCoLocatedBuildsAndRefusesMalformedOnes) {
  plan::Fragment probe;
  probe.scan.table = "items";
  probe.scan.columns = {"ok", "qty"};
  plan::Fragment build;
  build.scan.table = "orders";
  build.scan.columns = {"ok", "cust"};
  build.filter = Call("less", TypeId::kUInt8, {Col(1, TypeId::kUInt32), Lit(uint64_t{10})});
  build.projections = {Col(0, TypeId::kUInt64)};
  plan::BroadcastJoin join;
  join.kind = plan::BroadcastJoin::Kind::kAnti;
  join.probe_keys = {Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  join.local_build = std::make_shared<const plan::Fragment>(build);
  probe.joins.push_back(join);
  probe.projections = {Col(1, TypeId::kInt64)};
  absl::StatusOr<plan::Fragment> back = DecodeFragment(EncodeFragment(probe));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->joins.size(), 1u);
  const plan::BroadcastJoin& decoded = back->joins[0];
  EXPECT_EQ(decoded.kind, plan::BroadcastJoin::Kind::kAnti);
  ASSERT_NE(decoded.local_build, nullptr);
  EXPECT_EQ(decoded.local_build->scan, build.scan);
  EXPECT_EQ(decoded.local_build->filter, build.filter);
  EXPECT_EQ(decoded.local_build->projections, build.projections);
  EXPECT_EQ(decoded.build.columns.size(), 0u);

  plan::Fragment key_past = probe;
  key_past.joins[0].build_keys = {1};
  EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(key_past)).status()), ErrorCode::kIncorrectData);
  plan::Fragment cutting = probe;
  plan::Fragment limited = build;
  limited.limit = 5;
  cutting.joins[0].local_build = std::make_shared<const plan::Fragment>(limited);
  EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(cutting)).status()), ErrorCode::kIncorrectData);
}

// A shuffle join: the flag, the exchange id and every worker's address travel; a shuffle that
// is not the first join, or whose exchange misses a worker, is refused.
TEST(PlanCodecTest, RoundTripsShuffleJoinsAndRefusesMalformedOnes) {
  plan::Fragment probe;
  probe.scan.table = "items";
  probe.scan.columns = {"ok", "qty"};
  probe.worker_count = 2;
  plan::Fragment build;
  build.scan.table = "orders";
  build.scan.columns = {"ok"};
  build.projections = {Col(0, TypeId::kUInt64)};
  plan::BroadcastJoin join;
  join.probe_keys = {Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  join.local_build = std::make_shared<const plan::Fragment>(build);
  join.shuffle = true;
  probe.joins.push_back(join);
  probe.projections = {Col(1, TypeId::kInt64)};
  probe.exchange_id = 77;
  probe.exchange_peers = {"10.0.0.1:9200", "10.0.0.2:9200"};
  absl::StatusOr<plan::Fragment> back = DecodeFragment(EncodeFragment(probe));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->shuffling());
  EXPECT_EQ(back->exchange_id, 77u);
  EXPECT_EQ(back->exchange_peers, probe.exchange_peers);

  plan::Fragment missing = probe;
  missing.exchange_peers.pop_back();
  EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(missing)).status()), ErrorCode::kIncorrectData);
  plan::Fragment second = probe;
  second.joins.insert(second.joins.begin(), join);
  second.joins[0].shuffle = false;
  EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(second)).status()), ErrorCode::kIncorrectData);
  plan::Fragment sent = probe;
  sent.joins[0].local_build.reset();
  EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(sent)).status()), ErrorCode::kIncorrectData);
}

// join_use_nulls travels on LEFT, SEMI and ANTI joins; on another kind it is refused.
TEST(PlanCodecTest, RoundTripsJoinUseNullsAndRefusesItOnOtherKinds) {
  plan::Fragment probe;
  probe.scan.table = "items";
  probe.scan.columns = {"ok"};
  plan::BroadcastJoin join;
  join.kind = plan::BroadcastJoin::Kind::kLeft;
  join.probe_keys = {Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  auto ok = std::make_shared<Column>(TypeId::kUInt64);
  ok->Append<uint64_t>(1);
  join.build.columns = {ok};
  join.use_nulls = true;
  probe.joins.push_back(join);
  probe.projections = {Col(1, TypeId::kUInt64)};
  absl::StatusOr<plan::Fragment> back = DecodeFragment(EncodeFragment(probe));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->joins[0].use_nulls);
  for (auto kind : {plan::BroadcastJoin::Kind::kInner, plan::BroadcastJoin::Kind::kRight}) {
    plan::Fragment other = probe;
    other.joins[0].kind = kind;
    EXPECT_EQ(CodeOf(DecodeFragment(EncodeFragment(other)).status()), ErrorCode::kIncorrectData);
  }
}

// Issue 19: a ~50-level expression exceeded protobuf's default nesting limit of 100 messages.
TEST(PlanCodecTest, DecodesExpressionsFarDeeperThanProtobufsDefault) {
  std::string bytes = NestedFragment(1900).SerializeAsString();
  pb::Fragment default_parse;
  EXPECT_FALSE(default_parse.ParseFromString(bytes));  // what gRPC's own parse does
  // On a thread with a 4 MiB stack (half the usual 8 MiB), so that growing frames in the
  // decoder's recursion fail here rather than on a worker.
  absl::StatusOr<plan::Fragment> parsed = absl::UnknownError("not run");
  RunOnStack(4 << 20, [&] { parsed = DecodeFragment(bytes); });
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const plan::Expr* e = &*parsed->filter;
  int levels = 0;
  while (e->is_call()) {
    e = &e->args[0];
    ++levels;
  }
  EXPECT_EQ(levels, 1900);
  EXPECT_EQ(EncodeFragment(*parsed), bytes);  // nothing lost or added on the way
}

TEST(PlanCodecTest, RefusesDeeperMessagesGarbageAndMalformedNodes) {
  absl::StatusOr<plan::Fragment> too_deep =
      DecodeFragment(NestedFragment(kPlanRecursionLimit).SerializeAsString());
  EXPECT_EQ(CodeOf(too_deep.status()), ErrorCode::kIncorrectData);
  EXPECT_NE(too_deep.status().message().find("nested deeper than"), std::string::npos);
  absl::StatusOr<plan::Fragment> garbage = DecodeFragment("\xff\xff\xff");
  EXPECT_EQ(CodeOf(garbage.status()), ErrorCode::kIncorrectData);
  EXPECT_NE(garbage.status().message().find("3 bytes"), std::string::npos);

  pb::Fragment no_kind;
  no_kind.mutable_filter()->set_type(0);
  EXPECT_EQ(CodeOf(FromProto(no_kind).status()), ErrorCode::kIncorrectData);
  pb::Fragment bad_type;
  bad_type.mutable_filter()->set_type(200);
  bad_type.mutable_filter()->set_column(0);
  absl::StatusOr<plan::Fragment> bad = FromProto(bad_type);
  EXPECT_NE(bad.status().message().find("unknown type id 200"), std::string::npos);
  pb::Fragment cut;
  cut.set_aggregate(true);
  cut.add_local_order()->set_column(0);
  EXPECT_EQ(CodeOf(FromProto(cut).status()), ErrorCode::kIncorrectData);
  pb::Fragment flags;
  flags.set_aggregate(true);
  flags.add_local_order()->set_column(0);
  flags.add_local_order_descending(false);
  flags.add_local_order_nulls_first(true);
  flags.add_local_order_nulls_first(true);
  EXPECT_EQ(CodeOf(FromProto(flags).status()), ErrorCode::kIncorrectData);
  pb::Fragment setting;
  (*setting.mutable_settings())["max_threadz"] = "1";
  EXPECT_EQ(CodeOf(FromProto(setting).status()), ErrorCode::kUnknownSetting);
}

// An IN set travels as one column (plan::Expr::Kind::kSet); a set whose row count does not fit
// its bytes, a Nullable set and an empty one are refused.
TEST(PlanCodecTest, RoundTripsInSetsAndRefusesMalformedOnes) {
  auto values = std::make_shared<Column>(TypeId::kString);
  for (const char* v : {"a", "", "long value"}) values->AppendString(v);
  plan::Expr set;
  set.kind = plan::Expr::Kind::kSet;
  set.type = TypeId::kString;
  set.set = values;
  plan::Fragment f;
  f.scan.table = "t";
  f.scan.columns = {"s"};
  f.worker_count = 1;
  f.filter = Call("in", TypeId::kUInt8, {Col(0, TypeId::kString), set});
  const std::string bytes = EncodeFragment(f);
  absl::StatusOr<plan::Fragment> parsed = DecodeFragment(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const plan::Expr& decoded = parsed->filter->args[1];
  ASSERT_TRUE(decoded.is_set());
  ASSERT_EQ(decoded.set->size(), 3u);
  EXPECT_EQ(decoded.set->StringAt(2), "long value");
  EXPECT_EQ(EncodeFragment(*parsed), bytes);

  pb::Fragment wire;
  ToProto(f, &wire);
  pb::ConstantSet* wire_set = wire.mutable_filter()->mutable_call()->mutable_args(1)->mutable_set();
  wire_set->set_rows(1000);
  EXPECT_EQ(CodeOf(FromProto(wire).status()), ErrorCode::kIncorrectData);
  wire_set->set_rows(0);
  EXPECT_EQ(CodeOf(FromProto(wire).status()), ErrorCode::kIncorrectData);
  wire_set->set_rows(2);  // the bytes hold three
  EXPECT_FALSE(FromProto(wire).ok());
  wire_set->set_rows(3);
  wire.mutable_filter()->mutable_call()->mutable_args(1)->set_type(
      static_cast<uint32_t>(MakeNullable(TypeId::kString)));
  EXPECT_EQ(CodeOf(FromProto(wire).status()), ErrorCode::kIncorrectData);
}

}  // namespace
}  // namespace granite::core::wire

#include "core/wire/plan_codec.h"

#include <string>
#include <utility>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "granite/worker/v1/plan.pb.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::core::wire {

namespace pb = granite::worker::v1;

namespace {

absl::Status Malformed(std::string_view what) {
  return Error(ErrorCode::kIncorrectData, "Malformed plan fragment: " + std::string(what));
}

absl::StatusOr<TypeId> TypeFromWire(uint32_t type) {
  if (!IsValidType(type)) {
    return Malformed("unknown type id " + std::to_string(type));
  }
  return static_cast<TypeId>(type);
}

uint32_t TypeToWire(TypeId type) { return static_cast<uint32_t>(type); }

void ValueToProto(const Value& value, pb::Value* out) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          out->set_int_value(v);
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          out->set_uint_value(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out->set_float_value(v);
        } else {
          out->set_string_value(v);
        }
      },
      value);
}

absl::StatusOr<Value> ValueFromProto(const pb::Value& value) {
  switch (value.kind_case()) {
    case pb::Value::kIntValue: return Value(value.int_value());
    case pb::Value::kUintValue: return Value(value.uint_value());
    case pb::Value::kFloatValue: return Value(value.float_value());
    case pb::Value::kStringValue: return Value(value.string_value());
    case pb::Value::KIND_NOT_SET: break;
  }
  return Malformed("a literal without a value");
}

// The column of a kSet node: distinct values of `type`, at least one, every one taking at least
// a byte in its encoding (so `rows` cannot ask for more than the message holds).
absl::StatusOr<ColumnPtr> SetFromProto(const pb::ConstantSet& set, TypeId type) {
  if (IsNullable(type) || set.rows() == 0 || set.rows() > set.values().size()) {
    return Malformed("an IN set of " + std::to_string(set.rows()) + " rows in " +
                     std::to_string(set.values().size()) + " bytes");
  }
  auto column = std::make_shared<Column>(type);
  RETURN_IF_ERROR(DecodeColumnData(set.values(), set.rows(), column.get()));
  return ColumnPtr(std::move(column));
}

absl::Status ExprFromProtoInto(const pb::Expr& expr, plan::Expr* out);

// Decodes each element into its slot of `out`: the recursion through call arguments keeps no
// Expr-sized temporaries in its frames, so a plan as deep as kPlanRecursionLimit allows fits a
// thread's stack (under ASan too).
absl::Status ExprsFromProtoInto(const google::protobuf::RepeatedPtrField<pb::Expr>& exprs,
                                std::vector<plan::Expr>* out) {
  out->clear();
  out->resize(static_cast<size_t>(exprs.size()));
  for (int i = 0; i < exprs.size(); ++i) {
    RETURN_IF_ERROR(ExprFromProtoInto(exprs.Get(i), &(*out)[static_cast<size_t>(i)]));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<plan::Expr>> ExprsFromProto(
    const google::protobuf::RepeatedPtrField<pb::Expr>& exprs) {
  std::vector<plan::Expr> out;
  RETURN_IF_ERROR(ExprsFromProtoInto(exprs, &out));
  return out;
}

void ExprsToProto(const std::vector<plan::Expr>& exprs,
                  google::protobuf::RepeatedPtrField<pb::Expr>* out) {
  out->Reserve(static_cast<int>(exprs.size()));
  for (const plan::Expr& expr : exprs) ToProto(expr, out->Add());
}

void AggregateToProto(const plan::Aggregate& aggregate, pb::Fragment* out) {
  out->set_aggregate(true);
  ExprsToProto(aggregate.keys, out->mutable_group_keys());
  for (const plan::AggregateCall& call : aggregate.calls) {
    pb::AggregateCall* c = out->add_aggregates();
    c->set_name(call.name);
    ExprsToProto(call.args, c->mutable_args());
    c->set_result_type(TypeToWire(call.result_type));
    c->set_bitmap_base(call.bitmap_base);
    c->set_bitmap_bits(call.bitmap_bits);
    c->set_disjoint_across_workers(call.disjoint_across_workers);
  }
  out->set_finalize_on_worker(aggregate.finalize_on_worker);
  out->set_direct_key(aggregate.direct_key);
  out->set_direct_key_base(aggregate.direct_key_base);
  out->set_group_limit_hash_filter(aggregate.hash_limit);
  out->set_order_limit(aggregate.order_limit);
  out->set_order_limit_key(aggregate.order_key);
  out->set_order_limit_descending(aggregate.order_descending);
  const plan::LocalCut& cut = aggregate.local_cut;
  if (cut.having) ToProto(*cut.having, out->mutable_local_having());
  ExprsToProto(cut.order, out->mutable_local_order());
  for (bool descending : cut.descending) out->add_local_order_descending(descending);
  for (bool nulls_first : cut.nulls_first) out->add_local_order_nulls_first(nulls_first);
  out->set_local_limit(cut.limit);
}

absl::StatusOr<plan::Aggregate> AggregateFromProto(const pb::Fragment& fragment) {
  plan::Aggregate aggregate;
  ASSIGN_OR_RETURN(aggregate.keys, ExprsFromProto(fragment.group_keys()));
  for (const pb::AggregateCall& c : fragment.aggregates()) {
    plan::AggregateCall call;
    call.name = c.name();
    ASSIGN_OR_RETURN(call.args, ExprsFromProto(c.args()));
    ASSIGN_OR_RETURN(call.result_type, TypeFromWire(c.result_type()));
    call.bitmap_base = c.bitmap_base();
    call.bitmap_bits = c.bitmap_bits();
    call.disjoint_across_workers = c.disjoint_across_workers();
    aggregate.calls.push_back(std::move(call));
  }
  aggregate.finalize_on_worker = fragment.finalize_on_worker();
  aggregate.direct_key = fragment.direct_key();
  aggregate.direct_key_base = fragment.direct_key_base();
  aggregate.hash_limit = fragment.group_limit_hash_filter();
  aggregate.order_limit = fragment.order_limit();
  aggregate.order_key = fragment.order_limit_key();
  aggregate.order_descending = fragment.order_limit_descending();
  if (aggregate.order_limit > 0 && aggregate.order_key >= aggregate.keys.size()) {
    return Malformed("ORDER BY ... LIMIT filter on key " + std::to_string(aggregate.order_key) +
                     " of " + std::to_string(aggregate.keys.size()));
  }
  plan::LocalCut& cut = aggregate.local_cut;
  if (fragment.has_local_having()) {
    ASSIGN_OR_RETURN(cut.having, FromProto(fragment.local_having()));
  }
  ASSIGN_OR_RETURN(cut.order, ExprsFromProto(fragment.local_order()));
  if (fragment.local_order_descending_size() != fragment.local_order_size()) {
    return Malformed(std::to_string(fragment.local_order_size()) + " local ORDER BY keys but " +
                     std::to_string(fragment.local_order_descending_size()) + " directions");
  }
  cut.descending.assign(fragment.local_order_descending().begin(),
                        fragment.local_order_descending().end());
  if (fragment.local_order_nulls_first_size() != 0 &&
      fragment.local_order_nulls_first_size() != fragment.local_order_size()) {
    return Malformed(std::to_string(fragment.local_order_size()) + " local ORDER BY keys but " +
                     std::to_string(fragment.local_order_nulls_first_size()) +
                     " NULLS FIRST flags");
  }
  cut.nulls_first.assign(fragment.local_order_nulls_first().begin(),
                         fragment.local_order_nulls_first().end());
  cut.limit = fragment.local_limit();
  return aggregate;
}

// The leaves' decoding, out of line so that its temporaries stay out of the recursion's frames.
[[gnu::noinline]] absl::Status LeafFromProtoInto(const pb::Expr& expr, plan::Expr* out) {
  if (expr.node_case() == pb::Expr::kLiteral) {
    ASSIGN_OR_RETURN(out->literal, ValueFromProto(expr.literal()));
  } else {
    ASSIGN_OR_RETURN(out->set, SetFromProto(expr.set(), out->type));
  }
  return absl::OkStatus();
}

absl::Status ExprFromProtoInto(const pb::Expr& expr, plan::Expr* out) {
  ASSIGN_OR_RETURN(out->type, TypeFromWire(expr.type()));
  switch (expr.node_case()) {
    case pb::Expr::kColumn:
      out->kind = plan::Expr::Kind::kColumn;
      out->column = expr.column();
      return absl::OkStatus();
    case pb::Expr::kLiteral:
      out->kind = plan::Expr::Kind::kLiteral;
      return LeafFromProtoInto(expr, out);
    case pb::Expr::kCall:
      out->kind = plan::Expr::Kind::kCall;
      out->function = expr.call().name();
      return ExprsFromProtoInto(expr.call().args(), &out->args);
    case pb::Expr::kLambdaParameter:
      out->kind = plan::Expr::Kind::kLambdaParameter;
      out->column = expr.lambda_parameter();
      return absl::OkStatus();
    case pb::Expr::kSet:
      out->kind = plan::Expr::Kind::kSet;
      return LeafFromProtoInto(expr, out);
    case pb::Expr::NODE_NOT_SET:
      break;
  }
  return Malformed("an expression node without a kind");
}

}  // namespace

void ToProto(const plan::Expr& expr, pb::Expr* out) {
  out->set_type(TypeToWire(expr.type));
  switch (expr.kind) {
    case plan::Expr::Kind::kColumn:
      out->set_column(expr.column);
      break;
    case plan::Expr::Kind::kLiteral:
      ValueToProto(expr.literal, out->mutable_literal());
      break;
    case plan::Expr::Kind::kCall: {
      pb::FunctionCall* call = out->mutable_call();
      call->set_name(expr.function);
      ExprsToProto(expr.args, call->mutable_args());
      break;
    }
    case plan::Expr::Kind::kLambdaParameter:
      out->set_lambda_parameter(expr.column);
      break;
    case plan::Expr::Kind::kSet: {
      pb::ConstantSet* set = out->mutable_set();
      set->set_rows(expr.set->size());
      EncodeColumnData(*expr.set, set->mutable_values());
      break;
    }
  }
}

absl::StatusOr<plan::Expr> FromProto(const pb::Expr& expr) {
  plan::Expr out;
  RETURN_IF_ERROR(ExprFromProtoInto(expr, &out));
  return out;
}

// The build rows travel compressed as the query's network_compression_method says ('none' for a
// worker on the coordinator's host: compressing a large build once per worker cost more than the
// loopback bytes it saved).
void JoinToProto(const plan::BroadcastJoin& join, WireCompression compression,
                 pb::BroadcastJoin* out) {
  out->set_kind(static_cast<pb::BroadcastJoin::Kind>(join.kind));
  ExprsToProto(join.probe_keys, out->mutable_probe_keys());
  for (uint32_t key : join.build_keys) out->add_build_keys(key);
  out->set_shuffle(join.shuffle);
  out->set_use_nulls(join.use_nulls);
  if (join.local_build) {
    ToProto(*join.local_build, out->mutable_local_build());
    return;
  }
  std::string raw = EncodeBlock(join.build);
  out->set_build_raw_size(raw.size());
  out->set_build(CompressForWire(std::move(raw), compression));
}

absl::StatusOr<plan::BroadcastJoin> JoinFromProto(const pb::BroadcastJoin& join) {
  plan::BroadcastJoin out;
  if (join.kind() < pb::BroadcastJoin::INNER || join.kind() > pb::BroadcastJoin::FULL) {
    return Malformed("unknown join kind " + std::to_string(join.kind()));
  }
  out.kind = static_cast<plan::BroadcastJoin::Kind>(join.kind());
  ASSIGN_OR_RETURN(out.probe_keys, ExprsFromProto(join.probe_keys()));
  out.build_keys.assign(join.build_keys().begin(), join.build_keys().end());
  if (out.probe_keys.size() != out.build_keys.size()) return Malformed("join key counts differ");
  size_t build_columns = 0;
  if (join.has_local_build()) {
    ASSIGN_OR_RETURN(plan::Fragment local, FromProto(join.local_build()));
    if (local.joining() || local.aggregating() || !local.order_by.empty() || local.limit > 0) {
      return Malformed("a co-located build that joins, aggregates or cuts");
    }
    build_columns = local.projections.size();
    out.local_build = std::make_shared<const plan::Fragment>(std::move(local));
  } else {
    if (join.shuffle()) return Malformed("a shuffled join without a build to read");
    ASSIGN_OR_RETURN(out.build, DecodeWireBlock(join.build(), join.build_raw_size()));
    build_columns = out.build.columns.size();
  }
  out.shuffle = join.shuffle();
  out.use_nulls = join.use_nulls();
  if (out.use_nulls && (out.kind == plan::BroadcastJoin::Kind::kInner ||
                        out.kind == plan::BroadcastJoin::Kind::kRight ||
                        out.kind == plan::BroadcastJoin::Kind::kFull)) {
    return Malformed("join_use_nulls on a join other than LEFT, SEMI or ANTI");
  }
  for (uint32_t key : out.build_keys) {
    if (key >= build_columns) return Malformed("join key past the build columns");
  }
  return out;
}

void ToProto(const plan::Fragment& fragment, pb::Fragment* out) {
  out->set_query_id(fragment.query_id);
  out->set_worker_index(fragment.worker_index);
  out->set_worker_count(fragment.worker_count);
  pb::Source* source = out->mutable_source();
  if (fragment.scan.function) {
    source->mutable_function()->set_name(fragment.scan.function->name);
    for (uint64_t arg : fragment.scan.function->args) source->mutable_function()->add_args(arg);
  } else {
    source->set_table(fragment.scan.table);
  }
  for (const std::string& column : fragment.scan.columns) source->add_columns(column);
  for (bool sizes : fragment.scan.string_sizes) source->add_string_sizes(sizes);
  if (fragment.scan.prune_filter) ToProto(*fragment.scan.prune_filter, source->mutable_prune_filter());
  out->set_late_materialization(fragment.late_materialization);
  out->set_explain_only(fragment.explain_only);
  if (fragment.filter) ToProto(*fragment.filter, out->mutable_filter());
  const WireCompression compression =
      ParseWireCompression(fragment.settings.network_compression_method)
          .value_or(WireCompression::kLz4);
  for (const plan::BroadcastJoin& join : fragment.joins) {
    JoinToProto(join, compression, out->add_joins());
  }
  if (fragment.join_filter) ToProto(*fragment.join_filter, out->mutable_join_filter());
  out->set_exchange_id(fragment.exchange_id);
  for (const std::string& peer : fragment.exchange_peers) out->add_exchange_peers(peer);
  ExprsToProto(fragment.projections, out->mutable_projections());
  if (fragment.aggregate) AggregateToProto(*fragment.aggregate, out);
  for (const plan::SortKey& key : fragment.order_by) {
    pb::SortKey* k = out->add_order_by();
    k->set_column(key.column);
    k->set_descending(key.descending);
    k->set_nulls_first(key.nulls_first);
  }
  out->set_limit(fragment.limit);
  for (const auto& [name, value] : fragment.settings.Changes()) {
    (*out->mutable_settings())[name] = value;
  }
}

absl::StatusOr<plan::Fragment> FromProto(const pb::Fragment& fragment) {
  plan::Fragment out;
  out.query_id = fragment.query_id();
  out.worker_index = fragment.worker_index();
  out.worker_count = fragment.worker_count();
  const pb::Source& source = fragment.source();
  if (source.has_function()) {
    plan::TableFunctionCall call;
    call.name = source.function().name();
    call.args.assign(source.function().args().begin(), source.function().args().end());
    out.scan.function = std::move(call);
  } else {
    out.scan.table = source.table();
  }
  out.scan.columns.assign(source.columns().begin(), source.columns().end());
  out.scan.string_sizes.assign(source.string_sizes().begin(), source.string_sizes().end());
  if (source.has_prune_filter()) {
    ASSIGN_OR_RETURN(out.scan.prune_filter, FromProto(source.prune_filter()));
  }
  out.late_materialization = fragment.late_materialization();
  out.explain_only = fragment.explain_only();
  if (fragment.has_filter()) {
    ASSIGN_OR_RETURN(out.filter, FromProto(fragment.filter()));
  }
  for (const pb::BroadcastJoin& join : fragment.joins()) {
    ASSIGN_OR_RETURN(plan::BroadcastJoin decoded, JoinFromProto(join));
    if (decoded.shuffle && !out.joins.empty()) return Malformed("a shuffled join after another join");
    out.joins.push_back(std::move(decoded));
  }
  out.exchange_id = fragment.exchange_id();
  out.exchange_peers.assign(fragment.exchange_peers().begin(), fragment.exchange_peers().end());
  if (fragment.has_join_filter()) {
    ASSIGN_OR_RETURN(out.join_filter, FromProto(fragment.join_filter()));
  }
  ASSIGN_OR_RETURN(out.projections, ExprsFromProto(fragment.projections()));
  if (fragment.aggregate()) {
    ASSIGN_OR_RETURN(out.aggregate, AggregateFromProto(fragment));
  }
  for (const pb::SortKey& key : fragment.order_by()) {
    out.order_by.push_back(plan::SortKey{key.column(), key.descending(), key.nulls_first()});
  }
  out.limit = fragment.limit();
  ASSIGN_OR_RETURN(out.settings, Settings::FromMap(fragment.settings()));
  // Unmatched build rows are emitted once: only where each lives on one worker (a co-located or
  // shuffled build).
  for (size_t j = 0; j < out.joins.size(); ++j) {
    const plan::BroadcastJoin& join = out.joins[j];
    const bool unmatched =
        join.kind == plan::BroadcastJoin::Kind::kRight || join.kind == plan::BroadcastJoin::Kind::kFull;
    if (unmatched && (j > 0 || !join.local_build)) {
      return Malformed("a RIGHT or FULL join that is not the first, or not built on the workers");
    }
  }
  // A shuffle needs every worker's address; the coordinator's planning form has none yet.
  if (out.shuffling() && !out.exchange_peers.empty() &&
      (out.exchange_peers.size() != out.worker_count || out.exchange_id == 0)) {
    return Malformed("a shuffled join whose exchange does not name every worker");
  }
  return out;
}

void ToProto(plan::ResultChunk&& chunk, pb::FragmentChunk* out) {
  auto fill = [](plan::EncodedBlock&& block, pb::BlockData* data) {
    data->set_rows(block.rows);
    data->set_raw_size(block.raw_size);
    data->set_data(std::move(block.data));
  };
  switch (chunk.kind) {
    case plan::ResultChunk::Kind::kBlock:
      fill(std::move(chunk.block), out->mutable_block());
      return;
    case plan::ResultChunk::Kind::kBucket: {
      pb::Bucket* bucket = out->mutable_bucket();
      bucket->set_id(chunk.bucket_id);
      bucket->set_last(chunk.last);
      bucket->set_single(chunk.single);
      fill(std::move(chunk.block), bucket->mutable_states());
      return;
    }
    case plan::ResultChunk::Kind::kStats: {
      const plan::FragmentStats& s = chunk.stats;
      pb::FragmentStats* stats = out->mutable_stats();
      stats->set_read_rows(s.read_rows);
      stats->set_read_bytes(s.read_bytes);
      stats->set_elapsed_us(s.elapsed_us);
      stats->set_parts_total(s.parts_total);
      stats->set_parts_selected(s.parts_selected);
      stats->set_granules_total(s.granules_total);
      stats->set_granules_selected(s.granules_selected);
      stats->set_choose_parts_us(s.choose_parts_us);
      stats->set_rows_to_read(s.rows_to_read);
      return;
    }
  }
}

std::string EncodeExpr(const plan::Expr& expr) {
  pb::Expr proto;
  ToProto(expr, &proto);
  return proto.SerializeAsString();
}

std::string EncodeFragment(const plan::Fragment& fragment) {
  pb::Fragment proto;
  ToProto(fragment, &proto);
  return proto.SerializeAsString();
}

absl::StatusOr<plan::Fragment> DecodeFragment(std::string_view bytes) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kPlanRecursionLimit);
  pb::Fragment proto;
  if (!proto.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return Error(ErrorCode::kIncorrectData,
                 "Cannot parse the plan fragment (" + std::to_string(bytes.size()) +
                     " bytes): not a Fragment, or nested deeper than " +
                     std::to_string(kPlanRecursionLimit) + " messages");
  }
  return FromProto(proto);
}

}  // namespace granite::core::wire

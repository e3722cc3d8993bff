// Internal to the FROM materializer (from_clause.h): the relations of a FROM, their joined
// blocks, and the class that plans and runs the joins. from_clause.cc holds the reads and the
// coordinator's joins; from_broadcast.cc plans joins that run on the workers (broadcast and
// co-located builds). Not for use outside those two files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/exec/from_clause.h"
#include "coordinator/exec/hash_join.h"

namespace granite::coordinator::from_internal {

using core::ErrorCode;
using core::TypeId;
using sql::Expr;
using sql::ExprKind;
using sql::ExprPtr;
using sql::JoinKind;
using sql::JoinStrictness;

// Without a max_rows_in_join, a join stops here rather than exhaust the coordinator's memory.
constexpr uint64_t kJoinRowsCap = 200'000'000;

struct Relation {
  std::string qualifier;  // alias, else the table name
  const sql::TableRef* ref = nullptr;
  std::vector<std::string> names;
  std::vector<TypeId> types;
  bool prematerialized = false;  // a subquery or system table, already run
  LocalTable data;
  std::vector<ExprPtr> pushed;
  std::set<std::string> needed;
  std::set<std::string> hidden;  // right copies of USING columns
  bool null_supplying = false;
  bool read = false;  // data holds its rows
  // A grouped subquery run late (from_deferred.cc): names known, types and rows once run, with
  // `deferred_where` (sets of its partners' keys) added to its WHERE.
  bool deferred = false;
  std::vector<ExprPtr> deferred_where;
  // The largest table's key sets of the small filtered tables it joins (SetProbeSets): added to
  // its filter only where the workers read it (Broadcasting), after the plan is chosen.
  std::vector<ExprPtr> probe_sets;
  // The query's own filters among `pushed` (before key reductions), and the relations whose key
  // sets reductions added to it: a set of r's keys taken back through a filter that holds
  // nothing else is r's keys again.
  size_t own_filters = 0;
  std::set<size_t> keyed_from;
  // The key sets ReduceByJoinKeys pushed: r_key IN (s's s_key values that pass `filter`, the
  // filter's column name), `unique` when no value repeated among those rows.
  struct KeySetFrom {
    size_t s = 0;
    std::string r_key, s_key, filter;
    bool unique = false;
  };
  std::vector<KeySetFrom> key_sets_from;
  // The same for the sets of probe_sets (applied only where the workers scan this table).
  std::vector<KeySetFrom> probe_sets_from;
  std::vector<std::string> sharding_key;  // a table's (RelationColumns)
  uint32_t shard_count = 0;
};

// An equality r.r_key = other.other_key between two relations (ReduceByJoinKeys).
struct KeyLink {
  size_t r;
  const Expr* r_key;
  const Expr* other_key;
};

struct Uses {
  std::set<size_t> relations;
  bool unknown = false;    // an identifier no relation has (an alias of the select list)
  bool ambiguous = false;  // an unqualified identifier several relations have
};

// A relation's column in a joined block.
struct ColumnRef {
  size_t relation;
  std::string name;
};

struct Joined {
  std::set<size_t> relations;
  core::Block block;
  std::vector<ColumnRef> columns;
};

// An equality between a column of `left` and one of relation `right`, as key columns.
struct KeyPair {
  int left = -1;
  int right = -1;
};

// A USING column: its left copy is filled from the right one where the left row is missing.
struct UsingPair {
  int left;
  int right;
};

// The relations identifier `e` may name: a bare name is the first relation's that has it (as
// the binder resolves it), a qualified one each relation the qualifier matches.
std::vector<size_t> Candidates(const Expr& e, const std::vector<Relation>& relations);
// The relations the identifiers of `e` name (not inside subqueries).
Uses UsesOf(const Expr& e, const std::vector<Relation>& relations);

Joined FromRelation(size_t r, const Relation& relation);

// Whether a column of type `a` may keep only values of a column of type `b` through an IN set:
// one type, or both integers proper (neither Nullable).
bool KeyTypesMatch(TypeId a, TypeId b);

class FromMaterializer {
 public:
  FromMaterializer(const sql::SelectStatement& select, const FromContext& context)
      : select_(select), context_(context) {
    max_rows_ = context.max_rows_in_join > 0 ? context.max_rows_in_join : kJoinRowsCap;
  }

  absl::StatusOr<MaterializedFrom> Run();

 private:
  absl::StatusOr<MaterializedFrom> PlanAndJoin();

  absl::Status CollectRelations();

  // USING (c): the left copy is the first earlier relation with c; the right copy is hidden.
  absl::Status SetUsing();

  // Sorts WHERE and ON conjuncts into pushed-down filters, join conditions and the rest.
  void Classify();

  void MarkAllNeeded();

  absl::Status ReadRelations();

  // Inner joins (all of them, or the prefix of written-order joins: Scope()): a table joined on
  // an equality with a table whose own filter keeps few
  // rows reads only the rows whose key is among theirs (a constant IN pushed into it;
  // from_key_reduction.cc); so does one joined to the largest table when the rows of that
  // table able to join such tables are few.
  absl::Status ReduceByJoinKeys();
  // Inner joins without written order: a table s joined only by `r.a = s.b`, none of whose
  // columns the query uses otherwise, whose b values under its filter are unique and are a set
  // on r already (`r.a IN (...)`, key_sets_from), adds nothing to r's rows: it is not read or
  // joined at all (eliminated_), with a note for EXPLAIN. A set of r's probe_sets serves too,
  // but only while r is scanned on the workers with it (dropped_by_probe_sets_).
  void DropKeyOnlyRelations();
  // One pass of DropKeyOnlyRelations over the relations; returns whether it dropped any.
  bool DropKeyOnlyRound();
  // Joins again the relations dropped for a set of probe_sets, for a plan that reads the
  // largest table without those sets (the joins on the coordinator).
  void RestoreProbeSetDrops();
  // Whether the query names relation s outside FROM's conjuncts (select list, GROUP BY, ORDER
  // BY, HAVING, WITH, LIMIT BY), or may (a star, a subquery).
  bool UsedOutsideConjuncts(size_t s) const;
  // Second round of ReduceByJoinKeys: tables joined to the largest table `big` keep the keys
  // of its rows that can pass `implied` (its equalities with reduced tables, r = the reducing
  // table, other_key = big's column). Sets `reduced` for each table it reduces.
  absl::Status ReduceThroughLargest(size_t big, const std::vector<uint64_t>& rows,
                                    const std::vector<std::vector<ExprPtr>>& written,
                                    const std::vector<KeyLink>& implied,
                                    std::vector<bool>* reduced);
  // Whether r's column `r_key` can keep only the values of s's `s_key`: plain tables, keys of
  // one type or both integers.
  bool Reducible(size_t r, const Expr& r_key, size_t s, const Expr& s_key) const;
  // `r_key IN (SELECT DISTINCT s_key FROM s WHERE filter)`, the subquery run into a constant.
  absl::StatusOr<ExprPtr> KeySet(const Expr& r_key, size_t s, const Expr& s_key,
                                 const std::vector<ExprPtr>& filter);
  // What a set KeySet(r_key, s, s_key, filter) made holds, for DropKeyOnlyRelations.
  Relation::KeySetFrom KeySetRecord(const Expr& r_key, size_t s, const Expr& s_key,
                                    const std::vector<ExprPtr>& filter) const;

  absl::Status ReadRelation(size_t r);

  // Deferred subqueries (from_deferred.cc): a subquery in FROM grouped by the column it is
  // joined on runs after the FROM's own filters are known, restricted to the keys its partner's
  // rows can hold. Whether `ref` may run late, and then its output names.
  bool Deferrable(const sql::TableRef& ref, std::vector<std::string>* names) const;
  // Adds to each deferred relation the key set of the partner that narrows it most; a table
  // joined on the same column takes that set too.
  absl::Status ReduceDeferred();
  // A table joined to relation `a` on `a_key` (inner, in Scope()) whose own filter keeps at
  // most kMaxNarrowingRows rows: every row of `a` that joins holds one of its keys, so its key
  // set narrows a subquery joined on that column without reading `a`. Returns (the table, its
  // column, its passing rows), the fewest rows first; nullopt when none.
  struct KeyTable {
    size_t t = 0;
    ExprPtr t_key;
    uint64_t rows = 0;
  };
  absl::StatusOr<std::optional<KeyTable>> SmallKeyTable(size_t a, const Expr& a_key,
                                                        TypeId inner_type);
  // Runs the deferred relations not run yet.
  absl::Status RunDeferred();
  // Sets the largest table's probe_sets: a probe row whose key is outside such a set meets no
  // partner in that table's join, so the scan drops it with a set lookup (a bitmap over close
  // integer keys) before any join probes it.
  absl::Status SetProbeSets();
  // The GROUP BY expression behind deferred relation `d`'s output column `name`, with its type,
  // or nullopt when it is not a plain column of the subquery's tables.
  std::optional<std::pair<ExprPtr, TypeId>> DeferredKey(size_t d, const std::string& name) const;
  // The conjuncts that relation `a`'s rows pass before they join: its own filter, and the keys
  // of the small filtered tables it joins (as IN sets); with `scanned` (a's rows, when the sets
  // are to filter its scan), only the sets that drop enough of them to pay for their reads.
  // `sets`, when given, gets a record of each set added (KeySetRecord).
  absl::StatusOr<std::vector<ExprPtr>> SourceFilter(
      size_t a, uint64_t scanned = 0, std::vector<Relation::KeySetFrom>* sets = nullptr);
  // Relations [0, Scope()) are inner-joined, their rows never filled with defaults: all of them
  // for inner joins, the inner prefix for written-order joins (none with a RIGHT or FULL join).
  size_t Scope() const;
  // The SELECT that reads relation `r`: its needed columns, with its pushed-down conjuncts.
  sql::SelectStatement ReadStatement(size_t r) const;

  // The rows of table relation `r` (its statistics: count() from the parts), or of those that
  // pass `where`; remembered for the FROM's lifetime (table_rows_).
  absl::StatusOr<uint64_t> TableRows(size_t r, ExprPtr where = nullptr);
  // min(the rows of `r` that pass `where`, `limit`): the count stops reading the table once it
  // reaches `limit` (a decision that only asks "more than n?" of a large table's filtered rows
  // reads the table until n + 1 rows passed, not whole). Shares TableRows' memory.
  absl::StatusOr<uint64_t> TableRows(size_t r, ExprPtr where, uint64_t limit);
  // TableRows(r, where, limit) for a decision whose next step, when the count comes in under
  // `limit`, is KeySet(..., r, key, where): up to kMaxPrefetchedKeys it reads the rows' `key`
  // values instead of counting them (the same rows: `SELECT key ... LIMIT limit`), and KeySet
  // builds its set from them without reading r again. When `where` is r's whole filter (its
  // pushed conjuncts), the read takes every column ReadStatement(r) would, and ReadRelation
  // uses those rows instead of reading r a second time (prefetched_rows_).
  absl::StatusOr<uint64_t> TableRowsWithKeys(size_t r, const std::vector<ExprPtr>& where,
                                             uint64_t limit, const Expr& key);
  // The rows of ReadStatement(r) as TableRowsWithKeys read them under r's current filter, or
  // nullopt when it did not (another filter, or more rows than its limit).
  std::optional<LocalTable> PrefetchedRows(size_t r) const;
  // An upper bound on the rows of `r` that pass `where` from the counts already made (the
  // filtered count when exact, else the table's own); nullopt when none was made. Runs nothing.
  std::optional<uint64_t> KnownRowsAtMost(size_t r, const ExprPtr& where) const;

  // If `e` is `a = b` between plain columns of two different relations, returns them as
  // (relation of a, relation of b).
  std::optional<std::pair<size_t, size_t>> EqualityRelations(const Expr& e) const;

  // The relations of `members` outside `probe_side` in groups, each sent to the workers as one
  // build (nullopt for a cross join).
  std::optional<std::vector<std::set<size_t>>> Components(const std::set<size_t>& members,
                                                          const std::set<size_t>& probe_side) const;

  // Whether conjunct `c` is an equality between a relation of `probe_side` and one of `members`;
  // then returns (probe side, member side), both qualified.
  std::optional<std::pair<ExprPtr, ExprPtr>> ProbeKey(const Expr& c,
                                                      const std::set<size_t>& probe_side,
                                                      const std::set<size_t>& members) const;

  // Whether equal rows of tables `a` and `b` on `conjuncts`' equalities share a shard.
  bool CoSharded(size_t a, size_t b, const std::vector<ExprPtr>& conjuncts) const;
  // Whether relation `r` may be read by a co-located build.
  bool LocalCandidate(size_t r) const;
  // The relations of `members` joined as co-located builds with `probe`, in join order.
  std::vector<size_t> CoLocatedRelations(const std::set<size_t>& members, size_t probe) const;
  // The co-located build of relation `r` (no keys yet).
  BroadcastSource::Build LocalBuild(size_t r) const;
  // The position in `local` of the first co-located table better sent with the groups linked to
  // it (`builds`, joined from `components`), or nullopt.
  absl::StatusOr<std::optional<size_t>> FirstToSend(const std::vector<size_t>& local,
                                                    const std::vector<std::set<size_t>>& components,
                                                    const std::vector<Joined>& builds,
                                                    const std::vector<ExprPtr>& conjuncts);
  // Moves the equalities between `probe_side` and `members` from remaining_ into build->keys.
  absl::Status TakeProbeKeys(const std::set<size_t>& probe_side, const std::set<size_t>& members,
                             BroadcastSource::Build* build);

  // The type of column `name` of relation `r`.
  TypeId ColumnType(size_t r, const std::string& name) const;

  // True when `auto` may send builds of `build_rows` rows to every worker rather than gather the
  // rows of `probe` that pass its own filter. Either way the builds are read once; broadcasting
  // sends them W - 1 more times (and on one worker, a build larger than the gathered probe rows
  // still costs more than it saves).
  absl::StatusOr<bool> WorthBroadcasting(size_t probe, uint64_t probe_rows, uint64_t build_rows);

  // Written-order joins (outer, semi, anti) on the workers: the inner prefix as TryBroadcast
  // plans it (or the first relation alone, a table), then every later join INNER, LEFT, LEFT
  // SEMI or LEFT ANTI of one relation on equalities with relations before it (ON or USING),
  // each one build, in the written order (RIGHT / FULL too, first). Otherwise nullopt.
  absl::StatusOr<std::optional<MaterializedFrom>> TryBroadcastInOrder();
  // Whether the first LEFT join of TryBroadcastInOrder exchanges both sides by key
  // (plan::BroadcastJoin::shuffle) rather than sending table `right` to every worker.
  absl::StatusOr<bool> ShufflesLeftJoin(size_t right);
  // Whether sending relation `sent` (its rows passing its filter) to every worker would move more
  // rows than relation `probe`'s passing rows: the rule for choosing a shuffle.
  absl::StatusOr<bool> SendingCostsMore(size_t sent, size_t probe);

  // The joins of the relations in `members` (inner joins only) planned on the workers: the
  // largest table read there, co-located tables, and the other relations in groups sent as
  // builds. The groups' own equalities leave remaining_ (a caller giving the plan up restores
  // `conjuncts`); nullopt (remaining_ as it was) when no table can stay on the workers or a
  // member is not linked to it.
  struct InnerPlan {
    size_t probe = 0;
    uint64_t probe_rows = 0;
    std::vector<size_t> local;                   // co-located, in join order
    std::vector<std::set<size_t>> components;    // sent groups
    std::vector<Joined> builds;                  // their joined rows
    uint64_t build_rows = 0;
    std::vector<ExprPtr> conjuncts;              // remaining_ before the groups' keys were taken
    bool shuffle = false;                        // local[0] is a shuffle join's build
  };
  // A shuffle join chosen by TryShuffle: the table read on the workers and its partner.
  struct ShufflePair {
    size_t probe = 0;
    uint64_t probe_rows = 0;
    size_t partner = 0;
  };
  // With `shuffle`, its probe and partner (as the one local table, shuffled) replace the
  // largest table and the co-located ones.
  absl::StatusOr<std::optional<InnerPlan>> PlanInner(
      const std::set<size_t>& members, std::optional<ShufflePair> shuffle = std::nullopt);
  // A shuffle join of the largest table with the largest one linked to it by an equality, when
  // distributed_join_mode is 'shuffle', or 'auto' and the partner's rows that pass its filter,
  // sent to every worker, would outweigh the largest table's (where 'auto' would otherwise join
  // on the coordinator); nullopt otherwise, or when the two are co-sharded or the cluster has one
  // shard. The other members are sent as groups (PlanInner).
  absl::StatusOr<std::optional<MaterializedFrom>> TryShuffle(const std::set<size_t>& members);
  // `plan` on the workers: its builds appended, its groups sent when 'auto' finds sending them
  // worth it (else nullopt, remaining_ restored); nullopt without a plan.
  absl::StatusOr<std::optional<MaterializedFrom>> OnWorkers(std::optional<InnerPlan> plan);
  // Whether relation `r` is a table of the catalog (not a subquery, function or CTE result).
  bool PlainTable(size_t r) const;
  // Appends `plan`'s builds to `broadcast`, taking their keys from remaining_; returns the
  // relations joined on the workers' side (the probe and the co-located ones).
  absl::StatusOr<std::set<size_t>> AddInnerBuilds(InnerPlan plan, BroadcastSource* broadcast);

  // Relations [0, n) joined by inner, comma or cross joins, when every later join keeps its left
  // rows (no RIGHT or FULL join follows); 1 otherwise.
  size_t InnerPrefix() const;
  // The inner prefix's ON conditions and USING keys become WHERE conjuncts (remaining_).
  void PrefixConditionsAsWhere(size_t prefix);

  // The broadcast plan with relation `probe` read on the workers, and the SELECT left over.
  MaterializedFrom Broadcasting(BroadcastSource broadcast, size_t probe) const;

  // Plans the joins on the workers (file comment, "Broadcast joins"), or returns nullopt to join
  // on the coordinator.
  absl::StatusOr<std::optional<MaterializedFrom>> TryBroadcast();
  // The plain table of `members` with the most rows (the first of equals), the one a plan on
  // the workers scans there; nullopt when none is a plain table.
  absl::StatusOr<std::optional<size_t>> LargestTable(const std::set<size_t>& members);

  JoinSpec Spec(JoinKind kind, JoinStrictness strictness, const std::vector<KeyPair>& keys) const;

  // Takes the conjuncts of `pool` that are keys between `left` and relation `r`.
  std::vector<KeyPair> TakeKeys(std::vector<ExprPtr>* pool, const Joined& left, size_t r,
                                const Joined& right);

  std::vector<KeyPair> UsingKeys(size_t j, const Joined& left, const Joined& right,
                                 std::vector<UsingPair>* pairs);

  // USING keys of inner joins become equalities between the two named copies.
  void UsingAsEqualities();

  // Joins the (read) relations `members` by the greedy order of the file comment.
  absl::StatusOr<Joined> JoinGreedy(const std::set<size_t>& members);

  absl::StatusOr<Joined> JoinInOrder();

  // The joined columns in FROM order; `relations`, when set, gets each column's relation.
  LocalTable Output(Joined joined, std::vector<size_t>* relations = nullptr);

  const sql::SelectStatement& select_;
  const FromContext& context_;
  uint64_t max_rows_ = 0;
  bool ordered_ = false;
  size_t prefix_ = 1;  // ordered_: InnerPrefix()
  std::vector<Relation> relations_;
  // TableRows' answers by (relation, the filter's column name; "" for none): the count, and
  // whether it is exact (false: a count stopped at its limit, so at least that many).
  struct CountedRows {
    uint64_t rows = 0;
    bool exact = true;
  };
  std::map<std::pair<size_t, std::string>, CountedRows> table_rows_;
  // KeySet's sets by (table, column, the filter's column name): one run per FROM.
  std::map<std::string, ExprPtr> key_sets_;
  // Whether a set of key_sets_ held no repeated value (false when not known).
  std::map<std::string, bool> key_set_unique_;
  // Relations DropKeyOnlyRelations left out of the joins.
  std::set<size_t> eliminated_;
  // Those of them a set of r's probe_sets stands for: the relation, its join conjunct, its note.
  struct ProbeSetDrop {
    size_t s = 0;
    size_t r = 0;
    ExprPtr conjunct;
    std::string note;
  };
  std::vector<ProbeSetDrop> dropped_by_probe_sets_;
  // The key columns TableRowsWithKeys read whole, by the same key as key_sets_.
  std::map<std::string, LocalTable> prefetched_keys_;
  // The whole rows (ReadStatement's columns and the key) TableRowsWithKeys read of a relation
  // under its whole filter, by (relation, the filter's column name).
  std::map<std::pair<size_t, std::string>, LocalTable> prefetched_rows_;
  std::vector<std::string> notes_;  // MaterializedFrom::notes
  std::vector<ExprPtr> remaining_;
  std::vector<std::vector<ExprPtr>> on_;  // per join: ON conditions not pushed down
  std::vector<std::vector<std::pair<size_t, std::string>>> using_pairs_;  // per join
};

}  // namespace granite::coordinator::from_internal

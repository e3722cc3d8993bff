#!/usr/bin/env python3
"""Times a few Array queries on granite (granite local, N workers: the first argument) and on chdb
over the same 2,000,000 rows (arrays of 0..15 UInt32 elements), best of 3, and checks that the
answers agree. Run from the repository root: .venv/bin/python bench/arrays/arrays_vs_chdb.py 1
(`... 1 lambdas` times the higher-order functions instead)."""
import sys
import time
sys.path.insert(0, "tests/harness")
import cluster
from chdb import session

ROWS = 2_000_000
CREATE = "CREATE TABLE t (k UInt64, a Array(UInt32)) ENGINE = MergeTree ORDER BY k"
FILL = "INSERT INTO t SELECT number, range(toUInt32(number %% 16)) FROM numbers(%d)" % ROWS
QUERIES = ["SELECT sum(length(a)) FROM t", "SELECT sum(arraySum(a)) FROM t",
           "SELECT sumArray(a) FROM t", "SELECT count() FROM t WHERE has(a, 7)",
           "SELECT length(groupArray(k)) FROM t WHERE a[1] = 0 AND length(a) = 3"]
LAMBDA_QUERIES = ["SELECT sum(arrayCount(x -> x > 5, a)) FROM t",
                  "SELECT sum(arraySum(x -> x * 2, a)) FROM t",
                  "SELECT sum(length(arrayFilter(x -> x % 3 = 0, a))) FROM t",
                  "SELECT count() FROM t WHERE arrayExists(x -> x = 7, a)",
                  "SELECT sum(arraySum(arrayMap(x -> x + k, a))) FROM t"]
if len(sys.argv) > 2 and sys.argv[2] == "lambdas":
    QUERIES = LAMBDA_QUERIES

def best(run, n=3):
    times = []
    for _ in range(n):
        t0 = time.perf_counter(); out = run(); times.append(time.perf_counter() - t0)
    return min(times), out

c = cluster.LocalCluster(["build/granite"], workers=int(sys.argv[1])).start()
cl = c.client(timeout=600)
cl.query(CREATE)
t0 = time.perf_counter(); cl.query(FILL); fill_g = time.perf_counter() - t0
s = session.Session()
s.query(CREATE)
t0 = time.perf_counter(); s.query(FILL); fill_c = time.perf_counter() - t0
print("| query | granite (%s workers) s | chdb s | answers equal |" % sys.argv[1])
print("|---|---|---|---|")
print("| `%s` | %.3f | %.3f | - |" % (FILL, fill_g, fill_c))
for q in QUERIES:
    tg, og = best(lambda: cl.query(q))
    tc, oc = best(lambda: s.query(q, "TSV").bytes())
    print("| `%s` | %.3f | %.3f | %s |" % (q, tg, tc, og == oc))
cl.close(); c.stop()

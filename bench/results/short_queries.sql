-- Short queries for `granite benchmark` (bench/results/run_concurrency_benchmark.sh): each reads a
-- few thousand rows at most, so the cost is per-query overhead (parse, plan, fan-out, merge, RPCs)
-- and any lock on that path, not scanning.
SELECT 1
SELECT count() FROM bench_kv WHERE k < 1000
SELECT sum(v) FROM bench_kv WHERE k BETWEEN 5000 AND 5999
SELECT g, count() FROM bench_kv WHERE k < 2000 GROUP BY g ORDER BY g
SELECT k, v FROM bench_kv WHERE k = 4242
SELECT sum(number) FROM numbers(1000)

#!/usr/bin/env python3
"""Shuffle join throughput (worker/exchange.h): the same join of two unsharded tables on one
worker (nothing exchanged) and on N workers with distributed_join_mode = 'shuffle', best of
--runs hot runs each, in rows joined per second per core, and the bytes the workers exchanged per
joined row (system.events ExchangeSentBytes / ExchangeSentRows).

    .venv/bin/python bench/shuffle/run.py --granite build/granite --rows 4000000 --workers 1,2

Tables: `fact` (--rows rows: k = a hash of the row number modulo --keys, v) and `dim` (--keys
rows, one per key, with a short string), both created with no sharding key (rows split evenly);
the query counts and sums the joined rows so the result itself is tiny.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "harness"))
import cluster  # noqa: E402
from granite_client import Client  # noqa: E402

QUERY = ("SELECT count(), sum(v), sum(length(name)) FROM fact JOIN dim ON fact.k = dim.k "
         "SETTINGS distributed_join_mode = '%s'")


def run(granite, workers, rows, keys, runs, cores):
    with cluster.LocalCluster(granite, workers=workers) as local:
        c = Client(port=local.port, timeout=3600)
        c.execute("CREATE TABLE fact (k UInt64, v Int64) ENGINE = MergeTree ORDER BY v")
        c.execute("CREATE TABLE dim (k UInt64, name String) ENGINE = MergeTree ORDER BY name")
        c.execute("INSERT INTO fact SELECT cityHash64(number) %% %d, number FROM numbers(%d)"
                  % (keys, rows))
        c.execute("INSERT INTO dim SELECT number, concat('n', toString(number)) FROM numbers(%d)"
                  % keys)
        mode = "shuffle" if workers > 1 else "auto"
        best, answer, before, after = None, None, None, None
        for _ in range(runs):
            before = cluster.event_totals(c, "Exchange%")
            start = time.perf_counter()
            answer = c.execute(QUERY % mode).output.decode().strip()
            elapsed = time.perf_counter() - start
            after = cluster.event_totals(c, "Exchange%")
            best = elapsed if best is None else min(best, elapsed)
        joined = int(answer.split("\t")[0])
        sent_rows = after.get("ExchangeSentRows", 0) - before.get("ExchangeSentRows", 0)
        sent_bytes = after.get("ExchangeSentBytes", 0) - before.get("ExchangeSentBytes", 0)
        return {"workers": workers, "mode": mode, "best": best, "joined": joined,
                "rows_per_core": joined / best / cores, "sent_rows": sent_rows,
                "bytes_per_joined": sent_bytes / joined if joined else 0, "answer": answer}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--granite", default=None)
    parser.add_argument("--rows", type=int, default=4000000)
    parser.add_argument("--keys", type=int, default=1000000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cores", type=int, default=os.cpu_count(),
                        help="cores the cluster runs on (all workers share this machine)")
    args = parser.parse_args()
    granite = cluster.find_granite(args.granite)
    results = [run(granite, int(w), args.rows, args.keys, args.runs, args.cores)
               for w in args.workers.split(",")]
    print("| workers | mode | best s | joined rows | rows/s per core | rows sent to other workers"
          " | bytes exchanged per joined row | answer |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print("| %d | %s | %.3f | %d | %.0f | %d | %.1f | %s |" % (
            r["workers"], r["mode"], r["best"], r["joined"], r["rows_per_core"], r["sent_rows"],
            r["bytes_per_joined"], r["answer"].replace("\t", " ")))
    answers = {r["answer"] for r in results}
    if len(answers) != 1:
        print("ANSWERS DIFFER")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Replicated shards (issue 27): what R = 2 costs on inserts, and a query stream across a kill.

1. INSERT throughput and latency, R = 1 vs R = 2: on S shards x R replicas (`granite worker`
   processes and a coordinator, tests/harness/cluster.py SplitCluster), `--inserts` small INSERTs
   of `--rows` distinct rows each, sent by `--clients` concurrent clients (each its own
   connection, back to back); then `--bulk` rows as one CSV insert per client at once.
   Reports rows/s and p50 / p99 latency of the small ones, rows/s of the bulk ones, and the CPU
   time the servers (workers and coordinator, from /proc) spent per small insert. With
   `--etcd auto|none` the cluster is `granite local --replicas R --etcd ...` instead: R = 2 then
   also records every insert in the shard log in etcd (`auto`), as a real deployment does.
2. p99 of a steady query stream across a replica's kill -9 (R = 2): one client runs
   `SELECT count(), sum(x) FROM t` back to back; after `--warm` queries one replica is killed,
   restarted after `--down` seconds; reports failed queries and p50 / p99 / max latency of the
   steady part and of the window from the kill to 2 s after the restart.

    .venv/bin/python bench/replicas/run.py --granite build/granite
    .venv/bin/python bench/replicas/run.py --clients 1,4 --bulk 200000 --no-kill [--etcd auto]
"""

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402
import granite_client  # noqa: E402


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def ms(seconds):
    return "%.2f ms" % (seconds * 1000.0)


def process_tree(pid):
    """`pid` and its descendants (granite local's workers and etcd)."""
    pids = [pid]
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                for child in f.read().split():
                    pids += process_tree(int(child))
        except OSError:
            pass
    return pids


def cpu_seconds(cluster_):
    """User + system CPU seconds of the cluster's server processes so far (from /proc)."""
    if isinstance(cluster_, cluster.SplitCluster):
        pids = [p._proc.pid for p in cluster_.workers + [cluster_.coordinator]]
    else:
        pids = process_tree(cluster_.process._proc.pid)
    total = 0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / os.sysconf("SC_CLK_TCK")


def run_clients(clients, work):
    """Runs work(client_index) on `clients` threads at once; re-raises the first error."""
    errors = []

    def body(k):
        try:
            work(k)
        except BaseException as e:  # noqa: B902 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def insert_run(granite, shards, replicas, clients, args):
    root = tempfile.mkdtemp(prefix="ins-replicas-", dir=args.data_root)
    if args.etcd:
        # granite local: the coordinator in-process, forked workers, and with R > 1 the shard
        # log in etcd (`auto`: an etcd started in the data folder) or none.
        extra = ["--replicas", str(replicas)] + (["--etcd", args.etcd] if replicas > 1 else [])
        c = cluster.LocalCluster([granite], workers=shards, data_dir=root, threads=1,
                                 extra_args=extra).start()
    else:
        c = cluster.SplitCluster([granite], workers=shards * replicas, threads=1,
                                 replicas=replicas, data_root=root).start()
    try:
        conns = [c.client(timeout=120) for _ in range(clients)]
        conns[0].query("CREATE TABLE t (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        latencies = [[] for _ in range(clients)]

        def small(k):
            for i in range(k, args.inserts, clients):
                rows = "".join("%d,row%d\n" % (i * args.rows + j, j) for j in range(args.rows))
                t0 = time.monotonic()
                conns[k].query("INSERT INTO t FORMAT CSV", input_data=rows)
                latencies[k].append(time.monotonic() - t0)

        cpu0 = cpu_seconds(c)
        start = time.monotonic()
        run_clients(clients, small)
        small_elapsed = time.monotonic() - start
        small_cpu = cpu_seconds(c) - cpu0
        bulk_rows = args.bulk // clients
        bulks = ["".join("%d,bulk%d\n" % (10 ** 9 + k * bulk_rows + j, j % 1000)
                         for j in range(bulk_rows)) for k in range(clients)]
        cpu0 = cpu_seconds(c)
        t0 = time.monotonic()
        if bulk_rows:
            run_clients(clients, lambda k: conns[k].query("INSERT INTO t FORMAT CSV",
                                                          input_data=bulks[k]))
        bulk_elapsed = time.monotonic() - t0
        bulk_cpu = cpu_seconds(c) - cpu0
        count = int(conns[0].query_text("SELECT count() FROM t"))
        assert count == args.inserts * args.rows + bulk_rows * clients, count
        for conn in conns:
            conn.close()
        all_latencies = [x for per in latencies for x in per]
        return {
            "small_rows_per_s": args.inserts * args.rows / small_elapsed,
            "small_p50": pct(all_latencies, 50), "small_p99": pct(all_latencies, 99),
            "small_cpu_per_insert": small_cpu / args.inserts,
            "bulk_rows_per_s": bulk_rows * clients / bulk_elapsed if bulk_rows else float("nan"),
            "bulk_cpu_per_mrow": bulk_cpu / (bulk_rows * clients / 1e6) if bulk_rows else 0.0,
        }
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)


def kill_run(granite, args):
    c = cluster.SplitCluster([granite], workers=4, threads=1, replicas=2).start()
    try:
        client = c.client(timeout=120)
        client.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        client.query("INSERT INTO t SELECT number FROM numbers(1000000)")
        want = client.query_text("SELECT count(), sum(x) FROM t")
        steady, window, failed = [], [], []
        killed_at = restarted_at = None
        deadline = time.monotonic() + 300
        n = 0
        while time.monotonic() < deadline:
            if n == args.warm and killed_at is None:
                c.kill9_worker(1)
                killed_at = time.monotonic()
            if killed_at and restarted_at is None and time.monotonic() - killed_at > args.down:
                c.restart_worker(1)
                restarted_at = time.monotonic()
            if restarted_at and time.monotonic() - restarted_at > 2.0:
                break
            t0 = time.monotonic()
            try:
                got = client.query_text("SELECT count(), sum(x) FROM t")
                if got != want:
                    failed.append("wrong result %r" % got)
            except granite_client.GraniteError as e:
                failed.append(str(e))
            dt = time.monotonic() - t0
            (window if killed_at else steady).append(dt)
            n += 1
        client.close()
        return steady, window, failed
    finally:
        c.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--inserts", type=int, default=300)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--bulk", type=int, default=1000000)
    parser.add_argument("--warm", type=int, default=300)
    parser.add_argument("--down", type=float, default=5.0)
    parser.add_argument("--clients", default="1",
                        help="comma-separated numbers of concurrent clients, e.g. 1,4")
    parser.add_argument("--replicas", default="1,2", help="comma-separated R values")
    parser.add_argument("--no-kill", action="store_true", help="skip the query stream across a kill")
    parser.add_argument("--data-root", default="/tmp", help="where the clusters' data goes")
    parser.add_argument("--etcd", default="",
                        help="run `granite local --etcd ETCD` (auto | none) instead of separate "
                             "worker processes; R = 2 then records each insert in etcd's shard log")
    args = parser.parse_args()
    for clients in [int(x) for x in args.clients.split(",")]:
        results = {}
        for replicas in [int(x) for x in args.replicas.split(",")]:
            results[replicas] = r = insert_run(args.granite, args.shards, replicas, clients, args)
            print("R=%d clients=%d: %d small inserts of %d rows: %.0f rows/s, p50 %s, p99 %s, "
                  "server CPU %.1f ms/insert; bulk %d rows: %.0f rows/s, server CPU %.2f s/Mrow"
                  % (replicas, clients, args.inserts, args.rows, r["small_rows_per_s"],
                     ms(r["small_p50"]), ms(r["small_p99"]), r["small_cpu_per_insert"] * 1e3,
                     args.bulk // clients * clients, r["bulk_rows_per_s"], r["bulk_cpu_per_mrow"]))
            sys.stdout.flush()
        if 1 in results and 2 in results:
            print("R=2 / R=1, clients=%d: small %.2fx, bulk %.2fx; CPU per small insert %.2fx" % (
                clients, results[2]["small_rows_per_s"] / results[1]["small_rows_per_s"],
                results[2]["bulk_rows_per_s"] / results[1]["bulk_rows_per_s"],
                results[2]["small_cpu_per_insert"] / results[1]["small_cpu_per_insert"]))
            sys.stdout.flush()
    if args.no_kill:
        return
    steady, window, failed = kill_run(args.granite, args)
    print("query stream, 2 shards x 2 replicas, 1M rows: steady %d queries p50 %s p99 %s; "
          "kill -9 of a replica, restart after %.0f s: %d queries p50 %s p99 %s max %s; "
          "%d failed" % (len(steady), ms(pct(steady, 50)), ms(pct(steady, 99)), args.down,
                         len(window), ms(pct(window, 50)), ms(pct(window, 99)),
                         ms(max(window) if window else 0), len(failed)))
    for f in failed[:5]:
        print("  failed: %s" % f)


if __name__ == "__main__":
    main()

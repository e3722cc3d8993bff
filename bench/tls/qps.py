#!/usr/bin/env python3
"""TLS cost on short queries (issue 23): the same `granite local --workers 1` twice, one with a
plaintext client port and one with `--tls_cert/--tls_key` (certificates made at run time with
openssl, as tests/integration/security_test.py does), both up at once. Each round runs
`--queries` of each short query back to back on one connection per cluster, alternating plain /
TLS by round; reports p50 latency and queries/s per shape, and TLS/plain ratios. A connection is
opened once per round (the handshake is reported separately as the p50 of `--connects` fresh
connections each running SELECT 1).

    .venv/bin/python bench/tls/qps.py --granite build/granite
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402
from security_test import make_certificates  # noqa: E402

SHAPES = [
    ("select_1", "SELECT 1"),
    ("count", "SELECT count() FROM t"),
    ("filtered_sum", "SELECT sum(v) FROM t WHERE k < 100"),
    ("group_by", "SELECT k % 10, count() FROM t GROUP BY 1 ORDER BY 1"),
]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--connects", type=int, default=50)
    args = parser.parse_args()
    certs = tempfile.mkdtemp(prefix="granite-tls-bench-")
    make_certificates(certs)
    with open(os.path.join(certs, "ca.pem"), "rb") as f:
        ca = f.read()
    tls_args = ["--tls_cert", os.path.join(certs, "server.pem"),
                "--tls_key", os.path.join(certs, "server.key")]
    plain = cluster.LocalCluster([args.granite], workers=1, threads=1).start()
    tls = cluster.LocalCluster([args.granite], workers=1, threads=1, extra_args=tls_args).start()
    setups = {"plain": (plain, {}), "tls": (tls, {"secure": True, "root_certificates": ca})}
    try:
        for name, (c, kwargs) in setups.items():
            with c.client(timeout=60, **kwargs) as client:
                client.query("CREATE TABLE t (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY k")
                client.query("INSERT INTO t SELECT number % 1000, number FROM numbers(100000)")
        latencies = {(n, s): [] for n in setups for s, _ in SHAPES}
        for r in range(args.rounds):
            order = list(setups) if r % 2 == 0 else list(reversed(list(setups)))
            for name in order:
                c, kwargs = setups[name]
                with c.client(timeout=60, **kwargs) as client:
                    for shape, sql in SHAPES:
                        for _ in range(10):
                            client.query(sql)
                        for _ in range(args.queries):
                            t0 = time.perf_counter()
                            client.query(sql)
                            latencies[(name, shape)].append(time.perf_counter() - t0)
        connects = {}
        for name, (c, kwargs) in setups.items():
            times = []
            for _ in range(args.connects):
                t0 = time.perf_counter()
                with c.client(timeout=60, **kwargs) as client:
                    client.query("SELECT 1")
                times.append(time.perf_counter() - t0)
            connects[name] = pct(times, 50) * 1000
    finally:
        plain.stop()
        tls.stop()
        shutil.rmtree(certs, ignore_errors=True)
    print("| shape | plain p50 ms | TLS p50 ms | TLS / plain | plain q/s | TLS q/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape, _ in SHAPES:
        a, b = latencies[("plain", shape)], latencies[("tls", shape)]
        pa, pb = pct(a, 50) * 1000, pct(b, 50) * 1000
        print("| %s | %.3f | %.3f | %.3f | %.0f | %.0f |" % (shape, pa, pb, pb / pa,
                                                          len(a) / sum(a), len(b) / sum(b)))
    print()
    print("connect + SELECT 1 on a fresh connection, p50: plain %.2f ms, TLS %.2f ms"
          % (connects["plain"], connects["tls"]))


if __name__ == "__main__":
    main()

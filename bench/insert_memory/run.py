#!/usr/bin/env python3
"""Peak memory of the coordinator during one big INSERT ... FORMAT TabSeparated.

For each granite binary given, starts `granite worker` x2 and `granite coordinator` as separate
processes (tests/harness/cluster.py SplitCluster), creates the ClickBench hits table, streams a
`granite gen hits` file into it in 1 MiB messages over ExecuteQueryWithStreamInput (as
bench/clickbench does), checks count(), and reports the coordinator's VmHWM (peak RSS) from
/proc/<pid>/status, with the RSS it had before the insert.

    .venv/bin/python bench/insert_memory/run.py --rows 1000000 \\
        --binary before=/tmp/granite-before --binary after=build-storage2/granite
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def measure(binary, data_path, create_sql, rows):
    c = cluster.SplitCluster([binary], workers=2).start()
    try:
        client = c.client(timeout=3600)
        client.query(create_sql)
        pid = c.coordinator.pid
        rss_before = status_kb(pid, "VmRSS")

        def chunks():
            with open(data_path, "rb") as f:
                while True:
                    block = f.read(1 << 20)
                    if not block:
                        return
                    yield block

        start = time.monotonic()
        client.insert_stream("INSERT INTO hits FORMAT TabSeparated", chunks())
        seconds = time.monotonic() - start
        peak = status_kb(pid, "VmHWM")
        count = client.query_text("SELECT count() FROM hits").strip()
        client.close()
        if int(count) != rows:
            raise SystemExit("%s: count() = %s, expected %d" % (binary, count, rows))
        return rss_before, peak, seconds
    finally:
        c.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, action="append", required=True)
    parser.add_argument("--binary", action="append", required=True, help="label=path")
    parser.add_argument("--clickbench", default=os.path.join(os.path.dirname(REPO), "shared",
                                                              "clickbench"))
    args = parser.parse_args()
    with open(os.path.join(args.clickbench, "create.sql")) as f:
        create_sql = f.read().strip().rstrip(";")
    binaries = [b.split("=", 1) for b in args.binary]
    print("| rows | text MB | binary | coordinator RSS before insert MB | peak RSS (VmHWM) MB | "
          "insert s |")
    print("|---|---|---|---|---|---|")
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "hits.tsv")
            with open(path, "wb") as out:
                subprocess.run([binaries[0][1], "gen", "hits", "--rows", str(rows), "--seed", "1",
                                "--format", "TabSeparated"], stdout=out, check=True)
            size_mb = os.path.getsize(path) / 1e6
            for label, binary in binaries:
                before, peak, seconds = measure(os.path.abspath(binary), path, create_sql, rows)
                print("| %d | %.0f | %s | %.0f | %.0f | %.1f |" % (
                    rows, size_mb, label, before / 1024, peak / 1024, seconds), flush=True)


if __name__ == "__main__":
    main()

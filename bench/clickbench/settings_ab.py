"""Same-run A/B of query SETTINGS on an already loaded `granite local` data folder.

Usage: settings_ab.py GRANITE_BINARY DATA_DIR RUNS Q[:SETTINGS] ...
  e.g. settings_ab.py build/granite /tmp/cb/granite 2 "17:group_by_worker_merge='always'" 17:
Starts `granite local --workers 2` on DATA_DIR (a folder run.py --reuse loaded), runs each
ClickBench query (1-based line of queries.sql, ClickBench folder below) RUNS times with the given
SETTINGS appended, and prints wall seconds and the CPU seconds of the coordinator and worker
processes (utime + stime from /proc): CPU time is far less disturbed by a shared machine's load.
"""
import os, sys, time
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))
import cluster

TICK = os.sysconf("SC_CLK_TCK")

def tree(pid):
    pids = [pid]
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    pids.append(int(p))
            except OSError:
                pass
    return pids

def cpu(pids):
    out = {}
    for p in pids:
        with open("/proc/%d/stat" % p) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        out[p] = (int(fields[11]) + int(fields[12])) / TICK
    return out

binary, data, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The ClickBench files stay outside the project (license): CLICKBENCH_DIR, default ../shared/clickbench.
CLICKBENCH = os.environ.get("CLICKBENCH_DIR",
                            os.path.join(os.path.dirname(REPO), "shared", "clickbench"))
queries = [l.strip() for l in open(os.path.join(CLICKBENCH, "queries.sql")) if l.strip()]
c = cluster.LocalCluster([binary], workers=2, data_dir=data, keep_data=True).start()
client = c.client(timeout=600)
client.wait_ready(30)
pids = tree(c.process._proc.pid)
print("pids", pids, flush=True)
try:
    for spec in sys.argv[4:]:
        num, _, settings = spec.partition(":")
        sql = queries[int(num) - 1].rstrip(";")
        if settings:
            sql += " SETTINGS " + settings
        results = []
        for r in range(runs):
            before = cpu(pids)
            t = time.monotonic()
            res = client.query(sql)
            wall = time.monotonic() - t
            after = cpu(pids)
            per = [after[p] - before[p] for p in pids]
            results.append((wall, sum(per), per))
        best = min(results, key=lambda x: x[1])
        print("Q%s %-70s wall %s cpu %s best-cpu-split %s" % (
            num, settings or "(defaults)", " ".join("%.2f" % x[0] for x in results),
            " ".join("%.2f" % x[1] for x in results), " ".join("%.2f" % x for x in best[2])), flush=True)
finally:
    client.close()
    c.stop()

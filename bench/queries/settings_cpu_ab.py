#!/usr/bin/env python3
"""CPU-time A/B of one query setting on one granite binary (a `granite local` cluster).

Each query runs `runs` times with `SETTINGS <setting> = <off>` and `= <on>` alternating; the CPU
seconds (user + sys) of the whole process tree (coordinator and workers, from /proc/<pid>/stat) are
measured around each run and the minimum per setting is kept. CPU time is far less sensitive than
wall time to other load on a shared machine.

    .venv/bin/python bench/queries/settings_cpu_ab.py build/granite WORKERS RUNS "SELECT ..." ...
    (environment: AB_SETTING, default use_value_ranges; AB_OFF=0, AB_ON=1)
"""
import os, re, subprocess, sys, tempfile, time, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "client", "python"))
import granite_client
binary, workers, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
SETTING = os.environ.get("AB_SETTING", "use_value_ranges")
OFF, ON = os.environ.get("AB_OFF", "0"), os.environ.get("AB_ON", "1")
tick = os.sysconf("SC_CLK_TCK")
def tree(pid):
    out = [pid]
    for p in subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split():
        out += tree(int(p))
    return out
def cpu(pids):
    total = 0
    for p in pids:
        try:
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])
        except OSError:
            pass
    return total / tick
data = tempfile.mkdtemp(prefix="keyrange-cpu-")
proc = subprocess.Popen([binary, "local", "--workers", str(workers), "--data", data, "--port", "0"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
for line in proc.stdout:
    m = re.search(r"listening on [^:]+:(\d+)", line)
    if m: port = int(m.group(1)); break
try:
    c = granite_client.connect("127.0.0.1", port); c.wait_ready()
    pids = tree(proc.pid)
    for q in sys.argv[4:]:
        best = {}
        for _ in range(runs):
            for v in (OFF, ON):
                before = cpu(pids); c.query_text(f"{q} SETTINGS {SETTING} = {v}")
                best[v] = min(best.get(v, 1e9), cpu(pids) - before)
        print(f"workers={workers} cpu off={best[OFF]:.2f}s on={best[ON]:.2f}s on/off={best[ON]/max(best[OFF],0.01):.2f} :: {q}", flush=True)
finally:
    proc.terminate(); proc.wait(); shutil.rmtree(data, ignore_errors=True)

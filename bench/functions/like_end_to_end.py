"""Times LIKE queries end to end on a one-column table t(URL String) in `granite local --workers 1`.

Usage: like_end_to_end.py URLS_TSV GRANITE_BINARY [GRANITE_BINARY ...]
URLS_TSV holds one URL per line (e.g. `granite gen hits --rows 1M | cut -f14`). One cluster per
binary is started and loaded; then each query runs RUNS times (env, default 7) alternating between
the binaries, after one warm-up run, and the minimum is printed. Runs alternate so that load from
other processes on a shared machine hits every binary alike.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clickbench"))
import engines  # noqa: E402  (bench/clickbench/engines.py: GraniteEngine)

QUERIES = [
    "SELECT count() FROM t WHERE URL LIKE '%google%'",
    "SELECT count() FROM t WHERE URL NOT LIKE '%google%'",
    "SELECT count() FROM t WHERE URL ILIKE '%GOOGLE%'",
    "SELECT count() FROM t WHERE URL LIKE '%/news%'",
    "SELECT count() FROM t WHERE URL LIKE 'http://www.roinre%'",
    "SELECT count() FROM t WHERE length(URL) > 0",
]


def file_chunks(path, size=1 << 20):
    with open(path, "rb") as f:
        while True:
            block = f.read(size)
            if not block:
                return
            yield block


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    urls, binaries = sys.argv[1], sys.argv[2:]
    runs = int(os.environ.get("RUNS", "7"))
    clusters = []
    try:
        for binary in binaries:
            engine = engines.GraniteEngine([binary], workers=1)
            clusters.append((binary, engine))
            engine.create("CREATE TABLE t (URL String) ENGINE = MergeTree ORDER BY tuple()")
            engine._run(lambda: engine._client.insert_stream(
                "INSERT INTO t FORMAT TabSeparated", file_chunks(urls), timeout=600))
        for query in QUERIES:
            times = {binary: [] for binary in binaries}
            outputs = {}
            for _, engine in clusters:
                engine.query(query)
            for _ in range(runs):
                for binary, engine in clusters:
                    out, seconds = engine.query(query)
                    times[binary].append(seconds)
                    outputs[binary] = out.decode().strip()
            print(query)
            for binary in binaries:
                print("   %-40s result=%-8s min=%.1f ms" % (binary, outputs[binary],
                                                            min(times[binary]) * 1000))
    finally:
        for _, engine in clusters:
            engine.close()


if __name__ == "__main__":
    main()

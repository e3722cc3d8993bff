#!/usr/bin/env python3
"""Hot times of the scans the part format decides: String sizes, String values, sparse and dense
integers, a DoubleDelta time column, on `hits` in a kept granite data folder (codec_sizes.py
--keep-hits). Runs each query 9 times on one cluster and prints the min and median seconds;
run it on two folders one after the other to compare formats.

    .venv/bin/python bench/codecs/read_path_times.py build/granite /tmp/sparse-bench/b2
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clickbench"))
import engines  # noqa: E402

QUERIES = [
    "SELECT sum(length(URL)) FROM hits",
    "SELECT count() FROM hits WHERE URL LIKE '%google%'",
    "SELECT max(URL) FROM hits",
    "SELECT sum(IsRefresh), sum(AdvEngineID) FROM hits",
    "SELECT sum(ResolutionWidth) FROM hits",
    "SELECT sum(toUInt32(EventTime)) FROM hits",
    "SELECT count() FROM hits WHERE SearchPhrase <> ''",
    "SELECT max(SearchPhrase) FROM hits",
]


def main():
    granite = engines.GraniteEngine([os.path.abspath(sys.argv[1])], 2, sys.argv[2], timeout=600)
    try:
        for sql in QUERIES:
            times = sorted(granite.query(sql)[1] for _ in range(9))
            print("%.4f %.4f  %s" % (times[0], times[4], sql), flush=True)
    finally:
        granite.close(keep=True)


if __name__ == "__main__":
    main()

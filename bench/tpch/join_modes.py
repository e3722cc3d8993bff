#!/usr/bin/env python3
"""Times each TPC-H kit query under each distributed_join_mode on a running granite cluster with
TPC-H loaded (bench/tpch/tpch.py loads it), best of 3 per mode, and says when answers differ.

    .venv/bin/python bench/tpch/join_modes.py [--port 9100] [--kit ../shared/tpch] [--only 3,5]
        [--modes coordinator,auto,broadcast]
"""
import argparse
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tpch  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--kit", default=tpch.DEFAULT_KIT)
    parser.add_argument("--only", default="")
    parser.add_argument("--modes", default="coordinator,auto")
    args = parser.parse_args()
    tools = tpch.load_kit_tools(args.kit)
    modes = args.modes.split(",")
    print("query " + " ".join("%12s" % m for m in modes))
    for name in tpch.query_files(args.kit, args.only):
        statements = tools.split_statements(open(os.path.join(args.kit, "queries", name)).read())
        times, outputs = [], []
        for mode in modes:
            best, out = None, None
            for _ in range(3):
                client = tpch.Client(port=args.port, timeout=600, session_id=str(uuid.uuid4()),
                                     settings={"distributed_join_mode": mode})
                start = time.perf_counter()
                try:
                    for statement in statements:
                        result = client.execute(statement, format="TabSeparatedWithNamesAndTypes")
                        if tools.is_select(statement):
                            out = result.output.decode()
                except tpch.GraniteError as e:
                    out = "error: %s" % str(e)[:200]
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            times.append(best)
            outputs.append(out)
        same = all(o == outputs[0] for o in outputs)
        print("%-5s %s%s" % (name[:3], " ".join("%12.3f" % t for t in times),
                             "" if same else "  ANSWERS DIFFER"))


if __name__ == "__main__":
    main()
